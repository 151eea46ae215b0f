// `hetsched experiment NAME`: runs a registered reproduction experiment (see
// `hetsched catalog experiments` and docs/experiments/).
#include <fmt/core.h>

#include <thread>

#include "cli_common.h"
#include "commands.h"
#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/seeds.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"

namespace hetsched::cli {

namespace {
struct ExperimentArgs {
  std::string name;
  std::string out;
  unsigned long long seed = 1;
  std::string seeds;  // --seeds LIST: one run per seed and a summary (experiments/seeds.h)
  bool quick = false;
  bool quiet = false;
  int threads = 0;
  std::vector<std::string> opts;
};

int RunExperiment(const ExperimentArgs& a) {
  auto options = Options::Parse(a.opts);
  if (!options.ok()) return ReportError(options.status());
  auto experiment = Registry<Experiment>::Instance().Create(a.name, Options());
  if (!experiment.ok()) return ReportError(experiment.status());
  std::vector<unsigned long long> seeds;
  if (!a.seeds.empty()) {
    auto parsed = ParseSeedList(a.seeds);
    if (!parsed.ok()) return ReportUsageError(parsed.status().WithContext("--seeds"));
    seeds = std::move(parsed).value();
  }
  ExperimentContext ctx;
  ctx.out_dir = a.out.empty() ? "hetsched-out/experiment-" + a.name : a.out;
  ctx.seed = a.seed;
  ctx.quick = a.quick;
  ctx.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ctx.options = std::move(options).value();
  ctx.progress = MakeProgress(a.quiet, "experiment " + a.name, "");
  ctx.print = [](const std::string& s) {
    fmt::print("{}", s);
    std::fflush(stdout);
  };
  {
    // First only read the options: an unknown key or a bad value is a usage error before any
    // output is written (every experiment reads all of its options before it runs anything).
    ExperimentContext check = ctx;
    check.check_only = true;
    check.print = [](const std::string&) {};
    check.progress = nullptr;
    if (Status st = (*experiment)->Run(check); !st.ok()) return ReportUsageError(st.WithContext("--opt"));
    if (auto unused = check.options.Unused(); !unused.empty()) {
      std::string keys;
      for (const std::string& k : unused) keys += (keys.empty() ? "" : ", ") + k;
      return ReportUsageError(Status::InvalidArgument("--opt: experiment '" + a.name + "' does not take option(s): " + keys));
    }
  }
  Status st = MakeDirs(ctx.out_dir);
  if (st.ok()) st = seeds.empty() ? (*experiment)->Run(ctx) : RunExperimentOverSeeds(**experiment, ctx, seeds);
  if (!st.ok()) return ReportError(st);
  if (!ctx.headline.empty()) {
    std::string headline = ctx.headline;
    for (size_t at = headline.find('\n'); at != std::string::npos; at = headline.find('\n', at + 1)) {
      headline.insert(at + 1, "          ");  // under "result  : "
    }
    fmt::print("result  : {}\n", headline);
  }
  fmt::print("outputs : {}/\n", ctx.out_dir);
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
