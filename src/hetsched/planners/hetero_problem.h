// Intra-job planning on heterogeneous resources (ALGORITHMS.md sections 2 and 4): how one model's
// layers are cut into pipeline stages and which resource each stage runs on. Two problems share
// one plan format and one registry of planners:
//  - kCostUnderThroughput (HeterPS, section 2): a pool of resource *types* with hourly prices;
//    each layer gets a type, consecutive layers on one type form a stage, and each stage is
//    provisioned with the fewest units that sustain the throughput limit. Minimise $/hour.
//  - kStepTime (TAPP, section 4): a set of concrete *devices* (a Cluster); the layers are cut into
//    contiguous stages, each on its own device, minimising the GPipe step time.
// Planners register by name (HETSCHED_REGISTER_IMPL(HeteroPlanner, ...)) and say which objective
// they solve; `hetsched plan` and the experiments pick them by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/options.h"
#include "hetsched/util/status.h"

namespace hetsched {

enum class PlanObjective {
  kCostUnderThroughput,  // min $/hour s.t. throughput >= limit (HeterPS)
  kStepTime,             // min seconds per training step (TAPP)
};
std::string_view PlanObjectiveName(PlanObjective objective);  // "cost", "step-time"

// One resource type of a cost-objective pool.
struct PoolType {
  DeviceTypeId type = kNoDeviceType;
  int max_units = 0;  // units of this type the job may hold in all its stages (0 = unlimited)
};

struct PlanningProblem {
  const ModelProfile* model = nullptr;
  PlanObjective objective = PlanObjective::kCostUnderThroughput;

  // --- kCostUnderThroughput (HeterPS) ---
  const DeviceCatalog* catalog = nullptr;
  std::vector<PoolType> pool;        // distinct types; order is the action order of RL planners
  double throughput_limit = 0;       // samples/s the job must sustain (> 0)
  int batch_per_unit = 0;            // samples per unit per iteration; 0 = the model's default
  const LinkClass* network = nullptr;  // link between units of different nodes (stage-to-stage, PS)

  // --- kStepTime (TAPP) ---
  const Cluster* cluster = nullptr;  // the devices' cluster (links between them)
  std::vector<DeviceId> devices;     // the devices to plan on (1 to 8); empty = every device of the cluster
  int global_batch = 0;              // samples per step; 0 = model default x devices
  int micro_batches = 8;             // m (GPipe); the global batch must divide by it

  // Planner knobs shared by every planner (RL planners read them; exact ones ignore them).
  unsigned long long seed = 1;
};

// One pipeline stage of a plan: layers [first_layer, last_layer] on `units` units of `type`
// (cost objective) or on the devices listed (step time).
struct PlannedStage {
  int first_layer = 0;
  int last_layer = 0;
  DeviceTypeId type = kNoDeviceType;
  int units = 1;
  std::vector<DeviceId> devices;  // kStepTime only
  double compute_s = 0;           // per iteration (cost) or per micro-batch slot (step time)
  double transfer_s = 0;          // stage-to-stage activations + gradients
  double sync_s = 0;              // gradient synchronisation among the stage's units
  double throughput = 0;          // samples/s this stage sustains (cost objective)
  double cost_per_hour = 0;       // units x price
};

struct HeteroPlan {
  std::string planner;
  PlanObjective objective = PlanObjective::kCostUnderThroughput;
  std::vector<PlannedStage> stages;
  double cost_per_hour = 0;        // sum over stages ($/hour)
  double throughput = 0;           // samples/s (the slowest stage; cost objective) or batch / step
  double step_time_s = 0;          // kStepTime: seconds per step
  double communication_s = 0;      // kStepTime: communication time on the step's critical path
  double communication_share = 0;  // communication_s / step_time_s
  long long evaluations = 0;       // plans (or DP transitions) the planner evaluated
  int episodes = 0;                // RL planners: episodes trained
  int episodes_to_best = 0;        // RL planners: sequences until the learned plan was first seen
  double learned_objective = 0;    // RL planners: the learned plan's objective before local search
  double trained_objective = 0;    // RL planners: best of the training episodes alone (no inference sampling)
  int samples = 0;                 // RL planners: sequences sampled at inference from the trained policy
  std::string note;                // free text: how the plan was found
};

// Planners of this kind solve a PlanningProblem.
class HeteroPlanner {
 public:
  static constexpr std::string_view kKind = "hetero planner";
  virtual ~HeteroPlanner() = default;
  virtual std::string_view name() const = 0;
  virtual bool Supports(PlanObjective objective) const = 0;
  // Errors: bad problem (no layers, empty pool), or no feasible plan (out of memory on every
  // type, the throughput limit beyond the caps).
  virtual Result<HeteroPlan> Solve(const PlanningProblem& problem) = 0;
};

// Checks the fields the objective needs; a clear message naming the field otherwise.
Status ValidateProblem(const PlanningProblem& problem);

// Creates the planner `name` with `options` (KEY=VALUE, e.g. episodes=2000 for RL planners) and
// solves `problem`, with a clear error when the planner does not handle the problem's objective.
Result<HeteroPlan> SolveWith(std::string_view planner, const PlanningProblem& problem, const Options& options = {});

// The plan as JSON (the `hetsched plan --json` output) and as a text table.
std::string PlanToJson(const HeteroPlan& plan, const PlanningProblem& problem);
std::string PlanToTable(const HeteroPlan& plan, const PlanningProblem& problem);

}  // namespace hetsched
