// The Python module's native part, `hetsched._hetsched` (issues 22 and 45). The Python package
// (python/hetsched/__init__.py) builds on these:
//  - simulate(...): one simulation through the library's run entry (run/simulate_request.h): the
//    settings by the command line's flags with the same checks, a trace file or a DataFrame's
//    text, and the methods by name or as Python objects, given to the run directly; the outputs
//    come back as text (summary.json, jobs.csv, timeline.csv, run.json), written to files only
//    for `out`. The GIL is released while the run goes on;
//  - a C++ JobScheduler and a Placer that forward to a Python object, with copies of the visible
//    job state (never the simulator's truth) and a context valid only during the call. An
//    exception raised there ends the run (SchedContext::Fail) and is raised again by simulate()
//    with its traceback;
//  - compare(...) and experiment(...): the same for several runs and for a reproduction experiment
//    (run/compare_request.h, run/experiment_request.h);
//  - read_trace_native(path, format, ...): any trace format read by hetsched's readers, returned
//    as the native CSV text (the package turns it into a DataFrame);
//  - methods(kind): the registries' listings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <string>
#include <vector>

#include "hetsched/metrics/summary.h"
#include "hetsched/report/run_record_json.h"
#include "hetsched/report/writers.h"
#include "hetsched/report/run_dirs.h"
#include "hetsched/run/compare_request.h"
#include "hetsched/run/experiment_request.h"
#include "hetsched/run/simulate_request.h"
#include "hetsched/run/value_checks.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/progress.h"
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

