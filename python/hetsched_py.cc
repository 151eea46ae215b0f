// The Python module's native part, `hetsched._hetsched` (issue 22). The Python package
// (python/hetsched/__init__.py) builds on four things from here:
//  - run_cli(argv): the `hetsched` command line run in-process (apps/hetsched/cli_main.cc), the
//    GIL released, error lines captured instead of printed: the same flags, defaults, checks and
//    output files as the program;
//  - the job scheduler "python" (option handle=N): a C++ JobScheduler that forwards the simulator's
//    events to a Python object registered under N, with copies of the visible job state (never
//    the simulator's truth) and a context valid only during the call. An exception raised there
//    ends the run (SchedContext::Fail) and is re-raised by run_cli with its traceback;
//  - read_trace_native(path, format, ...): any trace format read by hetsched's readers, returned
//    as the native CSV text (the package turns it into a DataFrame);
//  - methods(kind): the registries' listings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.h"
#include "hetsched/experiments/seeds.h"
#include "hetsched/model/cluster.h"
#include "hetsched/model/device.h"
#include "hetsched/model/link.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"
#include "hetsched/trace/trace.h"

namespace py = pybind11;

namespace hetsched::python {
namespace {

// What a Python policy sees of a job: a copy, safe to keep after the call.
struct JobView {
  JobId id = 0;
  std::string name, user, model, state, device_type;
  int num_gpus = 1;
  int priority = 0;
  long long iterations = 0;  // the user's stated count (an estimate), as the trace gives it
  double submit_time = 0, deadline = 0, estimated_runtime = 0;
  double iterations_done = 0, iteration_rate = 0;
  double first_start = -1, last_start = -1, finish = -1;
  double attained_service = 0;  // GPU-seconds held so far
  int num_devices = 0;
  int preemptions = 0;
  bool elastic = false;
};

JobView ViewOfSpec(const JobSpec& s) {
  JobView v;
  v.id = s.id;
  v.name = s.name;
  v.user = s.user;
  v.model = s.model;
  v.num_gpus = s.num_gpus;
  v.priority = s.priority;
  v.iterations = s.iterations;
  v.submit_time = s.submit_time_s;
  v.deadline = s.deadline_s;
  v.estimated_runtime = s.estimated_runtime_s;
  v.elastic = s.elastic;
  v.state = "pending";
  return v;
}

JobView ViewOf(const JobStatus& st, const SchedContext& ctx) {
  JobView v = ViewOfSpec(*st.spec);
  v.state = st.state == JobState::kPending ? "pending" : st.state == JobState::kRunning ? "running" : "finished";
  v.device_type = st.device_type == kNoDeviceType ? "" : ctx.cluster().device_catalog().type(st.device_type).name;
  v.iterations_done = st.iterations_done;
  v.iteration_rate = st.iteration_rate;
  v.first_start = st.first_start_s;
  v.last_start = st.last_start_s;
  v.finish = st.finish_s;
  v.attained_service = st.AttainedServiceGpuS(ctx.now());
  v.num_devices = st.num_devices();
  v.preemptions = st.preemptions;
  return v;
}

// A device type of `cluster` by catalog name or alias; ValueError if it has none of that type.
DeviceTypeId TypeByName(const Cluster& cluster, const std::string& name) {
  const DeviceTypeId t = cluster.device_catalog().Find(name);
  if (t == kNoDeviceType || static_cast<size_t>(t) >= cluster.devices_per_type().size()) {
    throw py::value_error("hetsched: unknown device type '" + name + "'");
  }
  return t;
}

// The scheduling context handed to a Python callback; it refuses use after the call returns.
class ContextView {
 public:
  // `seen`: the jobs the policy has been told of (submitted or running); no other id is visible.
  ContextView(SchedContext* ctx, const std::vector<char>* seen) : ctx_(ctx), seen_(seen) {}
  void Close() { ctx_ = nullptr; }

