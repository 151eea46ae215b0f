// `hetsched plan`: lays one model out on heterogeneous resources with a named planner
// (planners/hetero_problem.h): the cheapest plan that sustains a throughput limit over a pool of
// resource types (HeterPS), or the fastest pipeline over a set of devices (TAPP). Prints the
// plan as a table, or as JSON (--json to stdout, -o FILE written atomically).
#include <fmt/core.h>

#include <memory>

#include "cli_common.h"
#include "commands.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched::cli {

namespace {

struct PlanArgs {
  std::string model;
  std::string pool;
  std::string cluster;
  std::string objective = "cost";
  std::string planner = "dp";
  std::string network = "eth25";
  double throughput = 0;
  int batch = 0;
  int devices_per_node = 8;
  int global_batch = 0;
  int micro_batches = 8;
  unsigned long long seed = 1;
  bool json = false;
  std::string out;
  std::vector<std::string> opts;
};

// The objective's half of the problem: a cost pool and throughput floor, or a cluster (a spec file
// or a --pool shorthand) for the step time. The exit code (kExitOk when set).
int SetObjective(const PlanArgs& a, PlanningProblem* problem, Cluster* cluster) {
  const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  if (a.objective == "cost") {
    if (Status st = SetCostPool(a.pool.empty() ? kDefaultCostPool : a.pool, a.network, problem); !st.ok()) {
      return ReportUsageError(st);  // --pool and --network are command-line values
    }
    if (!(a.throughput > 0)) return ReportUsageError(Status::InvalidArgument("--throughput (samples/s) must be > 0 for the cost objective"));
    problem->throughput_limit = a.throughput;
    problem->batch_per_unit = a.batch;
  } else {
    problem->objective = PlanObjective::kStepTime;
    if (!a.cluster.empty()) {
      auto c = LoadClusterSpec(a.cluster, catalog, links);
      if (!c.ok()) return ReportError(c.status());
      *cluster = std::move(c).value();
    } else {
      auto pool = ParsePool(a.pool.empty() ? "v100=2,t4=2" : a.pool);
      if (!pool.ok()) return ReportUsageError(pool.status());
      for (auto& entry : *pool) entry.second = std::max(entry.second, 1);
      auto c = MakeShorthandCluster(*pool, a.devices_per_node, catalog, links);
      if (!c.ok()) return ReportUsageError(c.status().WithContext("--pool"));
      *cluster = std::move(c).value();
    }
    problem->cluster = cluster;
    problem->global_batch = a.global_batch;
    problem->micro_batches = a.micro_batches;
  }
  return kExitOk;
}

int RunPlan(const PlanArgs& a) {
  auto options = Options::Parse(a.opts);
  if (!options.ok()) return ReportUsageError(options.status().WithContext("--planner-opt"));
  options->SetDefault("seed", std::to_string(a.seed));
  // A planner name or option it does not take is refused before the model file is read.
  bool usage = false;
  if (auto planner = CreateNamed<HeteroPlanner>(a.planner, *options, "--planner", "--planner-opt", &usage);
      !planner.ok()) {
    return ReportFailure(planner.status(), usage);
  }
  ModelProfile loaded;
  const ModelProfile* model = ModelZoo::BuiltIn().Find(a.model);
  if (model == nullptr) {
    if (a.model.find('/') == std::string::npos && a.model.find(".json") == std::string::npos) {
      return ReportUsageError(ModelZoo::BuiltIn().Lookup(a.model).status());  // a name on the command line
    }
    auto file = LoadModelProfile(a.model);
    if (!file.ok()) return ReportError(file.status());
    loaded = std::move(file).value();
    model = &loaded;
  }

  PlanningProblem problem;
  problem.model = model;
  problem.seed = a.seed;
  Cluster cluster;
  if (int rc = SetObjective(a, &problem, &cluster); rc != kExitOk) return rc;
  auto plan = SolveWith(a.planner, problem, *options);
  if (!plan.ok()) return ReportError(plan.status());
  const std::string json = PlanToJson(*plan, problem);
  if (!a.out.empty()) {
    Status st = WriteFileAtomic(a.out, json);
    if (!st.ok()) return ReportError(st);
  }
  if (a.json) {
    fmt::print("{}", json);
  } else {
    fmt::print("{}", PlanToTable(*plan, problem));
    for (const MethodInfo& m : Registry<HeteroPlanner>::Instance().List()) {
      if (m.name == a.planner) fmt::print("provenance: {}\n", m.provenance);
    }
  }
  return kExitOk;
}

}  // namespace

void AddPlanCommand(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("plan", "Plan one model on heterogeneous resources (HeterPS cost, TAPP step time)");
  auto a = std::make_shared<PlanArgs>();
  cmd->add_option("-m,--model", a->model, "Zoo model name, or a layer-profile JSON file")->required();
  cmd->add_option("--objective", a->objective, "cost (min $/hour under --throughput) or step-time")
      ->check(OneOf({"cost", "step-time"}));
  cmd->add_option("--planner", a->planner, "Planner name (`hetsched catalog planners`; default dp)");
  cmd->add_option("--pool", a->pool,
                  "cost: resource types TYPE[=MAX_UNITS],... (default cpu-node,k80,t4,p100,v100-16gb,a100-40gb); "
                  "step-time: devices TYPE=COUNT,... (default v100=2,t4=2)");
  cmd->add_option("--cluster", a->cluster, "step-time: a cluster spec file whose devices form the pool");
  cmd->add_option("--throughput", a->throughput, "cost: samples/s the job must sustain")->check(NumberAbove(0));
  cmd->add_option("--batch", a->batch, "cost: samples per unit per iteration (default: the model's)")
      ->check(WholeAtLeast(1));
  cmd->add_option("--network", a->network, "cost: link between nodes (default eth25)");
  cmd->add_option("--devices-per-node", a->devices_per_node, "step-time: devices per node of the --pool shorthand")
      ->check(WholeAtLeast(1));
  cmd->add_option("--global-batch", a->global_batch, "step-time: samples per step (default model batch x devices)")
      ->check(WholeAtLeast(1));
  cmd->add_option("--micro-batches", a->micro_batches, "step-time: micro-batches per step (default 8)")
      ->check(WholeAtLeast(1));
  cmd->add_option("--seed", a->seed, "Seed of learned planners")->check(SeedValue());
  cmd->add_option("--planner-opt", a->opts, "Planner option KEY=VALUE (repeatable), e.g. episodes=2000");
  cmd->add_flag("--json", a->json, "Print the plan as JSON instead of a table");
  cmd->add_option("-o,--out", a->out, "Also write the plan as JSON to this file (atomically)");
  cmd->callback([a, action] { *action = [a] { return RunPlan(*a); }; });
}

}  // namespace hetsched::cli
