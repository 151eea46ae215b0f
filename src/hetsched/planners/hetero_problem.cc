#include "hetsched/planners/hetero_problem.h"

#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hetsched/sched/registry.h"

namespace hetsched {

std::string_view PlanObjectiveName(PlanObjective objective) {
  switch (objective) {
    case PlanObjective::kCostUnderThroughput: return "cost";
    case PlanObjective::kStepTime: return "step-time";
  }
  return "?";
}

Status ValidateProblem(const PlanningProblem& p) {
  if (p.model == nullptr) return Status::InvalidArgument("planning problem: no model");
  if (p.model->layers.empty()) return Status::InvalidArgument("model '" + p.model->name + "' has no layers");
  if (p.objective == PlanObjective::kCostUnderThroughput) {
    if (p.catalog == nullptr) return Status::InvalidArgument("planning problem: no device catalog");
    if (p.network == nullptr) return Status::InvalidArgument("planning problem: no network link");
    if (p.pool.empty()) return Status::InvalidArgument("planning problem: the resource pool is empty");
    std::set<DeviceTypeId> seen;
    for (const PoolType& t : p.pool) {
      if (t.type < 0 || t.type >= p.catalog->size()) {
        return Status::InvalidArgument(fmt::format("resource pool: unknown device type id {}", t.type));
      }
      const DeviceType& type = p.catalog->type(t.type);
      if (!seen.insert(t.type).second) return Status::InvalidArgument("resource pool: type '" + type.name + "' listed twice");
      if (t.max_units < 0) return Status::InvalidArgument("resource pool: '" + type.name + "': unit cap must be >= 0");
      if (!(type.price_per_hour > 0)) {
        return Status::InvalidArgument("resource pool: '" + type.name + "' has no hourly price in the catalog");
      }
    }
    if (!(p.throughput_limit > 0) || !std::isfinite(p.throughput_limit)) {
      return Status::InvalidArgument(fmt::format("throughput limit must be > 0 samples/s, got {}", p.throughput_limit));
    }
    if (p.batch_per_unit < 0) return Status::InvalidArgument("batch per unit must be >= 0");
  } else {
    if (p.cluster == nullptr) return Status::InvalidArgument("planning problem: no devices (cluster)");
    const int n = p.devices.empty() ? p.cluster->num_devices() : static_cast<int>(p.devices.size());
    std::set<DeviceId> distinct;
    for (DeviceId d : p.devices) {
      if (d < 0 || d >= p.cluster->num_devices() || !distinct.insert(d).second) {
        return Status::InvalidArgument(fmt::format("step-time planning: device {} unknown or listed twice", d));
      }
    }
    if (n < 1 || n > 8) {
      return Status::InvalidArgument(fmt::format("step-time planning takes 1 to 8 devices, got {}", n));
    }
    if (p.micro_batches < 1) return Status::InvalidArgument("micro-batches must be >= 1");
    if (p.global_batch < 0) return Status::InvalidArgument("global batch must be >= 0");
    const int batch = p.global_batch > 0 ? p.global_batch : p.model->default_batch_size * n;
    if (batch % p.micro_batches != 0) {
      return Status::InvalidArgument(
          fmt::format("global batch {} does not divide into {} micro-batches", batch, p.micro_batches));
    }
  }
  return Status::Ok();
}

Result<HeteroPlan> SolveWith(std::string_view name, const PlanningProblem& problem, const Options& options) {
  HETSCHED_RETURN_IF_ERROR(ValidateProblem(problem));
  auto planner = Registry<HeteroPlanner>::Instance().Create(name, options);
  if (!planner.ok()) return planner.status();
  if (!(*planner)->Supports(problem.objective)) {
    std::string fits;
    for (const MethodInfo& m : Registry<HeteroPlanner>::Instance().List()) {
      auto p = Registry<HeteroPlanner>::Instance().Create(m.name, Options());
      if (p.ok() && (*p)->Supports(problem.objective)) fits += (fits.empty() ? "" : ", ") + m.name;
    }
    return Status::InvalidArgument(fmt::format("planner '{}' does not solve the {} objective (planners that do: {})", name,
                                               PlanObjectiveName(problem.objective), fits));
  }
  return (*planner)->Solve(problem);
}

namespace {

std::string TypeName(const PlannedStage& s, const PlanningProblem& p) {
  const DeviceCatalog* catalog = p.catalog != nullptr ? p.catalog : (p.cluster ? &p.cluster->device_catalog() : nullptr);
  return catalog != nullptr && s.type >= 0 ? catalog->type(s.type).name : "?";
}

}  // namespace

std::string PlanToJson(const HeteroPlan& plan, const PlanningProblem& problem) {
  nlohmann::ordered_json j;
  j["planner"] = plan.planner;
  j["model"] = problem.model->name;
  j["objective"] = std::string(PlanObjectiveName(plan.objective));
  if (plan.objective == PlanObjective::kCostUnderThroughput) {
    j["throughput_limit_samples_per_s"] = problem.throughput_limit;
    j["cost_per_hour_usd"] = plan.cost_per_hour;
  } else {
    j["step_time_s"] = plan.step_time_s;
    j["communication_s"] = plan.communication_s;
    j["communication_share"] = plan.communication_share;
    j["micro_batches"] = problem.micro_batches;
  }
  j["throughput_samples_per_s"] = plan.throughput;
  j["evaluations"] = plan.evaluations;
  if (plan.episodes > 0) {
    j["episodes"] = plan.episodes;
    j["episodes_to_best"] = plan.episodes_to_best;
    j["learned_objective"] = plan.learned_objective;
    j["trained_objective"] = plan.trained_objective;
    j["inference_samples"] = plan.samples;
  }
  if (!plan.note.empty()) j["note"] = plan.note;
  auto& stages = j["stages"] = nlohmann::ordered_json::array();
  for (const PlannedStage& s : plan.stages) {
    nlohmann::ordered_json st;
    st["first_layer"] = s.first_layer;
    st["last_layer"] = s.last_layer;
    st["first_layer_name"] = problem.model->layers[static_cast<size_t>(s.first_layer)].name;
    st["last_layer_name"] = problem.model->layers[static_cast<size_t>(s.last_layer)].name;
    st["type"] = TypeName(s, problem);
    st["units"] = s.units;
    if (!s.devices.empty()) st["devices"] = s.devices;
    st["compute_s"] = s.compute_s;
    st["transfer_s"] = s.transfer_s;
    st["sync_s"] = s.sync_s;
    if (plan.objective == PlanObjective::kCostUnderThroughput) {
      st["throughput_samples_per_s"] = s.throughput;
      st["cost_per_hour_usd"] = s.cost_per_hour;
    }
    stages.push_back(std::move(st));
  }
  return j.dump(2) + "\n";
}

std::string PlanToTable(const HeteroPlan& plan, const PlanningProblem& problem) {
  std::string out = fmt::format("planner {}  model {}  objective {}\n", plan.planner, problem.model->name,
                                PlanObjectiveName(plan.objective));
  const bool cost = plan.objective == PlanObjective::kCostUnderThroughput;
  out += fmt::format("  {:>5} {:>13}  {:<12} {:>5} {:>11} {:>11} {:>11} {:>13} {:>9}\n", "stage", "layers", "type",
                     "units", "compute s", "transfer s", "sync s", cost ? "samples/s" : "", cost ? "$/hour" : "");
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const PlannedStage& s = plan.stages[i];
    out += fmt::format("  {:>5} {:>13}  {:<12} {:>5} {:>11.4g} {:>11.4g} {:>11.4g}", i,
                       fmt::format("{}..{}", s.first_layer, s.last_layer), TypeName(s, problem), s.units, s.compute_s,
                       s.transfer_s, s.sync_s);
    if (cost) out += fmt::format(" {:>13.6g} {:>9.4g}", s.throughput, s.cost_per_hour);
    out += "\n";
  }
  if (cost) {
    out += fmt::format("cost {:.4f} $/hour at the limit {:.6g} samples/s (stages sustain {:.6g}); {} stage(s)\n",
                       plan.cost_per_hour, problem.throughput_limit, plan.throughput, plan.stages.size());
  } else {
    out += fmt::format("step {:.6g} s ({:.6g} samples/s); communication {:.4g} s = {:.1f}% of the step; {} stage(s)\n",
                       plan.step_time_s, plan.throughput, plan.communication_s, 100.0 * plan.communication_share,
                       plan.stages.size());
  }
  if (plan.episodes > 0) {
    out += fmt::format("trained {} episodes; best plan first seen at episode {}\n", plan.episodes, plan.episodes_to_best);
  }
  if (!plan.note.empty()) out += plan.note + "\n";
  return out;
}

}  // namespace hetsched