  double now() const { return Get().now(); }
  JobView job(JobId id) const { return ViewOf(Get().job(CheckedId(id)), Get()); }
  bool try_start(JobId id, std::optional<int> num_devices, std::optional<std::string> device_type) {
    SchedContext& ctx = Get();
    const JobStatus& st = ctx.job(CheckedId(id));
    return ctx.TryStart(id, num_devices.value_or(st.spec->num_gpus), TypeOrNone(device_type));
  }
  void preempt(JobId id) { Get().Preempt(CheckedId(id)); }
  void wake_up_at(double time_s) { Get().WakeUpAt(time_s); }
  std::vector<std::string> device_types() const {
    std::vector<std::string> out;
    const Cluster& c = Get().cluster();
    for (DeviceTypeId t : c.present_types()) out.push_back(c.device_catalog().type(t).name);
    return out;
  }
  int free_devices(const std::string& device_type) const { return Get().state().free_of_type(Type(device_type)); }
  int total_devices(const std::string& device_type) const {
    return Get().cluster().devices_per_type()[static_cast<size_t>(Type(device_type))];
  }
  double estimate_iteration_s(JobId id, int num_devices, const std::string& device_type) {
    return Get().EstimateIterationS(CheckedId(id), num_devices, Type(device_type));
  }

 private:
  SchedContext& Get() const {
    if (ctx_ == nullptr) throw std::runtime_error("hetsched: a SchedContext is valid only during the callback it was given to");
    return *ctx_;
  }
  JobId CheckedId(JobId id) const {
    if (id < 0 || static_cast<size_t>(id) >= seen_->size() || !(*seen_)[static_cast<size_t>(id)]) {
      throw py::index_error("hetsched: no submitted job with id " + std::to_string(id));
    }
    return id;
  }
  DeviceTypeId Type(const std::string& name) const { return TypeByName(Get().cluster(), name); }
  DeviceTypeId TypeOrNone(const std::optional<std::string>& name) const { return name ? Type(*name) : kNoDeviceType; }

  SchedContext* ctx_;
  const std::vector<char>* seen_;
};

// Python policies by handle, and the first exception each raised (taken by reraise(handle)).
struct PythonState {
  std::map<long long, py::object> policies;
  std::map<long long, py::error_already_set> raised;
};
PythonState& State() {
  static PythonState* state = new PythonState();  // never destroyed: py::objects outlive no interpreter
  return *state;
}

class PythonScheduler final : public JobScheduler {
 public:
  PythonScheduler(long long handle, py::object policy) : handle_(handle), policy_(std::move(policy)) {
    name_ = "python:" + py::str(py::type::of(policy_).attr("__name__")).cast<std::string>();
    if (py::hasattr(policy_, "round_period_s")) round_s_ = policy_.attr("round_period_s").cast<double>();
  }
  ~PythonScheduler() override {
    py::gil_scoped_acquire gil;
    policy_ = py::object();
  }

  std::string_view name() const override { return name_; }
  double round_period_s() const override { return round_s_; }
  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override { Event("on_job_submitted", &job, ctx); }
  void OnJobFinished(const JobStatus& job, SchedContext& ctx) override { Event("on_job_finished", &job, ctx); }
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override { Event("on_job_requeued", &job, ctx); }
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { Event("on_job_running", &job, ctx); }
  void Schedule(SchedContext& ctx) override { Event("schedule", nullptr, ctx); }

 private:
  void Event(const char* method, const JobStatus* job, SchedContext& ctx) {
    if (ctx.failed()) return;
    py::gil_scoped_acquire gil;
    if (State().raised.count(handle_) > 0) return;  // the run is ending with an earlier exception
    if (job != nullptr) {
      const size_t id = static_cast<size_t>(job->spec->id);
      if (seen_.size() <= id) seen_.resize(id + 1, 0);
      seen_[id] = 1;
    }
    if (!py::hasattr(policy_, method)) return;
    auto view = std::make_shared<ContextView>(&ctx, &seen_);
    try {
      if (job != nullptr) {
        policy_.attr(method)(ViewOf(*job, ctx), view);
      } else {
        policy_.attr(method)(view);
      }
    } catch (py::error_already_set& e) {
      const std::string what = e.what();
      State().raised.insert_or_assign(handle_, std::move(e));
      ctx.Fail(Status::Internal("Python policy " + name_ + "." + method + " raised: " + what));
    } catch (const std::exception& e) {
      ctx.Fail(Status::Internal("Python policy " + name_ + "." + method + ": " + e.what()));
    }
    view->Close();
  }

