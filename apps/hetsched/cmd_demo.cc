// The parts of `hetsched demo` beyond a comparison (demo.h). The comparison itself is
// `hetsched compare --runs` with DemoRuns() on the built-in cluster and trace (cmd_compare.cc).
#include <fmt/core.h>

#include <cmath>

#include "cli_common.h"
#include "demo.h"
#include "hetsched/experiments/experiment.h"
#include "hetsched/model/device.h"
#include "hetsched/model/link.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"

namespace hetsched::cli {
namespace {

constexpr const char* kFifo = "fifo+pack";
constexpr const char* kLas = "tiresias-las+pack";
constexpr const char* kGavelBlind = "gavel-las-agnostic+pack";
constexpr const char* kGavel = "gavel-las:profile=data/real/gavel/throughputs.csv+pack";
// Space sharing (docs/space_sharing.md): Gavel's packed max-min against the same policy unpacked,
// both under Gavel's round mechanism (the one that runs pairs) and on the visible model's speeds
// and co-location factors [REC] (Gavel's measured table has no row for some of the demo trace's jobs
// at their GPU counts).
constexpr const char* kGavelRounds = "gavel-las:mechanism=gavel+pack";
constexpr const char* kGavelPacked = "gavel-las-packed+pack";
constexpr const char* kGadget = "gadget+gadget-ring";
// E2's agent of record (data/models/README.md; its SHA-256 is checked when it is loaded), trained
// by today's `hetsched experiment rlpto --seed 1` on E2's cluster and trace, not on the demo's,
// with the yield action it learned (run with yield=true, as trained). Its type ranking is the
// visible model's (no profile: the measured table has no a100 row).
constexpr const char* kRlpto = "rlpto:model=data/models/rlpto_agent_e2_yield_seed1.bin:yield=true+pack";

struct Finding {
  const char* run;
  const char* against;
  const char* what;  // how `run` is introduced
  const char* why;   // what `against` stands for
  bool tail_and_cost = false;  // also the change of p99 JCT and of the GPU bill
};
constexpr Finding kFindings[] = {
    {kGavel, kGavelBlind, "gavel-las (sees each GPU type's measured speed)", "its heterogeneity-blind twin gavel-las-agnostic"},
    {kGavelPacked, kGavelRounds, "gavel-las-packed (Gavel's space sharing: two jobs on one GPU where together they go faster)",
     "gavel-las in the same rounds", true},
    {kLas, kFifo, "tiresias-las (preemptive 2D-LAS, no job sizes needed)", "fifo with EASY backfilling"},
    {kGadget, kFifo, "gadget (ring all-reduce jobs sized by marginal utility, ring placement)", "fifo"},
    {kRlpto, kFifo, "rlpto (priority queues, convergence shrinking, the shipped PPO allocation agent with its learned yield)", "fifo"},
};

int IndexOf(const std::vector<std::string>& labels, const char* label) {
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == label) return static_cast<int>(i);
  }
  return -1;
}

double HoursOf(double seconds) { return seconds / 3600; }

// "cuts average JCT by 12%": how `now` compares with `before`.
std::string Change(const char* what, double now, double before) {
  const double change = 100 * (now / before - 1);
  return fmt::format("{} {} by {:.0f}%", change <= 0 ? "cuts" : "raises", what, std::abs(change));
}

}  // namespace

std::vector<std::string> DemoRuns() { return {kFifo, kLas, kGavelBlind, kGavel, kGavelRounds, kGavelPacked, kGadget, kRlpto}; }

