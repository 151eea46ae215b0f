// `hetsched compare`: several policies (x placers) on one workload and cluster -> one table,
// per-run outputs and plots. `hetsched demo` is compare with the demo's runs (demo.h) on the built-in
// cluster and trace, followed by a plan and a placement experiment.
#include <fmt/core.h>

#include <thread>

#include "cli_common.h"
#include "cli_compat.h"
#include "commands.h"
#include "demo.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/report/html_report.h"
#include "hetsched/report/plot.h"
#include "hetsched/report/run_record_json.h"
#include "hetsched/report/run_dirs.h"
#include "hetsched/report/writers.h"
#include "hetsched/util/file_io.h"

namespace hetsched::cli {

namespace {
struct CompareArgs {
  ClusterArgs cluster;
  WorkloadArgs workload;
  SimArgs sim;
  std::vector<std::string> policies{"fifo", "fifo:backfill=none", "sjf", "srtf", "tiresias-las"};
  std::vector<std::string> placers{"pack"};
  // --runs: explicit POLICY[:OPTS][+PLACER[:OPTS]] pairs instead of policies x placers.
  std::vector<std::string> runs;
  std::string planner = "data-parallel";
  CompatArgs compat;
  double round_s = 0;  // --round: offered to every policy as its option `round`
  std::string out = "hetsched-out/compare";
  int threads = 0;
  bool demo = false;
  std::vector<std::string> real_runs;  // --real-run DIR: a run record written by `hetsched agent`
};

// The (policy, placer) spec pairs to run: --runs as given, else every policy with every placer.
std::vector<std::pair<std::string, std::string>> RunPairs(const CompareArgs& a) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!a.runs.empty()) {
    for (const std::string& r : a.runs) {
      const size_t plus = r.find('+');
      pairs.emplace_back(r.substr(0, plus), plus == std::string::npos ? "pack" : r.substr(plus + 1));
    }
    return pairs;
  }
  for (const std::string& p : a.policies) {
    for (const std::string& pl : a.placers) pairs.emplace_back(p, pl);
  }
  return pairs;
}

int RunCompare(CompareArgs& a, CLI::App& cmd) {
  if (a.demo && a.runs.empty() && cmd.count("--policies") == 0 && cmd.count("--placers") == 0) a.runs = DemoRuns();
  const std::vector<std::pair<std::string, std::string>> pairs = RunPairs(a);
  // Each policy spec parsed once: its name for the compatibility profile, its options per run.
  std::vector<std::pair<std::string, Options>> policies, placers;
  std::vector<std::string> policy_names;
  for (const auto& [p, pl] : pairs) {
    auto policy = ParseMethodSpec(p);
    const char* flag = a.runs.empty() ? "--policies" : "--runs";
    if (!policy.ok()) return ReportUsageError(policy.status().WithContext(flag));
    auto placer = ParseMethodSpec(pl);
    if (!placer.ok()) return ReportUsageError(placer.status().WithContext(a.runs.empty() ? "--placers" : "--runs"));
    policy_names.push_back(policy->first);
    policies.push_back(std::move(policy).value());
    placers.push_back(std::move(placer).value());
  }
  if (Status st = a.compat.ApplyToCommand(cmd, policy_names); !st.ok()) return ReportUsageError(st);
  std::vector<MethodChoice> choices;
  std::vector<std::string> labels;
  for (size_t i = 0; i < pairs.size(); ++i) {
    MethodChoice c;
    c.policy = policies[i].first;
    c.policy_options = policies[i].second;
    c.placer = placers[i].first;
    c.placer_options = placers[i].second;
    c.planner = a.planner;
    // A round-based policy reads it; the others ignore it (like --seed).
    if (a.round_s > 0 && !c.policy_options.Has("round")) c.policy_options.SetDefault("round", fmt::format("{}", a.round_s));
    const std::string label = pairs[i].first + "+" + pairs[i].second;
    a.compat.ApplyToChoice(c, label);
    choices.push_back(std::move(c));
    labels.push_back(label);
  }
  // Fail fast: an unknown method name or option is a command-line error, reported before a long
  // trace is read.
  const char* policy_flag = a.runs.empty() ? "--policies" : "--runs";
  const char* placer_flag = a.runs.empty() ? "--placers" : "--runs";
  const MethodLabels flags{policy_flag, policy_flag, placer_flag, placer_flag, "--planner", "--planner"};
  std::vector<Methods> methods;  // built once: the runs take them
  for (size_t i = 0; i < choices.size(); ++i) {
    bool usage = false;
    auto made = CreateMethods(choices[i], a.workload.seed, flags, &usage);
    if (!made.ok()) return ReportFailure(made.status().WithContext(labels[i]), usage);
    methods.push_back(std::move(made).value());
  }
  const ModelZoo& zoo = ModelZoo::BuiltIn();
  auto inputs = LoadSimInputs(a.cluster, a.workload, zoo);
  if (!inputs.ok()) return ReportError(inputs.status());
  const Cluster& cluster = inputs->cluster;
  if (a.demo) {
    fmt::print("hetsched demo: heterogeneity-aware and seed-system policies beside the baselines on a real trace "
               "subset and a built-in heterogeneous cluster; then one heterogeneous plan and one placement "
               "experiment.\n\n");
  }
  PrintSimInputs(*inputs);
  fmt::print("{}", a.compat.Report());
  fmt::print("methods :\n");
  for (size_t i = 0; i < choices.size(); ++i) {
    fmt::print("  {:<28} {}\n", labels[i], Provenance("policy", choices[i].policy));
  }
  SimOptions options = a.sim.ToOptions(a.workload.seed);
  options.progress = MakeProgress(a.sim.quiet, fmt::format("{} runs", choices.size()));
  MeasuredThroughputs measured;
  if (Status st = a.sim.LoadThroughputs(cluster.device_catalog(), &measured, &options); !st.ok()) return ReportError(st);
  const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto results = RunMany(cluster, zoo, inputs->workload, std::move(methods), options, threads);

  std::vector<RunRecord> runs;
  std::vector<Summary> summaries;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) return ReportError(results[i].status().WithContext(labels[i]));
    runs.push_back(std::move(results[i]).value());
    runs.back().policy = labels[i];
    summaries.push_back(Summarize(runs.back()));
  }
  // Real runs (hetsched agent on Slurm) sit beside the simulations: their own record, read back.
  for (const std::string& dir : a.real_runs) {
    const std::string path = dir + "/run.json";
    auto text = ReadFile(path);
    if (!text.ok()) return ReportError(text.status());
    auto real = ParseRunRecordJson(*text, path);
    if (!real.ok()) return ReportError(real.status());
    labels.push_back("real:" + real->policy + "+" + real->placer);
    real->policy = labels.back();
    summaries.push_back(Summarize(*real));
    runs.push_back(std::move(real).value());
  }
  Status st = MakeDirs(a.out);
  if (!st.ok()) return ReportError(st);
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string dir = a.out + "/" + RunDirName(labels[i]);
    // With the whole record (run.json), so that `hetsched report DIR` can rebuild the report.
    st = WriteRunDir(dir, runs[i], summaries[i]);
    if (!st.ok()) return ReportError(st);
  }
  const std::string table = ComparisonTable(runs, summaries);
  for (const auto& [name, text] :
       std::vector<std::pair<std::string, std::string>>{{"compare.txt", table},
                                                        {"compare.csv", ComparisonCsv(runs, summaries)},
                                                        {"utilisation.svg", UtilisationSvg(runs)},
                                                        {"jct_cdf.svg", JctCdfSvg(runs)},
                                                        {"report.html", ComparisonHtml(runs, summaries)}}) {
    st = WriteFileAtomic(a.out + "/" + name, text);
    if (!st.ok()) return ReportError(st);
  }
  fmt::print("\n{}\n", table);
  if (a.demo) {
    for (const std::string& line : DemoFindings(labels, summaries)) fmt::print("finding : {}\n", line);
  }
  fmt::print("outputs : {0}/compare.txt  {0}/compare.csv  {0}/report.html  {0}/jct_cdf.svg  {0}/utilisation.svg\n"
             "          and per run {0}/<method>/{{summary.json,jobs.csv,timeline.csv,run.json}}\n",
             a.out);
  if (a.demo) {
    if (int rc = RunDemoPlanning(a.workload.seed); rc != kExitOk) return rc;
    if (int rc = RunDemoPlacement(a.out + "/placement", a.workload.seed, threads); rc != kExitOk) return rc;
    fmt::print("\nreport  : open {}/report.html in a browser\n", a.out);
  }
  return kExitOk;
}

