#include "cli_common.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <optional>
#include <tuple>
#include <fmt/core.h>

#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/progress.h"
#include "hetsched/util/text.h"

namespace hetsched::cli {

namespace {

// The value as given, escaped and bounded (it is echoed in the message).
std::string Given(const std::string& text) { return Quoted(text); }

// A number, finite (CLI11 converts "nan" and "inf" to doubles without complaint).
std::optional<double> FiniteNumber(const std::string& text) {
  const Result<double> v = ParseDouble(Trim(text), "value");  // refuses NaN and infinity
  if (!v.ok()) return std::nullopt;
  return *v;
}

}  // namespace

CLI::Validator WholeAtLeast(long long min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        const Result<long long> n = ParseInt(Trim(text), "value");
        if (n.ok() && *n >= min) return {};
        return "must be a whole number >= " + std::to_string(min) + ", got " + Given(text);
      },
      "INT >= " + std::to_string(min));
}

CLI::Validator DeviceCounts() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto counts = ParseTypeCounts(text, "list");
        if (!counts.ok()) return counts.status().message().substr(std::string_view("list: ").size());
        for (const auto& [type, count] : *counts) {
          if (auto known = DeviceCatalog::BuiltIn().Lookup(type); !known.ok()) return known.status().message();
          if (count < 1) return "entry " + Quoted(type + "=" + std::to_string(count)) + ": the count must be >= 1";
        }
        return {};
      },
      "TYPE=COUNT,...");
}

CLI::Validator NumberAbove(double min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        const std::optional<double> v = FiniteNumber(text);
        if (v && *v > min) return {};
        return fmt::format("must be a finite number > {}, got {}", min, Given(text));
      },
      fmt::format("NUMBER > {}", min));
}

CLI::Validator NumberAtLeast(double min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        const std::optional<double> v = FiniteNumber(text);
        if (v && *v >= min) return {};
        return fmt::format("must be a finite number >= {}, got {}", min, Given(text));
      },
      fmt::format("NUMBER >= {}", min));
}

CLI::Validator WholeInRange(long long min, long long max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const Result<long long> n = ParseInt(Trim(text), "value");
        if (n.ok() && *n >= min && *n <= max) return {};
        return fmt::format("must be a whole number in [{}, {}], got {}", min, max, Given(text));
      },
      fmt::format("INT in [{}, {}]", min, max));
}

CLI::Validator NumberBetween(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        const std::optional<double> v = FiniteNumber(text);
        if (v && *v > low && *v < high) return {};
        return fmt::format("must be a finite number in ({}, {}), got {}", low, high, Given(text));
      },
      fmt::format("NUMBER in ({}, {})", low, high));
}

CLI::Validator SeedValue() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        // CLI11 reads "-1" into an unsigned as 2^64 - 1 and takes 2^64 as 0: digits only, no wrap.
        const std::string_view digits = Trim(text);
        unsigned long long v = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size()) return {};
        return "must be a whole number in [0, 18446744073709551615], got " + Given(text);
      },
      "INT in [0, 18446744073709551615]");
}

void RequireFiniteNumbers(CLI::App& app) {
  const CLI::Validator finite(
      [](std::string& text) -> std::string {
        if (FiniteNumber(text)) return {};
        return "must be a finite number, got " + Given(text);
      },
      "");
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_name().rfind("FLOAT", 0) == 0) opt->check(finite);
  }
  for (CLI::App* sub : app.get_subcommands({})) RequireFiniteNumbers(*sub);
}

Status ParseCommandLine(CLI::App& app, std::vector<std::string> argv) {
  std::vector<char*> cargv;
  for (auto& s : argv) cargv.push_back(s.data());
  try {
    app.parse(static_cast<int>(cargv.size()), cargv.data());
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(e.what());
  }
  return Status::Ok();
}

void ClusterArgs::Add(CLI::App& app) {
  CLI::Option* cluster = app.add_option("--cluster", file, "Cluster spec file (YAML or JSON; see docs/formats.md)")
                             ->check(CLI::ExistingFile);
  CLI::Option* shorthand =
      app.add_option("--gpus", gpus, "Cluster shorthand instead of a file: TYPE=COUNT,... e.g. v100=36,p100=36,k80=36")
          ->excludes(cluster)
          ->check(DeviceCounts());
  app.add_option("--gpus-per-server", gpus_per_server, "Devices per server for --gpus")
      ->check(WholeAtLeast(1))
      ->needs(shorthand);
}

Result<Cluster> ClusterArgs::Load(std::string* description) const {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  if (!file.empty() && !gpus.empty()) {
    return Status::InvalidArgument("--cluster and --gpus both given: choose one");
  }
  if (!file.empty()) {
    *description = file;
    return LoadClusterSpec(file, devices, links);
  }
  if (!gpus.empty()) {
    HETSCHED_ASSIGN_OR_RETURN(const auto counts, ParseTypeCounts(gpus, "--gpus"));
    *description = "--gpus " + gpus + " --gpus-per-server " + std::to_string(gpus_per_server);
    return MakeShorthandCluster(counts, gpus_per_server, devices, links);
  }
  *description = "built-in default cluster (data/default_cluster.yaml)";
  return DefaultCluster(devices, links);
}

