// `hetsched simulate`: one policy + placer + planner on one workload and cluster.
#include <fmt/core.h>

#include "cli_common.h"
#include "cli_compat.h"
#include "commands.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/report/run_record_json.h"
#include "hetsched/report/writers.h"
#include "hetsched/util/file_io.h"

namespace hetsched::cli {

namespace {
struct SimulateArgs {
  ClusterArgs cluster;
  WorkloadArgs workload;
  SimArgs sim;
  MethodArgs methods;
  CompatArgs compat;
  std::string out = "hetsched-out/simulate";
  double round_s = 0;  // --round: passed to the policy as its option `round`
};

// The run's methods from the command line (--compat applied, --round folded in), created before
// any input is read, so that a bad name or option is refused at once, and then run: `*usage` says
// a bad command line.
Status ChooseMethods(SimulateArgs& a, CLI::App& cmd, MethodChoice* choice, Methods* methods, bool* usage) {
  *usage = true;
  HETSCHED_RETURN_IF_ERROR(a.compat.ApplyToCommand(cmd, {a.methods.policy}));
  HETSCHED_ASSIGN_OR_RETURN(*choice, a.methods.ToChoice());
  a.compat.ApplyToChoice(*choice, choice->policy);
  HETSCHED_RETURN_IF_ERROR(FoldRoundIntoPolicy(a.round_s, choice));
  HETSCHED_ASSIGN_OR_RETURN(*methods, CreateMethods(*choice, a.workload.seed, kMethodFlags, usage));
  return Status::Ok();
}

int RunSimulate(SimulateArgs& a, CLI::App& cmd) {
  MethodChoice choice;
  Methods methods;  // built once, before any input is read: a bad name or option is refused at once
  bool usage = false;
  if (Status st = ChooseMethods(a, cmd, &choice, &methods, &usage); !st.ok()) return ReportFailure(st, usage);
  const ModelZoo& zoo = ModelZoo::BuiltIn();
  auto inputs = LoadSimInputs(a.cluster, a.workload, a.sim, zoo);
  if (!inputs.ok()) return ReportError(inputs.status());
  inputs->options.progress = MakeProgress(a.sim.quiet, choice.Label());
  fmt::print("{}{}{}", DescribeSimInputs(*inputs), a.compat.Report(), DescribeMethods(choice));
  auto simulated = Simulate(inputs->cluster, zoo, inputs->workload, std::move(methods), inputs->options);
  if (!simulated.ok()) return ReportError(simulated.status());
  std::vector<RunRecord> runs;  // the table takes a list of runs: this one, moved (not copied)
  runs.push_back(std::move(simulated).value());
  const RunRecord* run = &runs.front();
  const Summary summary = Summarize(*run);
  fmt::print("{}", DescribeSimulation(runs, summary));
  Status written = WriteRunOutputs(a.out, *run, summary);
  if (!written.ok()) return ReportError(written);
  // The whole record too, for `hetsched sweep` and `compare --real-run` (report/run_record_json.h).
  written = WriteFileAtomic(a.out + "/run.json", RunRecordJson(*run));
  if (!written.ok()) return ReportError(written);
  fmt::print("\noutputs : {0}/summary.json  {0}/jobs.csv  {0}/timeline.csv\n", a.out);
  fmt::print("simulated {} events in {:.2f} s\n", run->events, run->wall_seconds);
  return kExitOk;
}

std::shared_ptr<SimulateArgs> AddSimulateOptions(CLI::App& app, CLI::App** command) {
  auto* cmd = app.add_subcommand("simulate", "Simulate one policy on a workload and a cluster");
  auto a = std::make_shared<SimulateArgs>();
  a->cluster.Add(*cmd);
  a->workload.Add(*cmd);
  a->sim.Add(*cmd);
  a->methods.Add(*cmd);
  a->compat.Add(*cmd);
  cmd->add_option("--round", a->round_s,
                  "Round length in seconds for round-based policies (gavel-*, tiresias-las): the policy option 'round'")
      ->check(NumberAbove(0));
  cmd->add_option("-o,--out", a->out, "Output directory (summary.json, jobs.csv, timeline.csv)");
  *command = cmd;
  return a;
}

}  // namespace

void AddSimulateCommand(CLI::App& app, std::function<int()>* action) {
  CLI::App* cmd = nullptr;
  auto a = AddSimulateOptions(app, &cmd);
  cmd->callback([a, action, cmd] { *action = [a, cmd] { return RunSimulate(*a, *cmd); }; });
}

Status CheckSimulateOptions(const std::vector<std::string>& args) {
  CLI::App app{"hetsched simulate (checked)"};
  CLI::App* cmd = nullptr;
  auto a = AddSimulateOptions(app, &cmd);
  RequireFiniteNumbers(app);
  std::vector<std::string> argv = {"hetsched", "simulate"};
  argv.insert(argv.end(), args.begin(), args.end());
  HETSCHED_RETURN_IF_ERROR(ParseCommandLine(app, std::move(argv)));
  MethodChoice choice;
  Methods methods;
  bool usage = false;
  return ChooseMethods(*a, *cmd, &choice, &methods, &usage);
}

}  // namespace hetsched::cli