std::vector<std::string> DemoFindings(const std::vector<std::string>& labels, const std::vector<Summary>& summaries) {
  std::vector<std::string> out;
  for (const Finding& f : kFindings) {
    const int a = IndexOf(labels, f.run), b = IndexOf(labels, f.against);
    if (a < 0 || b < 0 || static_cast<size_t>(std::max(a, b)) >= summaries.size()) continue;
    const Summary& sa = summaries[static_cast<size_t>(a)];
    const Summary& sb = summaries[static_cast<size_t>(b)];
    const double x = sa.jct_s.mean, y = sb.jct_s.mean;
    if (!(y > 0) || !std::isfinite(x)) continue;
    std::string line = fmt::format("{} {} against {} ({:.2f} h vs {:.2f} h)", f.what, Change("average JCT", x, y), f.why,
                                   HoursOf(x), HoursOf(y));
    if (f.tail_and_cost && sb.jct_s.p99 > 0 && sb.cost_usd > 0) {
      line += fmt::format("; p99 JCT {:+.0f}%, GPU bill {:+.0f}%", 100 * (sa.jct_s.p99 / sb.jct_s.p99 - 1),
                          100 * (sa.cost_usd / sb.cost_usd - 1));
    }
    if (sa.jobs_finished != sb.jobs_finished) {
      line += fmt::format(" (finished: {} vs {} of {})", sa.jobs_finished, sb.jobs_finished, sa.jobs_total);
    }
    out.push_back(std::move(line));
  }
  return out;
}

int RunDemoPlanning(unsigned long long seed) {
  // HeterPS's problem (ALGORITHMS.md 2.1): the cheapest set of resource types per layer that
  // sustains a throughput limit; CPU nodes and four GPU generations in the pool.
  const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
  PlanningProblem problem;
  problem.model = ModelZoo::BuiltIn().Find("bert-base");
  problem.seed = seed;
  if (Status st = SetCostPool(kDefaultCostPool, "eth25", &problem); !st.ok()) return ReportError(st);
  problem.throughput_limit = 2000;
  fmt::print("\nplanning: bert-base at >= 2,000 samples/s over cpu-node, k80, t4, p100, v100-16gb, a100-40gb "
             "(HeterPS's cost objective; our cost model)\n");
  struct Entry {
    const char* planner;
    const char* options;
    double cost = 0;
    std::string types;
  };
  // A short HeterPS training (the default is 6,000 episodes): the demo stays within a minute.
  Entry entries[] = {{"greedy-fastest", "", 0, ""}, {"greedy-cheapest", "", 0, ""}, {"heterps", "episodes=1500", 0, ""}, {"dp", "", 0, ""}};
  for (Entry& e : entries) {
    auto options = Options::Parse(std::vector<std::string>{});
    if (*e.options) options = Options::Parse(std::vector<std::string>{e.options});
    if (!options.ok()) return ReportError(options.status());
    options->SetDefault("seed", std::to_string(seed));
    auto plan = SolveWith(e.planner, problem, *options);
    if (!plan.ok()) return ReportError(plan.status().WithContext(e.planner));
    e.cost = plan->cost_per_hour;
    for (const PlannedStage& s : plan->stages) {
      const std::string name = catalog.type(s.type).name;
      e.types += (e.types.empty() ? "" : " + ") + fmt::format("{} x{}", name, s.units);
    }
    fmt::print("  {:<16} {:>8.2f} $/h  {}\n", e.planner, e.cost, e.types);
  }
  const double fastest = entries[0].cost, learned = entries[2].cost, exact = entries[3].cost;
  fmt::print("finding : HeterPS's learned plan costs {:.2f} $/h, {:.0f}% less than every layer on the fastest GPU, "
             "{:.1f}% above the exact optimum (dp)\n",
             learned, 100 * (1 - learned / fastest), 100 * (learned / exact - 1));
  return kExitOk;
}

int RunDemoExperiment(const std::string& name, const std::string& title, const std::string& out_dir,
                      unsigned long long seed, int threads) {
  auto experiment = Registry<Experiment>::Instance().Create(name, Options());
  if (!experiment.ok()) return ReportError(experiment.status());
  ExperimentContext ctx;
  ctx.out_dir = out_dir;
  ctx.seed = seed;
  ctx.quick = true;
  ctx.threads = threads;
  std::string printed;
  ctx.print = [&printed](const std::string& s) { printed += s; };
  fmt::print("\n{} (experiment {} --quick)\n", title, name);
  Status st = MakeDirs(out_dir);
  if (st.ok()) st = (*experiment)->Run(ctx);
  if (!st.ok()) return ReportError(st);
  fmt::print("{}", printed);
  if (!ctx.headline.empty()) fmt::print("finding : {}\n", ctx.headline);
  return kExitOk;
}

}  // namespace hetsched::cli
