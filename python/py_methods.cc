#include "py_methods.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/device.h"
#include "hetsched/sched/context.h"

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

class PythonScheduler final : public JobScheduler {
 public:
  PythonScheduler(py::object policy, std::shared_ptr<PythonFault> fault)
      : policy_(std::move(policy)), fault_(std::move(fault)) {
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
    if (fault_->raised) return;  // the run is ending with an earlier exception
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
      fault_->raised.emplace(std::move(e));
      ctx.Fail(Status::Internal("Python policy " + name_ + "." + method + " raised: " + what));
    } catch (const std::exception& e) {
      ctx.Fail(Status::Internal("Python policy " + name_ + "." + method + ": " + e.what()));
    }
    view->Close();
  }

  py::object policy_;
  std::shared_ptr<PythonFault> fault_;
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
  PythonPlacer(py::object placer, std::shared_ptr<PythonFault> fault)
      : placer_(std::move(placer)), fault_(std::move(fault)) {
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
    if (fault_->raised) return false;
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
      fault_->raised.emplace(std::move(e));
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
  py::object placer_;
  std::shared_ptr<PythonFault> fault_;
  std::string name_;
  Status error_;
};

}  // namespace

std::unique_ptr<JobScheduler> PythonSchedulerFor(py::object policy, std::shared_ptr<PythonFault> fault) {
  return std::make_unique<PythonScheduler>(std::move(policy), std::move(fault));
}

std::unique_ptr<Placer> PythonPlacerFor(py::object placer, std::shared_ptr<PythonFault> fault) {
  return std::make_unique<PythonPlacer>(std::move(placer), std::move(fault));
}

void BindViews(py::module_& m) {
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
}

}  // namespace hetsched::python