void WorkloadArgs::Add(CLI::App& app) {
  app.add_option("--trace", trace, "Trace file (default: the built-in Gavel/Philly demo trace)");
  app.add_option("--format", format, "Trace format (auto: by the file's extension and header): " + [] {
    std::string s;
    for (const auto& f : TraceFormats()) s += (s.empty() ? "" : ", ") + f;
    return s;
  }());
  CLI::Option* trace_opt = app.get_option("--trace");
  CLI::Option* synthetic_opt =
      app.add_option("--synthetic", synthetic, "Generate N synthetic jobs instead of reading a trace")
          ->check(WholeAtLeast(1))
          ->excludes(trace_opt);
  app.add_option("--arrival-rate", arrival_rate_per_hour, "Synthetic: job arrivals per hour (Poisson)")
      ->check(NumberAbove(0))
      ->needs(synthetic_opt);
  app.add_option("--max-jobs", max_jobs, "Read at most N jobs of the trace")->check(WholeAtLeast(1))->excludes(synthetic_opt);
  app.add_option("--on-bad-row", on_bad_row, "What a malformed trace row does: stop (error) or skip (count it)")
      ->check(CLI::IsMember({"stop", "skip"}));
  app.add_option("--reference-device", reference_device,
                 "Device type on which runtime-only traces were measured (to convert runtimes to iterations)");
  app.add_option("--seed", seed, "Seed for every random choice (same seed, same output)")->check(SeedValue());
}

Result<Workload> WorkloadArgs::Load(const DeviceCatalog& devices, const ModelZoo& zoo) const {
  if (synthetic > 0) {
    if (!trace.empty()) return Status::InvalidArgument("--trace and --synthetic both given: choose one");
    SyntheticOptions opts;
    opts.num_jobs = synthetic;
    opts.arrival_rate_per_hour = arrival_rate_per_hour;
    opts.seed = seed;
    opts.reference_device = reference_device;
    return GenerateSynthetic(opts, devices, zoo);
  }
  TraceReadOptions opts;
  opts.on_bad_row = on_bad_row == "skip" ? BadRowPolicy::kSkip : BadRowPolicy::kStop;
  opts.max_jobs = max_jobs;
  opts.reference_device = reference_device;
  if (trace.empty()) {
    const std::string demo = "data/traces/demo_gavel_msr_2869ce.trace";
    auto text = ReadFileOrEmbedded(demo);
    if (!text.ok()) return text.status();
    return ParseTrace(*text, demo, "gavel", opts, devices, zoo);
  }
  return ReadTrace(trace, format, opts, devices, zoo);
}

Result<SimInputs> LoadSimInputs(const ClusterArgs& cluster, const WorkloadArgs& workload, const ModelZoo& zoo) {
  std::string description;
  auto loaded = cluster.Load(&description);
  if (!loaded.ok()) return loaded.status();
  auto jobs = workload.Load(loaded->device_catalog(), zoo);
  if (!jobs.ok()) return jobs.status();
  return SimInputs{std::move(loaded).value(), std::move(description), std::move(jobs).value()};
}

void PrintSimInputs(const SimInputs& inputs) {
  fmt::print("cluster : {} ({})\n", inputs.cluster.Summary(), inputs.cluster_description);
  fmt::print("workload: {} jobs from {}{}\n", inputs.workload.jobs.size(), inputs.workload.source,
             inputs.workload.rows_skipped > 0 ? fmt::format(" ({} bad rows skipped)", inputs.workload.rows_skipped)
                                              : "");
}

void SimArgs::Add(CLI::App& app) {
  app.add_option("--restart-cost", restart_cost_s, "Seconds a preempted job loses when it restarts (checkpoint reload)")
      ->check(NumberAtLeast(0));
  app.add_option("--resize-rendezvous", resize_rendezvous_s,
                 "Seconds an elastic job (trace column 'elastic') loses re-forming its ring when a policy resizes it, "
                 "before the state broadcast (docs/elastic.md)")
      ->check(NumberAtLeast(0));
  app.add_option("--max-time", max_time_s, "Stop the simulation at this simulated time (seconds)")->check(NumberAbove(0));
  app.add_flag("--no-contention", no_contention, "Do not share NIC bandwidth between cross-node jobs");
  app.add_flag("--assume-consolidated", assume_consolidated,
               "Measured jobs run at their consolidated measured speed wherever their devices are (as Gavel's simulator)");
  app.add_flag("--skip-unfit", skip_unfit, "Skip (and count) jobs that can never fit the cluster instead of failing");
  app.add_flag("-q,--quiet", quiet, "No progress bar");
  app.add_option("--throughputs", throughputs,
                 "Measured throughputs (Gavel CSV) used as the simulator's truth for the trace jobs they cover: "
                 "a path, 'auto' (Gavel's measured table, data/real/gavel/throughputs.csv, built in) or 'none'");
}

