// `hetsched experiment NAME`: runs a registered reproduction experiment (see
// `hetsched catalog experiments` and docs/experiments/).
#include <fmt/core.h>

#include "cli_common.h"
#include "commands.h"
#include "hetsched/run/experiment_request.h"

namespace hetsched::cli {

namespace {
// The command's options fill in the library's request (run/experiment_request.h).
struct ExperimentArgs : ExperimentRequest {
  bool quiet = false;
  std::vector<std::string> opts;  // --opt KEY=VALUE, parsed into `options`
};

int RunExperiment(ExperimentArgs& a) {
  auto options = Options::Parse(a.opts);
  if (!options.ok()) return ReportError(options.status());
  ExperimentRequest& request = a;
  request.options = std::move(options).value();
  request.progress = MakeProgress(a.quiet, "experiment " + a.name, "");
  request.print = [](const std::string& s) {
    fmt::print("{}", s);
    std::fflush(stdout);
  };
  std::string headline;
  bool usage = false;
  if (Status st = RunExperimentRequest(request, &headline, &usage); !st.ok()) return ReportFailure(st, usage);
  if (!headline.empty()) {
    for (size_t at = headline.find('\n'); at != std::string::npos; at = headline.find('\n', at + 1)) {
      headline.insert(at + 1, "          ");  // under "result  : "
    }
    fmt::print("result  : {}\n", headline);
  }
  fmt::print("outputs : {}/\n", request.OutDir());
  return kExitOk;
}
}  // namespace

void AddExperimentCommand(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("experiment", "Run a reproduction experiment (see `hetsched catalog experiments`)");
  auto a = std::make_shared<ExperimentArgs>();
  cmd->add_option("name", a->name, "Experiment name")->required();
  cmd->add_option("-o,--out", a->out, "Output directory (default hetsched-out/experiment-NAME)");
  auto* seed = cmd->add_option("--seed", a->seed, "Seed")->check(SeedValue());
  cmd->add_option("--seeds", a->seeds,
                  "Run once per seed (e.g. 1-3 or 1,2,5) into OUT/seed-N/ and summarise the runs' table: "
                  "mean and spread per row (OUT/NAME_seeds.csv, .txt)")
      ->excludes(seed);
  cmd->add_flag("--quick", a->quick, "A smaller configuration (minutes -> seconds)");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress line (there is none either when stderr is not a terminal)");
  cmd->add_option("-j,--threads", a->threads, "Independent runs in parallel (default: one per core)")
      ->check(WholeInRange(1, 1024));
  cmd->add_option("--opt", a->opts, "Experiment option KEY=VALUE (repeatable)");
  cmd->callback([a, action] { *action = [a] { return RunExperiment(*a); }; });
}

}  // namespace hetsched::cli