void AddCompareLike(CLI::App& app, std::function<int()>* action, bool demo) {
  auto* cmd = demo ? app.add_subcommand("demo", "What hetsched is for, in a minute: heterogeneity-aware and seed policies against "
                                                    "baselines on a real trace subset, a heterogeneous plan, a placement")
                   : app.add_subcommand("compare", "Compare several policies (x placers) on one workload: one table");
  auto a = std::make_shared<CompareArgs>();
  a->demo = demo;
  if (demo) a->out = "hetsched-out/demo";
  a->cluster.Add(*cmd);
  a->workload.Add(*cmd);
  a->sim.Add(*cmd);
  CLI::Option* policies = cmd->add_option("--policies", a->policies, "Policies, each NAME[:KEY=VALUE...]")->delimiter(',');
  CLI::Option* placers = cmd->add_option("--placers", a->placers, "Placers, each NAME[:KEY=VALUE...]")->delimiter(',');
  cmd->add_option("--runs", a->runs,
                  "Exact runs instead of policies x placers, each POLICY[:KEY=VALUE...][+PLACER[:KEY=VALUE...]] "
                  "(placer default pack)")
      ->delimiter(',')
      ->excludes(policies)
      ->excludes(placers);
  cmd->add_option("--planner", a->planner, "Planner for every run");
  cmd->add_option("--round", a->round_s,
                  "Round length in seconds, offered to every policy as its option 'round' (round-based ones read it)")
      ->check(NumberAbove(0));
  a->compat.Add(*cmd);
  cmd->add_option("-o,--out", a->out, "Output directory");
  cmd->add_option("-j,--threads", a->threads, "Runs in parallel (default: one per core)")->check(WholeInRange(1, 1024));
  cmd->add_option("--real-run", a->real_runs,
                  "Output directory of `hetsched agent` (its run.json): a real run shown beside the simulations "
                  "(repeatable)");
  cmd->callback([a, action, cmd] { *action = [a, cmd] { return RunCompare(*a, *cmd); }; });
}
}  // namespace

void AddCompareCommand(CLI::App& app, std::function<int()>* action) {
  AddCompareLike(app, action, /*demo=*/false);
  AddCompareLike(app, action, /*demo=*/true);
}

}  // namespace hetsched::cli
