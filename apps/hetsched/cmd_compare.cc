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
#include "hetsched/report/writers.h"
#include "hetsched/run/compare_request.h"

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

int RunCompare(CompareArgs& a, CLI::App& cmd) {
  if (a.demo && a.runs.empty() && cmd.count("--policies") == 0 && cmd.count("--placers") == 0) a.runs = DemoRuns();
  const char* policy_flag = a.runs.empty() ? "--policies" : "--runs";
  const char* placer_flag = a.runs.empty() ? "--placers" : "--runs";
  // Each policy spec parsed once for the compatibility profile's names, then again once the profile
  // has set what the user did not (its --placer is compare's --placers).
  auto specs = ParseCompareSpecs(ComparePairs(a.policies, a.placers, a.runs), policy_flag, placer_flag);
  if (!specs.ok()) return ReportUsageError(specs.status());
  if (Status st = a.compat.ApplyToCommand(cmd, PolicyNames(*specs)); !st.ok()) return ReportUsageError(st);
  specs = ParseCompareSpecs(ComparePairs(a.policies, a.placers, a.runs), policy_flag, placer_flag);
  if (!specs.ok()) return ReportUsageError(specs.status());
  const std::vector<MethodChoice> choices = CompareChoices(*specs, a.planner, a.round_s, a.compat.applier());
  std::vector<std::string> labels;
  for (const CompareSpec& s : *specs) labels.push_back(s.label);
  // Fail fast: an unknown method name or option is a command-line error, reported before a long
  // trace is read.
  const MethodLabels flags{policy_flag, policy_flag, placer_flag, placer_flag, "--planner", "--planner"};
  std::vector<Methods> methods;  // built once: the runs take them
  for (size_t i = 0; i < choices.size(); ++i) {
    bool usage = false;
    auto made = CreateMethods(choices[i], a.workload.seed, flags, &usage);
    if (!made.ok()) return ReportFailure(made.status().WithContext(labels[i]), usage);
    methods.push_back(std::move(made).value());
  }
  auto inputs = LoadSimInputs(a.cluster, a.workload, a.sim, ModelZoo::BuiltIn());
  if (!inputs.ok()) return ReportError(inputs.status());
  if (a.demo) {
    fmt::print("hetsched demo: heterogeneity-aware and seed-system policies beside the baselines on a real trace "
               "subset and a built-in heterogeneous cluster; then one heterogeneous plan and one placement "
               "experiment.\n\n");
  }
  fmt::print("{}{}methods :\n", DescribeSimInputs(*inputs), a.compat.Report());
  for (size_t i = 0; i < choices.size(); ++i) {
    fmt::print("  {:<28} {}\n", labels[i], ProvenanceOf<JobScheduler>(choices[i].policy));
  }
  inputs->options.progress = MakeProgress(a.sim.quiet, fmt::format("{} runs", choices.size()));
  const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto outcome = RunCompare(*inputs, std::move(methods), labels, threads);
  if (!outcome.ok()) return ReportError(outcome.status());
  // Real runs (hetsched agent on Slurm) sit beside the simulations: their own record, read back.
  if (Status st = AddRealRuns(a.real_runs, &*outcome); !st.ok()) return ReportError(st);
  if (Status st = WriteCompareOutputs(a.out, *outcome); !st.ok()) return ReportError(st);
  fmt::print("\n{}\n", ComparisonTable(outcome->runs, outcome->summaries));
  if (a.demo) {
    for (const std::string& line : DemoFindings(outcome->labels, outcome->summaries)) fmt::print("finding : {}\n", line);
  }
  fmt::print("outputs : {0}/compare.txt  {0}/compare.csv  {0}/report.html  {0}/jct_cdf.svg  {0}/utilisation.svg\n"
             "          and per run {0}/<method>/{{summary.json,jobs.csv,timeline.csv,run.json}}\n",
             a.out);
  if (a.demo) {
    if (int rc = RunDemoPlanning(a.workload.seed); rc != kExitOk) return rc;
    if (int rc = RunDemoExperiment("dltap", "placement: parameter-server containers on 8 T4 servers", a.out + "/placement",
                                   a.workload.seed, threads);
        rc != kExitOk) {
      return rc;
    }
    if (int rc = RunDemoExperiment("goodput", "goodput-adaptive: Sia, its unaware Pollux and sia-plus on 64 GPUs of three types",
                                   a.out + "/goodput", a.workload.seed, threads);
        rc != kExitOk) {
      return rc;
    }
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