// The first exception a run's Python methods raised: kept by simulate(), which raises it again
// after the run (with its traceback). Released with the GIL held.
struct PythonFault {
  std::optional<py::error_already_set> raised;
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

// A failed simulate(): the message and the command line's exit code for it (1 bad input, 2 a bad
// setting or method choice, 3 a bug), raised as hetsched.Error by the package.
struct SimulateError : std::runtime_error {
  SimulateError(const Status& status, bool usage)
      : std::runtime_error(status.message()),
        exit_code(usage ? 2 : status.code() == StatusCode::kInternal ? 3 : 1) {}
  int exit_code;  // the command line's exit code for the same failure (README)
};

// A progress line on stderr when `verbose` and stderr is a terminal (as the command line's).
std::function<void(long long, long long)> Progress(bool verbose, const std::string& label, const std::string& unit) {
  if (!verbose || !StderrIsTerminal()) return nullptr;
  auto line = std::make_shared<ProgressLine>(label, unit);
  return [line](long long done, long long total) { line->Update(done, total); };
}

// A method given as a name (its options in `options`) or as a Python object.
struct MethodArg {
  py::object object;  // None for a named method
  std::map<std::string, std::string> options;
};

Result<Options> OptionsOf(const std::map<std::string, std::string>& items, const char* keyword) {
  std::vector<std::string> pairs;
  for (const auto& [k, v] : items) pairs.push_back(k + "=" + v);
  auto parsed = Options::Parse(pairs);
  if (!parsed.ok()) return parsed.status().WithContext(keyword);
  return parsed;
}

// A DataFrame's trace (its native CSV text, when not empty) as the request's workload.
void ReadTraceFromText(const std::string& trace_text, SimulateRequest* request) {
  if (trace_text.empty()) return;
  request->workload.text = trace_text;
  request->workload.text_origin = "DataFrame";
  if (!request->given().contains("--format")) request->workload.format = "native";
}

// A run's outputs as text: what summary.json, jobs.csv, timeline.csv and run.json hold.
py::dict RunTexts(const RunRecord& run, const Summary& summary) {
  py::dict texts;
  texts["summary"] = SummaryJson(run, summary);
  texts["jobs"] = JobsCsv(run);
  texts["timeline"] = TimelineCsv(run);
  texts["run"] = RunRecordJson(run);
  return texts;
}

// The request from the package's arguments: settings by flag, then each method's options.
SimulateRequest RequestOf(const std::vector<std::pair<std::string, std::string>>& settings, const std::string& trace_text,
                          const MethodArg& policy, const MethodArg& placer, const MethodArg& planner) {
  SimulateRequest request;
  auto usage = [](const Status& st) {
    if (!st.ok()) throw SimulateError(st, true);
  };
  for (const auto& [flag, text] : settings) usage(request.Set(flag, text));
  ReadTraceFromText(trace_text, &request);
  for (auto [arg, target, keyword] : {std::tuple{&policy, &request.methods.policy_options, "policy_opts"},
                                      std::tuple{&placer, &request.methods.placer_options, "placer_opts"},
                                      std::tuple{&planner, &request.methods.planner_options, "planner_opts"}}) {
    auto options = OptionsOf(arg->options, keyword);
    usage(options.status());
    *target = std::move(options).value();
  }
  if (!policy.object.is_none()) request.methods.policy = "python";
  if (!placer.object.is_none()) request.methods.placer = "python";
  return request;
}

// The run's methods: named ones from the registries (as CreateMethods makes them), Python objects
// wrapped as they are.
Methods MethodsOf(const SimulateRequest& request, const MethodArg& policy, const MethodArg& placer,
                  const std::shared_ptr<PythonFault>& fault) {
  Methods given;
  if (!policy.object.is_none()) given.scheduler = std::make_unique<PythonScheduler>(policy.object, fault);
  if (!placer.object.is_none()) given.placer = std::make_unique<PythonPlacer>(placer.object, fault);
  const MethodLabels labels{"policy", "policy_opts", "placer", "placer_opts", "planner", "planner_opts"};
  bool usage = false;
  auto made = CreateMethods(request.methods, request.workload.seed, labels, &usage, std::move(given));
  if (!made.ok()) throw SimulateError(made.status(), usage);
  return std::move(made).value();
}

// simulate(...) -> {"summary", "jobs", "timeline", "run": the output files' text, "printed": what
// `hetsched simulate` prints}.
py::dict SimulateNative(const std::vector<std::pair<std::string, std::string>>& settings, const std::string& trace_text,
                        const MethodArg& policy, const MethodArg& placer, const MethodArg& planner,
                        const std::string& out, bool verbose) {
  SimulateRequest request = RequestOf(settings, trace_text, policy, placer, planner);
  std::string printed;
  if (Status st = request.Prepare(&printed); !st.ok()) throw SimulateError(st, true);
  auto fault = std::make_shared<PythonFault>();
  Methods methods = MethodsOf(request, policy, placer, fault);
  const ModelZoo& zoo = ModelZoo::BuiltIn();
  Result<RunRecord> simulated = Status::Ok();
  std::string summary, jobs, timeline, run_json;
  {
    py::gil_scoped_release release;
    simulated = [&]() -> Result<RunRecord> {
      HETSCHED_ASSIGN_OR_RETURN(SimInputs inputs, LoadSimInputs(request.cluster, request.workload, request.sim, zoo));
      inputs.options.progress = Progress(verbose, request.methods.Label(), "jobs");
      printed = DescribeSimInputs(inputs) + printed + DescribeMethods(request.methods);
      return Simulate(inputs.cluster, zoo, inputs.workload, std::move(methods), inputs.options);
    }();
  }
  if (fault->raised) {
    py::error_already_set raised = std::move(*fault->raised);
    fault->raised.reset();
    throw raised;  // the Python method's own exception, with its traceback
  }
  if (!simulated.ok()) throw SimulateError(simulated.status(), false);
  std::vector<RunRecord> runs;
  runs.push_back(std::move(simulated).value());
  const Summary s = Summarize(runs.front());
  printed += DescribeSimulation(runs, s);
  if (!out.empty()) {
    py::gil_scoped_release release;
    Status written = WriteRunOutputs(out, runs.front(), s);
    if (written.ok()) written = WriteFileAtomic(out + "/run.json", RunRecordJson(runs.front()));
    if (!written.ok()) throw SimulateError(written, false);
  }
  py::dict result = RunTexts(runs.front(), s);
  result["printed"] = printed;
  return result;
}

// compare(...) -> {"table": compare.csv's text, "runs": [(label, {"summary", "jobs", "timeline",
// "run"})], "printed": what `hetsched compare` prints}.
py::dict CompareNative(const std::vector<std::pair<std::string, std::string>>& settings, const std::string& trace_text,
                       const std::string& out, bool verbose) {
  CompareRequest request;
  for (const auto& [flag, text] : settings) {
    if (Status st = request.Set(flag, text); !st.ok()) throw SimulateError(st, true);
  }
  ReadTraceFromText(trace_text, &request.base);
  std::vector<CompareSpec> specs;
  std::vector<MethodChoice> choices;
  std::string compat_report;
  if (Status st = request.Prepare(&specs, &choices, &compat_report); !st.ok()) throw SimulateError(st, true);
  std::vector<std::string> labels;
  std::vector<Methods> methods;
  for (size_t i = 0; i < choices.size(); ++i) {
    labels.push_back(specs[i].label);
    const bool by_runs = !request.runs.empty();
    const std::string policy_flag = by_runs ? "runs" : "policies", placer_flag = by_runs ? "runs" : "placers";
    bool usage = false;
    auto made = CreateMethods(choices[i], request.base.workload.seed,
                              MethodLabels{policy_flag, policy_flag, placer_flag, placer_flag, "planner", "planner"},
                              &usage);
    if (!made.ok()) throw SimulateError(made.status().WithContext(labels[i]), usage);
    methods.push_back(std::move(made).value());
  }
  std::string printed;
  Result<CompareOutcome> outcome = Status::Ok();
  {
    py::gil_scoped_release release;
    outcome = [&]() -> Result<CompareOutcome> {
      const SimulateRequest& b = request.base;
      HETSCHED_ASSIGN_OR_RETURN(SimInputs inputs, LoadSimInputs(b.cluster, b.workload, b.sim, ModelZoo::BuiltIn()));
      printed = DescribeSimInputs(inputs) + compat_report;
      inputs.options.progress = Progress(verbose, std::to_string(choices.size()) + " runs", "jobs");
      HETSCHED_ASSIGN_OR_RETURN(CompareOutcome o, RunCompare(inputs, std::move(methods), labels, request.threads));
      HETSCHED_RETURN_IF_ERROR(AddRealRuns(request.real_runs, &o));
      if (!out.empty()) HETSCHED_RETURN_IF_ERROR(WriteCompareOutputs(out, o));
      return o;
    }();
  }
  if (!outcome.ok()) throw SimulateError(outcome.status(), false);
  const CompareOutcome& o = *outcome;
  printed += "\n" + ComparisonTable(o.runs, o.summaries) + "\n";
  py::list runs;
  for (size_t i = 0; i < o.runs.size(); ++i) runs.append(py::make_tuple(o.labels[i], RunTexts(o.runs[i], o.summaries[i])));
  py::dict result;
  result["table"] = ComparisonCsv(o.runs, o.summaries);
  result["runs"] = runs;
  result["printed"] = printed;
  return result;
}


// experiment(...) -> (headline, printed): runs a reproduction experiment into `out` (its tables
// are files by nature; the package reads them back).
// `seed` and `threads` are text ("" when not given), checked as the command line checks them.
py::tuple ExperimentNative(const std::string& name, const std::string& out, const std::string& seed,
                           const std::string& seeds, bool quick, const std::string& threads,
                           const std::map<std::string, std::string>& opts, bool verbose) {
  ExperimentRequest request;
  request.name = name;
  request.out = out;
  request.seeds = seeds;
  request.quick = quick;
  for (auto [flag, text, check] : {std::tuple{"--seed", &seed, SeedCheck()},
                                   std::tuple{"--threads", &threads, WholeInRangeCheck(1, 1024)}}) {
    if (text->empty()) continue;
    if (std::string bad = check.check(*text); !bad.empty()) {
      throw SimulateError(Status::InvalidArgument(std::string(flag) + ": " + bad), true);
    }
  }
  if (!seed.empty()) request.seed = std::stoull(seed);
  if (!threads.empty()) request.threads = std::stoi(threads);
  auto options = OptionsOf(opts, "opts");
  if (!options.ok()) throw SimulateError(options.status(), true);
  request.options = std::move(options).value();
  std::string printed;
  std::mutex printed_mutex;  // an experiment may print from its worker threads
  request.print = [&](const std::string& s) {
    const std::lock_guard<std::mutex> lock(printed_mutex);
    printed += s;
  };
  request.progress = Progress(verbose, "experiment " + name, "");
  std::string headline;
  bool usage = false;
  Status st;
  {
    py::gil_scoped_release release;
    st = RunExperimentRequest(request, &headline, &usage);
  }
  if (!st.ok()) throw SimulateError(st, usage);
  return py::make_tuple(headline, printed);
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

// The classes a Python policy or placer is handed: Job, SchedContext, PlacementRequest, ClusterView.
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

// The runs (simulate, compare, experiment), their failure, and the listings and readers.
void BindRuns(py::module_& m) {
  // A failed simulate(): args (message, exit code); the package raises hetsched.Error from it.
  static py::handle failed = PyErr_NewException("hetsched._hetsched.Failed", nullptr, nullptr);
  m.attr("Failed") = failed;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SimulateError& e) {
      PyErr_SetObject(failed.ptr(), py::make_tuple(e.what(), e.exit_code).ptr());
    }
  });
  m.def(
      "simulate",
      [](const std::vector<std::pair<std::string, std::string>>& settings, const std::string& trace_text,
         py::object policy, const std::map<std::string, std::string>& policy_opts, py::object placer,
         const std::map<std::string, std::string>& placer_opts, const std::map<std::string, std::string>& planner_opts,
         const std::string& out, bool verbose) {
        return SimulateNative(settings, trace_text, MethodArg{std::move(policy), policy_opts},
                              MethodArg{std::move(placer), placer_opts}, MethodArg{py::none(), planner_opts}, out,
                              verbose);
      },
      py::arg("settings"), py::arg("trace_text"), py::arg("policy"), py::arg("policy_opts"), py::arg("placer"),
      py::arg("placer_opts"), py::arg("planner_opts"), py::arg("out"), py::arg("verbose"));
  m.def("compare", &CompareNative, py::arg("settings"), py::arg("trace_text"), py::arg("out"), py::arg("verbose"));
  m.def("experiment", &ExperimentNative, py::arg("name"), py::arg("out"), py::arg("seed"), py::arg("seeds"),
        py::arg("quick"), py::arg("threads"), py::arg("opts"), py::arg("verbose"));
  m.def("run_dir_name", &RunDirName, py::arg("label"));
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
}

}  // namespace
}  // namespace hetsched::python

PYBIND11_MODULE(_hetsched, m) {
  m.doc() = "hetsched's native part: use the package `hetsched`";
  hetsched::python::BindViews(m);
  hetsched::python::BindRuns(m);
}