SimOptions SimArgs::ToOptions(unsigned long long seed) const {
  SimOptions o;
  o.seed = seed;
  o.restart_cost_s = restart_cost_s;
  o.resize_rendezvous_s = resize_rendezvous_s;
  o.max_time_s = max_time_s;
  o.contention = !no_contention;
  o.measured_always_consolidated = assume_consolidated;
  o.skip_unfit_jobs = skip_unfit;
  return o;
}

Status SimArgs::LoadThroughputs(const DeviceCatalog& devices, MeasuredThroughputs* table, SimOptions* options) const {
  std::string path = throughputs;
  if (path == "none") return Status::Ok();
  if (path == "auto") path = "data/real/gavel/throughputs.csv";  // built into the binary
  auto loaded = MeasuredThroughputs::Load(path, devices);
  if (!loaded.ok()) return loaded.status().WithContext("--throughputs");
  *table = std::move(loaded).value();
  options->measured_throughputs = table;
  return Status::Ok();
}

namespace {
std::string* g_error_sink = nullptr;
}  // namespace

void SetErrorSink(std::string* sink) { g_error_sink = sink; }

void PrintErrorLine(const std::string& message) {
  if (g_error_sink != nullptr) {
    *g_error_sink += (g_error_sink->empty() ? "" : "\n") + message;
    return;
  }
  fmt::print(stderr, "hetsched: error: {}\n", message);
}

void PrintErrorText(const std::string& text) {
  if (g_error_sink != nullptr) {
    *g_error_sink += (g_error_sink->empty() ? "" : "\n") + text;
    return;
  }
  std::fputs((text + "\n").c_str(), stderr);
}

int ReportUsageError(const Status& status) {
  PrintErrorLine(status.message());
  return kExitUsage;
}

int ReportFailure(const Status& status, bool usage) { return usage ? ReportUsageError(status) : ReportError(status); }

int ReportError(const Status& status) {
  PrintErrorLine(status.message());
  return status.code() == StatusCode::kInternal ? kExitInternal : kExitError;
}

std::function<void(long long, long long)> MakeProgress(bool quiet, const std::string& label, const std::string& unit) {
  if (quiet || !StderrIsTerminal()) return nullptr;
  auto line = std::make_shared<ProgressLine>(label, unit);
  return [line](long long done, long long total) { line->Update(done, total); };
}

std::string Provenance(const std::string& kind, const std::string& name) {
  auto find = [&](auto list) -> std::string {
    for (const MethodInfo& m : list) {
      if (m.name == name) return m.provenance;
    }
    return "";
  };
  if (kind == "policy") return find(Registry<JobScheduler>::Instance().List());
  if (kind == "placer") return find(Registry<Placer>::Instance().List());
  return find(Registry<Planner>::Instance().List());
}

void MethodArgs::Add(CLI::App& app) {
  app.add_option("--policy", policy, "Job scheduler (see `hetsched catalog policies`)");
  app.add_option("--policy-opt", policy_opts, "Policy option KEY=VALUE (repeatable)");
  app.add_option("--placer", placer, "Placer (see `hetsched catalog placers`)");
  app.add_option("--placer-opt", placer_opts, "Placer option KEY=VALUE (repeatable)");
  app.add_option("--planner", planner, "Planner (see `hetsched catalog planners`)");
  app.add_option("--planner-opt", planner_opts, "Planner option KEY=VALUE (repeatable)");
}

Result<MethodChoice> MethodArgs::ToChoice() const {
  MethodChoice choice;
  choice.policy = policy;
  choice.placer = placer;
  choice.planner = planner;
  for (auto [items, target, flag] : {std::tuple{&policy_opts, &choice.policy_options, "--policy-opt"},
                                     std::tuple{&placer_opts, &choice.placer_options, "--placer-opt"},
                                     std::tuple{&planner_opts, &choice.planner_options, "--planner-opt"}}) {
    auto parsed = Options::Parse(*items);
    if (!parsed.ok()) return parsed.status().WithContext(flag);
    *target = std::move(parsed).value();
  }
  return choice;
}

std::string DescribeMethods(const MethodChoice& choice) {
  return fmt::format("policy  : {}  {}\nplacer  : {}  {}\nplanner : {}  {}\n", choice.policy,
                     Provenance("policy", choice.policy), choice.placer, Provenance("placer", choice.placer),
                     choice.planner, Provenance("planner", choice.planner));
}

Result<std::vector<std::pair<std::string, int>>> ParsePool(const std::string& text) {
  return ParseTypeCounts(text, "--pool", /*count_optional=*/true);
}

Status SetCostPool(const std::string& pool_text, const std::string& network, PlanningProblem* problem) {
  const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  problem->objective = PlanObjective::kCostUnderThroughput;
  problem->catalog = &catalog;
  auto net = links.Lookup(network);
  if (!net.ok()) return net.status().WithContext("--network");
  problem->network = &links.link(*net);
  HETSCHED_ASSIGN_OR_RETURN(const auto pool, ParsePool(pool_text));
  problem->pool.clear();
  for (const auto& [name, cap] : pool) {
    auto type = catalog.Lookup(name);
    if (!type.ok()) return type.status().WithContext("--pool");
    problem->pool.push_back({*type, cap});
  }
  return Status::Ok();
}

}  // namespace hetsched::cli