  long long handle_;
  py::object policy_;
  std::string name_;
  double round_s_ = 0;
  std::vector<char> seen_;
};

// What a Python placer sees of the cluster during one place() call (invalid after it returns).
class ClusterView {
 public:
  explicit ClusterView(const ClusterState* state) : state_(state) {}
  void Close() { state_ = nullptr; }

  std::vector<std::string> device_types() const {
    std::vector<std::string> out;
    const Cluster& c = Get().cluster();
    for (DeviceTypeId t : c.present_types()) out.push_back(c.device_catalog().type(t).name);
    return out;
  }
  int free_devices(const std::string& type) const { return Get().free_of_type(Type(type)); }
  // Nodes of a type, in id order.
  std::vector<NodeId> nodes(const std::string& type) const { return Get().nodes_of_type(Type(type)); }
  std::vector<DeviceId> free_devices_on(NodeId node) const {
    CheckNode(node);
    std::vector<DeviceId> out;
    Get().AppendFreeDevices(node, &out);
    return out;
  }
  py::dict node(NodeId node) const {
    CheckNode(node);
    const Cluster& c = Get().cluster();
    const Node& n = c.node(node);
    py::dict d;
    d["name"] = n.name;
    d["rack"] = c.rack(n.rack).name;
    d["device_type"] = c.device_catalog().type(n.device_type).name;
    d["num_devices"] = n.num_devices;
    d["free"] = Get().free_on_node(node);
    return d;
  }
  int num_nodes() const { return Get().cluster().num_nodes(); }

 private:
  const ClusterState& Get() const {
    if (state_ == nullptr) throw std::runtime_error("hetsched: a ClusterView is valid only during the place() call");
    return *state_;
  }
  void CheckNode(NodeId node) const {
    if (node < 0 || node >= Get().cluster().num_nodes()) throw py::index_error("hetsched: no node " + std::to_string(node));
  }
  DeviceTypeId Type(const std::string& name) const { return TypeByName(Get().cluster(), name); }
  const ClusterState* state_;
};

// A placement request as a Python placer sees it.
struct RequestView {
  JobView job;
  int num_devices = 1;
  std::string device_type;                   // "" = the placer picks one of candidate_types
  std::vector<std::string> candidate_types;  // in the order to try (CandidateTypes)
};

class PythonPlacer final : public Placer {
 public:
  PythonPlacer(long long handle, py::object placer) : handle_(handle), placer_(std::move(placer)) {
    name_ = "python:" + py::str(py::type::of(placer_).attr("__name__")).cast<std::string>();
  }
  ~PythonPlacer() override {
    py::gil_scoped_acquire gil;
    placer_ = py::object();
  }
  std::string_view name() const override { return name_; }
  Status TakeError() override {
    Status e = std::move(error_);
    error_ = Status::Ok();
    return e;
  }

  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) override {
    py::gil_scoped_acquire gil;
    if (State().raised.count(handle_) > 0) return false;
    const DeviceCatalog& catalog = state.cluster().device_catalog();
    RequestView view;
    view.job = ViewOfSpec(*request.job);
    view.num_devices = request.num_devices;
    view.device_type = request.type == kNoDeviceType ? "" : catalog.type(request.type).name;
    const std::vector<DeviceTypeId> candidates = CandidateTypes(request, state);
    for (DeviceTypeId t : candidates) view.candidate_types.push_back(catalog.type(t).name);
    auto cluster = std::make_shared<ClusterView>(&state);
    py::object chosen;
    try {
      chosen = placer_.attr("place")(view, cluster);
    } catch (py::error_already_set& e) {
      const std::string what = e.what();
      State().raised.insert_or_assign(handle_, std::move(e));
      error_ = Status::Internal("Python placer " + name_ + ".place raised: " + what);
    }
    cluster->Close();
    if (!error_.ok() || chosen.is_none()) return false;
    std::vector<DeviceId> devices;
    try {
      devices = chosen.cast<std::vector<DeviceId>>();
    } catch (const py::cast_error&) {
      error_ = Status::InvalidArgument(name_ + ".place must return a list of device ids or None");
      return false;
    }
    // The devices must be free, distinct, as many as asked, all of one type the job may use.
    std::vector<DeviceId> sorted = devices;
    std::sort(sorted.begin(), sorted.end());
    const bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    bool valid = static_cast<int>(devices.size()) == request.num_devices && distinct;
    DeviceTypeId type = kNoDeviceType;
    for (DeviceId d : devices) {
      if (!valid || d < 0 || d >= state.cluster().num_devices() || !state.is_free(d)) {
        valid = false;
        break;
      }
      const DeviceTypeId t = state.cluster().device(d).type;
      if (type == kNoDeviceType) type = t;
      valid = t == type && std::find(candidates.begin(), candidates.end(), t) != candidates.end();
    }
    if (!valid) {
      error_ = Status::InvalidArgument(name_ + ".place returned devices it may not use for job " +
                                       std::to_string(request.job->id) + " (want " + std::to_string(request.num_devices) +
                                       " free, distinct devices of one allowed type)");
      return false;
    }
    out->insert(out->end(), devices.begin(), devices.end());
    return true;
  }

