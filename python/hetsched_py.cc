// The Python module's native part, `hetsched._hetsched` (issues 22 and 45). The Python package
// (python/hetsched/__init__.py) builds on these:
//  - simulate(...): one simulation through the library's run entry (run/simulate_request.h): the
//    settings by the command line's flags with the same checks, a trace file or a DataFrame's
//    text, and the methods by name or as Python objects, given to the run directly; the outputs
//    come back as text (summary.json, jobs.csv, timeline.csv, run.json), written to files only
//    for `out`. The GIL is released while the run goes on;
//  - policies and placers written in Python, run as a C++ JobScheduler and Placer (py_methods.h);
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
#include "py_methods.h"

namespace py = pybind11;

namespace hetsched::python {
namespace {

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
  if (!policy.object.is_none()) given.scheduler = PythonSchedulerFor(policy.object, fault);
  if (!placer.object.is_none()) given.placer = PythonPlacerFor(placer.object, fault);
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
