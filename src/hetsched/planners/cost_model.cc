#include "hetsched/planners/cost_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "hetsched/perf/iteration_model.h"

namespace hetsched {

namespace {
constexpr double kOptimizerFactor = 2.0;  // Adam state, as perf/ PerfOptions
}  // namespace

Result<StageCostModel> StageCostModel::Build(const PlanningProblem& problem) {
  HETSCHED_RETURN_IF_ERROR(ValidateProblem(problem));
  if (problem.objective != PlanObjective::kCostUnderThroughput) {
    return Status::InvalidArgument("the stage cost model needs the cost objective");
  }
  StageCostModel m;
  const ModelProfile& model = *problem.model;
  m.problem_ = &problem;
  m.num_layers_ = static_cast<int>(model.layers.size());
  m.batch_ = problem.batch_per_unit > 0 ? problem.batch_per_unit : model.default_batch_size;
  if (m.batch_ <= 0) return Status::InvalidArgument("model '" + model.name + "': no batch size");
  m.limit_ = problem.throughput_limit;
  m.net_bandwidth_Bps_ = problem.network->effective_bandwidth_Bps();
  m.net_latency_s_ = problem.network->latency_s;
  const LinkClass* loopback = nullptr;
  for (const LinkClass& l : LinkCatalog::BuiltIn().links()) {
    if (l.name == "loopback") loopback = &l;
  }
  const size_t n = static_cast<size_t>(m.num_layers_);
  m.param_prefix_.assign(n + 1, 0.0);
  m.act_prefix_.assign(n + 1, 0.0);
  m.sparse_prefix_.assign(n + 1, 0.0);
  for (size_t l = 0; l < n; ++l) {
    m.param_prefix_[l + 1] = m.param_prefix_[l] + model.layers[l].param_bytes;
    m.act_prefix_[l + 1] = m.act_prefix_[l] + model.layers[l].activation_bytes_per_sample;
    m.sparse_prefix_[l + 1] = m.sparse_prefix_[l] + model.layers[l].sparse_bytes_per_sample;
  }
  for (const PoolType& pt : problem.pool) {
    TypeData td;
    td.type = &problem.catalog->type(pt.type);
    td.max_units = pt.max_units;
    td.layer_s_prefix.assign(n + 1, 0.0);
    // One layer's roofline = ComputeTime of the one-layer range minus the fixed costs it adds
    // (kappa, and the host time on layer 0); the stage adds them back once.
    for (size_t l = 0; l < n; ++l) {
      const int li = static_cast<int>(l);
      double s = ComputeTime(model, li, li, m.batch_, *td.type) - td.type->iteration_overhead_s;
      if (l == 0) s -= model.host_seconds_per_iteration;
      td.layer_s_prefix[l + 1] = td.layer_s_prefix[l] + std::max(0.0, s);
    }
    // The sparse tables sit on parameter servers co-located with the CPU nodes (HeterPS keeps the
    // sparse parameters on CPU servers [REC-M]): a CPU stage reads rows through host memory.
    if (td.type->is_cpu && loopback != nullptr) {
      td.ps_bandwidth_Bps = loopback->effective_bandwidth_Bps();
      td.ps_latency_s = loopback->latency_s;
    } else {
      td.ps_bandwidth_Bps = m.net_bandwidth_Bps_;
      td.ps_latency_s = m.net_latency_s_;
    }
    m.types_.push_back(std::move(td));
  }
  return m;
}

double StageCostModel::ComputeS(int first, int last, int t) const {
  const TypeData& td = types_[static_cast<size_t>(t)];
  double s = td.layer_s_prefix[static_cast<size_t>(last + 1)] - td.layer_s_prefix[static_cast<size_t>(first)] +
             td.type->iteration_overhead_s;
  if (first == 0) s += problem_->model->host_seconds_per_iteration;
  return s;
}

StageCostModel::StageTimes StageCostModel::Times(int first, int last, int t) const {
  const TypeData& td = types_[static_cast<size_t>(t)];
  const size_t f = static_cast<size_t>(first), e = static_cast<size_t>(last + 1);
  StageTimes st;
  st.compute_s = ComputeS(first, last, t);
  const double b = batch_;
  if (last + 1 < num_layers_) {
    const double cut = problem_->model->layers[static_cast<size_t>(last)].activation_bytes_per_sample;
    st.transfer_s = 2.0 * PointToPointTime(cut * b, net_bandwidth_Bps_, net_latency_s_);
  }
  const double sparse = sparse_prefix_[e] - sparse_prefix_[f];
  st.sparse_s = 2.0 * PointToPointTime(sparse * b, td.ps_bandwidth_Bps, td.ps_latency_s);
  const double dense = param_prefix_[e] - param_prefix_[f];
  // k >= 2 units, one PS shard each: worker and shard sides both move 2 S / B (perf/ T_PS).
  st.dense_sync_s = ParameterServerTime(2, 2, dense, net_bandwidth_Bps_, net_bandwidth_Bps_, net_latency_s_);
  const double memory = dense * (1.0 + kOptimizerFactor) + b * (act_prefix_[e] - act_prefix_[f]);
  st.fits = memory <= td.type->memory_bytes;
  return st;
}

int StageCostModel::UnitsFor(const StageTimes& st) const {
  const double b = batch_;
  // A stage meets the limit up to a relative 1e-9, so that rounding in the sums does not buy a
  // unit (0.03 + 0.02 s is not exactly 0.05 s in binary).
  const double need = limit_ * (1.0 - 1e-9);
  const double one = st.compute_s + st.transfer_s + st.sparse_s;
  if (b / one >= need) return 1;
  const double many = one + st.dense_sync_s;
  // k b / many >= limit  <=>  k >= limit many / b.
  double k = std::max(2.0, std::ceil(need * many / b));
  while (k > 2.0 && (k - 1.0) * b / many >= need) k -= 1.0;
  while (k * b / many < need) k += 1.0;
  return k > 1e9 ? 1000000000 : static_cast<int>(k);
}

double StageCostModel::StageCost(int first, int last, int t) const {
  const StageTimes st = Times(first, last, t);
  if (!st.fits) return kInfeasible;
  const TypeData& td = types_[static_cast<size_t>(t)];
  const int k = UnitsFor(st);
  if (td.max_units > 0 && k > td.max_units) return kInfeasible;
  return k * td.type->price_per_hour;
}

int StageCostModel::StageUnits(int first, int last, int t) const {
  const StageTimes st = Times(first, last, t);
  return st.fits ? UnitsFor(st) : 0;
}

double StageCostModel::StageLoad(int first, int last, int t) const {
  const StageTimes st = Times(first, last, t);
  if (!st.fits) return kInfeasible;
  const double one = limit_ * (st.compute_s + st.transfer_s + st.sparse_s) / batch_;
  return one <= 1.0 ? one : limit_ * (st.compute_s + st.transfer_s + st.sparse_s + st.dense_sync_s) / batch_;
}

PlannedStage StageCostModel::EvaluateStage(int first, int last, int t, bool* feasible, std::string* why) const {
  const StageTimes st = Times(first, last, t);
  const TypeData& td = types_[static_cast<size_t>(t)];
  PlannedStage s;
  s.first_layer = first;
  s.last_layer = last;
  s.type = problem_->pool[static_cast<size_t>(t)].type;
  s.compute_s = st.compute_s;
  s.transfer_s = st.transfer_s + st.sparse_s;
  s.units = UnitsFor(st);
  s.sync_s = s.units > 1 ? st.dense_sync_s : 0.0;
  s.throughput = s.units * batch_ / (st.compute_s + s.transfer_s + s.sync_s);
  s.cost_per_hour = s.units * td.type->price_per_hour;
  *feasible = true;
  const ModelProfile& model = *problem_->model;
  const std::string layers = fmt::format("layers {}..{} ({}..{})", first, last, model.layers[static_cast<size_t>(first)].name,
                                         model.layers[static_cast<size_t>(last)].name);
  if (!st.fits) {
    *feasible = false;
    *why = fmt::format("{} do not fit in the memory of {} at batch {}", layers, td.type->name, batch_);
  } else if (td.max_units > 0 && s.units > td.max_units) {
    *feasible = false;
    *why = fmt::format("{} need {} units of {} to reach {:.6g} samples/s, the pool has {} (max {:.6g} samples/s)",
                       layers, s.units, td.type->name, limit_, td.max_units,
                       td.max_units * batch_ / (st.compute_s + s.transfer_s + (td.max_units > 1 ? st.dense_sync_s : 0.0)));
  }
  return s;
}

double StageCostModel::AssignmentCost(std::span<const int> layer_types) const {
  thread_local std::vector<int> used;
  used.assign(types_.size(), 0);
  double cost = 0;
  int first = 0;
  for (int l = 0; l < num_layers_; ++l) {
    const int t = layer_types[static_cast<size_t>(l)];
    if (l + 1 < num_layers_ && layer_types[static_cast<size_t>(l + 1)] == t) continue;
    const StageTimes st = Times(first, l, t);
    if (!st.fits) return kInfeasible;
    const int k = UnitsFor(st);
    used[static_cast<size_t>(t)] += k;
    const int cap = types_[static_cast<size_t>(t)].max_units;
    if (cap > 0 && used[static_cast<size_t>(t)] > cap) return kInfeasible;
    cost += k * types_[static_cast<size_t>(t)].type->price_per_hour;
    first = l + 1;
  }
  return cost;
}

Result<HeteroPlan> StageCostModel::EvaluateAssignment(std::span<const int> layer_types,
                                                      const std::string& planner) const {
  if (static_cast<int>(layer_types.size()) != num_layers_) {
    return Status::InvalidArgument(fmt::format("assignment has {} entries for {} layers", layer_types.size(), num_layers_));
  }
  HeteroPlan plan;
  plan.planner = planner;
  plan.objective = PlanObjective::kCostUnderThroughput;
  std::vector<int> used(types_.size(), 0);
  int first = 0;
  plan.throughput = std::numeric_limits<double>::infinity();
  for (int l = 0; l < num_layers_; ++l) {
    const int t = layer_types[static_cast<size_t>(l)];
    if (t < 0 || t >= num_types()) return Status::InvalidArgument(fmt::format("layer {}: type index {} out of range", l, t));
    if (l + 1 < num_layers_ && layer_types[static_cast<size_t>(l + 1)] == t) continue;
    bool feasible = true;
    std::string why;
    PlannedStage s = EvaluateStage(first, l, t, &feasible, &why);
    if (!feasible) return Status::Infeasible(why);
    used[static_cast<size_t>(t)] += s.units;
    const int cap = types_[static_cast<size_t>(t)].max_units;
    if (cap > 0 && used[static_cast<size_t>(t)] > cap) {
      return Status::Infeasible(fmt::format("the stages on {} need {} units together, the pool has {}",
                                            types_[static_cast<size_t>(t)].type->name, used[static_cast<size_t>(t)], cap));
    }
    plan.cost_per_hour += s.cost_per_hour;
    plan.throughput = std::min(plan.throughput, s.throughput);
    plan.stages.push_back(std::move(s));
    first = l + 1;
  }
  return plan;
}

}  // namespace hetsched