 private:
  long long handle_;
  py::object placer_;
  std::string name_;
  Status error_;
};

// Registers `Impl` (built from a handle and the Python object under it) as the method "python"
// of `Base`'s registry; `keyword` is simulate()'s argument that takes the object.
template <typename Base, typename Impl>
void RegisterPythonMethod(const char* summary, const char* keyword) {
  Registry<Base>::Instance().Register(
      MethodInfo{"python", summary, "user code through the Python module (docs/python.md)"},
      [keyword](const Options& options) -> Result<std::unique_ptr<Base>> {
        HETSCHED_ASSIGN_OR_RETURN(const long long handle, options.GetInt("handle", -1));
        py::gil_scoped_acquire gil;
        auto it = State().policies.find(handle);
        if (it == State().policies.end()) {
          return Status::InvalidArgument(std::string(Base::kKind) + " 'python' needs an object: pass it to hetsched.simulate(" +
                                         keyword + "=...)");
        }
        return std::unique_ptr<Base>(std::make_unique<Impl>(handle, it->second));
      });
}

// run_cli(argv) -> (exit code, error text).
py::tuple RunCli(const std::vector<std::string>& args, bool quiet) {
  std::vector<std::string> argv_text{"hetsched"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string errors;
  int code = 0;
  {
    py::gil_scoped_release release;
    // One run at a time in a process (the command line keeps process-wide state: the error sink,
    // the C stdout below); other Python threads run meanwhile.
    static std::mutex one_run;
    const std::lock_guard<std::mutex> lock(one_run);
    // quiet: the command's printed tables go nowhere (the C stream only: Python's own prints,
    // from a policy, still reach sys.stdout).
    FILE* saved = stdout;
    FILE* null = quiet ? std::fopen("/dev/null", "w") : nullptr;
    if (null != nullptr) stdout = null;
    cli::SetErrorSink(&errors);
    code = cli::RunCli(static_cast<int>(argv_text.size()), argv.data());
    cli::SetErrorSink(nullptr);
    if (null != nullptr) {
      stdout = saved;
      std::fclose(null);
    }
  }
  return py::make_tuple(code, errors);
}

template <typename Base>
std::vector<py::dict> RegisteredMethods() {
  std::vector<py::dict> out;
  for (const MethodInfo& m : Registry<Base>::Instance().List()) {
    py::dict d;
    d["name"] = m.name;
    d["summary"] = m.summary;
    d["provenance"] = m.provenance;
    out.push_back(std::move(d));
  }
  return out;
}

std::string ReadTraceNative(const std::string& path, const std::string& format, const std::string& reference_device,
                            bool skip_bad_rows, long long max_jobs) {
  TraceReadOptions options;
  options.reference_device = reference_device;
  options.on_bad_row = skip_bad_rows ? BadRowPolicy::kSkip : BadRowPolicy::kStop;
  options.max_jobs = max_jobs;
  Result<Workload> w = [&] {
    py::gil_scoped_release release;
    return ReadTrace(path, format, options, DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
  }();
  if (!w.ok()) throw py::value_error(w.status().message());
  return ToNativeTrace(*w, DeviceCatalog::BuiltIn());
}

// One row per node of a cluster spec file (or of the --gpus shorthand when `path` is empty).
std::vector<py::dict> ClusterNodes(const std::string& path, const std::string& gpus, int gpus_per_server) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  Result<Cluster> cluster = Status::InvalidArgument("read_cluster: give a path or gpus=");
  if (!path.empty()) {
    cluster = LoadClusterSpec(path, devices, links);
  } else if (!gpus.empty()) {
    auto pairs = ParseTypeCounts(gpus, "gpus");
    if (!pairs.ok()) throw py::value_error(pairs.status().message());
    cluster = MakeShorthandCluster(*pairs, gpus_per_server, devices, links);
  }
  if (!cluster.ok()) throw py::value_error(cluster.status().message());
  std::vector<py::dict> out;
  for (NodeId n = 0; n < cluster->num_nodes(); ++n) {
    const Node& node = cluster->node(n);
    py::dict d;
    d["node"] = n;
    d["name"] = node.name;
    d["rack"] = cluster->rack(node.rack).name;
    d["device_type"] = devices.type(node.device_type).name;
    d["num_devices"] = node.num_devices;
    d["first_device"] = node.first_device;
    d["intra_link"] = node.intra_link == kNoLinkClass ? std::string() : links.link(node.intra_link).name;
    d["nic"] = node.nic == kNoLinkClass ? std::string() : links.link(node.nic).name;
    d["cpu_cores"] = node.cpu_cores;
    d["host_memory_gib"] = node.host_memory_bytes / (1024.0 * 1024.0 * 1024.0);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace
}  // namespace hetsched::python

PYBIND11_MODULE(_hetsched, m) {
  using namespace hetsched;
  using namespace hetsched::python;
  m.doc() = "hetsched's native part: use the package `hetsched`";

  py::class_<JobView>(m, "Job", "A job as a policy sees it (a copy: safe to keep)")
      .def_readonly("id", &JobView::id)
      .def_readonly("name", &JobView::name)
      .def_readonly("user", &JobView::user)
      .def_readonly("model", &JobView::model)
      .def_readonly("num_gpus", &JobView::num_gpus)
      .def_readonly("priority", &JobView::priority)
      .def_readonly("iterations", &JobView::iterations)
      .def_readonly("submit_time", &JobView::submit_time)
      .def_readonly("deadline", &JobView::deadline)
      .def_readonly("estimated_runtime", &JobView::estimated_runtime)
      .def_readonly("state", &JobView::state)
      .def_readonly("device_type", &JobView::device_type)
      .def_readonly("iterations_done", &JobView::iterations_done)
      .def_readonly("iteration_rate", &JobView::iteration_rate)
      .def_readonly("first_start", &JobView::first_start)
      .def_readonly("last_start", &JobView::last_start)
      .def_readonly("finish", &JobView::finish)
      .def_readonly("attained_service", &JobView::attained_service)
      .def_readonly("num_devices", &JobView::num_devices)
      .def_readonly("preemptions", &JobView::preemptions)
      .def_readonly("elastic", &JobView::elastic)
      .def("__repr__", [](const JobView& j) {
        return "<hetsched.Job " + std::to_string(j.id) + " " + j.model + " x" + std::to_string(j.num_gpus) + " " +
               j.state + ">";
      });

  py::class_<ContextView, std::shared_ptr<ContextView>>(
      m, "SchedContext", "What a policy may do during one callback (invalid after it returns)")
      .def_property_readonly("now", &ContextView::now, "simulated time, seconds")
      .def("job", &ContextView::job, py::arg("job_id"))
      .def("try_start", &ContextView::try_start, py::arg("job_id"), py::arg("num_devices") = py::none(),
           py::arg("device_type") = py::none(),
           "start the job on num_devices (default: its request) of device_type (default: the placer's choice); "
           "False if it does not fit now")
      .def("preempt", &ContextView::preempt, py::arg("job_id"))
      .def("wake_up_at", &ContextView::wake_up_at, py::arg("time_s"), "ask for a schedule() call at that time")
      .def("device_types", &ContextView::device_types, "the cluster's device types (catalog names)")
      .def("free_devices", &ContextView::free_devices, py::arg("device_type"))
      .def("total_devices", &ContextView::total_devices, py::arg("device_type"))
      .def("estimate_iteration_s", &ContextView::estimate_iteration_s, py::arg("job_id"), py::arg("num_devices"),
           py::arg("device_type"), "the visible performance model's estimate (not the simulator's truth)");

  py::class_<RequestView>(m, "PlacementRequest", "What a placer is asked: a job, a device count, maybe a type")
      .def_readonly("job", &RequestView::job)
      .def_readonly("num_devices", &RequestView::num_devices)
      .def_readonly("device_type", &RequestView::device_type, "the type asked for, or '' (pick one of candidate_types)")
      .def_readonly("candidate_types", &RequestView::candidate_types);
  py::class_<ClusterView, std::shared_ptr<ClusterView>>(m, "ClusterView",
                                                        "The cluster's free devices during one place() call")
      .def("device_types", &ClusterView::device_types)
      .def("free_devices", &ClusterView::free_devices, py::arg("device_type"))
      .def("nodes", &ClusterView::nodes, py::arg("device_type"), "node ids of that type, in id order")
      .def("free_devices_on", &ClusterView::free_devices_on, py::arg("node"), "free device ids of a node, in order")
      .def("node", &ClusterView::node, py::arg("node"))
      .def_property_readonly("num_nodes", &ClusterView::num_nodes);

  m.def("run_cli", &RunCli, py::arg("args"), py::arg("quiet") = true);
  m.def("register_policy", [](long long handle, py::object policy) { State().policies[handle] = std::move(policy); });
  m.def("unregister_policy", [](long long handle) { State().policies.erase(handle); });
  // Raises the exception the policy under `handle` raised during its run, if any (with its
  // traceback), and forgets it.
  m.def("reraise", [](long long handle) {
    auto it = State().raised.find(handle);
    if (it == State().raised.end()) return;
    py::error_already_set raised = std::move(it->second);
    State().raised.erase(it);
    throw raised;
  });
  m.def("methods", [](const std::string& kind) -> std::vector<py::dict> {
    if (kind == "policy") return RegisteredMethods<JobScheduler>();
    if (kind == "placer") return RegisteredMethods<Placer>();
    if (kind == "planner") return RegisteredMethods<Planner>();
    throw py::value_error("kind must be policy, placer or planner");
  });
  // The seeds of a `--seeds` list, as `hetsched experiment` reads it (experiments/seeds.h).
  m.def("parse_seed_list", [](const std::string& text) {
    auto seeds = ParseSeedList(text);
    if (!seeds.ok()) throw py::value_error(seeds.status().message());
    return *seeds;
  });
  m.def("cluster_nodes", &ClusterNodes, py::arg("path"), py::arg("gpus"), py::arg("gpus_per_server"));
  m.def("read_trace_native", &ReadTraceNative, py::arg("path"), py::arg("format") = "auto",
        py::arg("reference_device") = "v100", py::arg("skip_bad_rows") = false, py::arg("max_jobs") = -1);

  // The placer and the job scheduler "python": each asks the object registered under `handle`.
  RegisterPythonMethod<Placer, PythonPlacer>("A placer written in Python (the hetsched package's Placer)", "placer");
  RegisterPythonMethod<JobScheduler, PythonScheduler>(
      "A job scheduler written in Python (the hetsched package's JobScheduler)", "policy");
}
