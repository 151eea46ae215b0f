#include "hetsched/planners/step_time_model.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/util/units.h"

namespace hetsched {

namespace {
constexpr double kStepOptimizerFactor = 2.0;  // as perf/ PerfOptions
}  // namespace

Result<StepTimeModel> StepTimeModel::Build(const PlanningProblem& problem) {
  HETSCHED_RETURN_IF_ERROR(ValidateProblem(problem));
  if (problem.objective != PlanObjective::kStepTime) return Status::InvalidArgument("step-time model needs the step-time objective");
  StepTimeModel s;
  const ModelProfile& model = *problem.model;
  const Cluster& cluster = *problem.cluster;
  s.problem_ = &problem;
  s.num_layers_ = static_cast<int>(model.layers.size());
  s.ids_ = problem.devices;
  if (s.ids_.empty()) {
    for (DeviceId d = 0; d < cluster.num_devices(); ++d) s.ids_.push_back(d);
  }
  s.num_devices_ = static_cast<int>(s.ids_.size());
  s.m_ = problem.micro_batches;
  s.global_batch_ = problem.global_batch > 0 ? problem.global_batch : model.default_batch_size * s.num_devices_;
  s.micro_ = s.global_batch_ / s.m_;
  const size_t L = static_cast<size_t>(s.num_layers_), M = static_cast<size_t>(s.num_devices_);
  s.state_prefix_.assign(L + 1, 0.0);
  s.act_prefix_.assign(L + 1, 0.0);
  for (size_t l = 0; l < L; ++l) {
    s.state_prefix_[l + 1] = s.state_prefix_[l] + model.layers[l].param_bytes + model.layers[l].embedding_table_bytes;
    s.act_prefix_[l + 1] = s.act_prefix_[l] + model.layers[l].activation_bytes_per_sample;
  }
  for (size_t g = 0; g < M; ++g) {
    const DeviceType& type = cluster.device_catalog().type(cluster.device(s.ids_[g]).type);
    std::vector<double> prefix(L + 1, 0.0);
    for (size_t l = 0; l < L; ++l) {
      const int li = static_cast<int>(l);
      double t = ComputeTime(model, li, li, s.micro_, type) - type.iteration_overhead_s;
      if (l == 0) t -= model.host_seconds_per_iteration;
      prefix[l + 1] = prefix[l] + std::max(0.0, t);
    }
    s.prefix_.push_back(std::move(prefix));
    s.overhead_s_.push_back(type.iteration_overhead_s);
    s.memory_bytes_.push_back(type.memory_bytes);
  }
  s.bandwidth_.assign(M * M, kInf);
  s.latency_.assign(M * M, 0.0);
  for (size_t a = 0; a < M; ++a) {
    for (size_t b = 0; b < M; ++b) {
      if (a == b) continue;
      const DeviceId pair[2] = {s.ids_[a], s.ids_[b]};
      const PathCapacity path = BottleneckOf(cluster, pair, {});
      s.bandwidth_[a * M + b] = path.bandwidth_Bps;
      s.latency_[a * M + b] = path.latency_s;
    }
  }
  return s;
}

double StepTimeModel::ComputeS(int first, int last, int g) const {
  const auto& p = prefix_[static_cast<size_t>(g)];
  double t = p[static_cast<size_t>(last + 1)] - p[static_cast<size_t>(first)] + overhead_s_[static_cast<size_t>(g)];
  if (first == 0) t += problem_->model->host_seconds_per_iteration;
  return t;
}

double StepTimeModel::TransferS(int last, int g, int next) const {
  if (next < 0) return 0.0;
  const size_t at = static_cast<size_t>(g) * static_cast<size_t>(num_devices_) + static_cast<size_t>(next);
  const double cut = problem_->model->layers[static_cast<size_t>(last)].activation_bytes_per_sample;
  return 2.0 * PointToPointTime(cut * micro_, bandwidth_[at], latency_[at]);
}

double StepTimeModel::Slot(int first, int last, int g, int next) const {
  const size_t f = static_cast<size_t>(first), e = static_cast<size_t>(last + 1);
  const double memory = (state_prefix_[e] - state_prefix_[f]) * (1.0 + kStepOptimizerFactor) +
                        static_cast<double>(global_batch_) * (act_prefix_[e] - act_prefix_[f]);
  if (memory > memory_bytes_[static_cast<size_t>(g)]) return kInf;
  return ComputeS(first, last, g) + TransferS(last, g, next);
}

double StepTimeModel::AssignmentStepTime(std::span<const int> a) const {
  double slot = 0;
  int k = 0, first = 0;
  unsigned used = 0;
  for (int l = 0; l < num_layers_; ++l) {
    const int g = a[static_cast<size_t>(l)];
    if (l + 1 < num_layers_ && a[static_cast<size_t>(l + 1)] == g) continue;
    if (used & (1u << g)) return kInf;  // a device came back: not a pipeline
    used |= 1u << g;
    const int next = l + 1 < num_layers_ ? a[static_cast<size_t>(l + 1)] : -1;
    slot = std::max(slot, Slot(first, l, g, next));
    ++k;
    first = l + 1;
  }
  return (m_ + k - 1) * slot;
}

Result<HeteroPlan> StepTimeModel::EvaluateAssignment(std::span<const int> a, const std::string& planner) const {
  if (static_cast<int>(a.size()) != num_layers_) {
    return Status::InvalidArgument(fmt::format("assignment has {} entries for {} layers", a.size(), num_layers_));
  }
  HeteroPlan plan;
  plan.planner = planner;
  plan.objective = PlanObjective::kStepTime;
  const Cluster& cluster = *problem_->cluster;
  unsigned used = 0;
  int first = 0;
  double slot = 0, slot_transfer = 0;
  for (int l = 0; l < num_layers_; ++l) {
    const int g = a[static_cast<size_t>(l)];
    if (g < 0 || g >= num_devices_) return Status::InvalidArgument(fmt::format("layer {}: device {} out of range", l, g));
    if (l + 1 < num_layers_ && a[static_cast<size_t>(l + 1)] == g) continue;
    if (used & (1u << g)) return Status::InvalidArgument(fmt::format("device {} holds two stages", g));
    used |= 1u << g;
    const int next = l + 1 < num_layers_ ? a[static_cast<size_t>(l + 1)] : -1;
    PlannedStage s;
    s.first_layer = first;
    s.last_layer = l;
    s.type = cluster.device(device(g)).type;
    s.units = 1;
    s.devices = {device(g)};
    s.compute_s = ComputeS(first, l, g);
    s.transfer_s = TransferS(l, g, next);
    const double this_slot = Slot(first, l, g, next);
    if (this_slot == kInf) {
      return Status::Infeasible(fmt::format("layers {}..{} do not fit in the memory of device {} ({})", first, l, device(g),
                                            cluster.device_catalog().type(s.type).name));
    }
    if (this_slot > slot) {
      slot = this_slot;
      slot_transfer = s.transfer_s;
    }
    plan.stages.push_back(std::move(s));
    first = l + 1;
  }
  const double slots = m_ + static_cast<double>(plan.stages.size()) - 1;
  plan.step_time_s = slots * slot;
  plan.communication_s = slots * slot_transfer;
  plan.communication_share = plan.step_time_s > 0 ? plan.communication_s / plan.step_time_s : 0.0;
  plan.throughput = plan.step_time_s > 0 ? global_batch_ / plan.step_time_s : 0.0;
  return plan;
}

Result<HeteroPlan> SolveStepTimeDp(const StepTimeModel& s) {
  const int L = s.num_layers(), M = s.num_devices();
  const size_t sets = size_t{1} << M;
  const auto idx = [&](int i, size_t set, int g) {
    return (static_cast<size_t>(i) * sets + set) * static_cast<size_t>(M) + static_cast<size_t>(g);
  };
  std::vector<double> G(static_cast<size_t>(L) * sets * static_cast<size_t>(M), kInf);
  std::vector<int> end(G.size(), -1), next_dev(G.size(), -1);
  long long evals = 0;
  for (int i = L - 1; i >= 0; --i) {
    for (size_t set = 1; set < sets; ++set) {
      for (int g = 0; g < M; ++g) {
        if (!(set & (size_t{1} << g))) continue;
        const size_t rest = set & ~(size_t{1} << g);
        double best = kInf;
        int best_j = -1, best_h = -1;
        if (rest == 0) {
          ++evals;
          best = s.Slot(i, L - 1, g, -1);
          best_j = L - 1;
        } else {
          for (int j = i; j + 1 < L; ++j) {
            for (int h = 0; h < M; ++h) {
              if (!(rest & (size_t{1} << h))) continue;
              const double tail = G[idx(j + 1, rest, h)];
              if (tail >= best) continue;
              ++evals;
              const double v = std::max(s.Slot(i, j, g, h), tail);
              if (v < best) {
                best = v;
                best_j = j;
                best_h = h;
              }
            }
          }
        }
        G[idx(i, set, g)] = best;
        end[idx(i, set, g)] = best_j;
        next_dev[idx(i, set, g)] = best_h;
      }
    }
  }
  double best = kInf;
  size_t best_set = 0;
  int best_g = -1;
  for (size_t set = 1; set < sets; ++set) {
    for (int g = 0; g < M; ++g) {
      const double v = G[idx(0, set, g)];
      if (v == kInf) continue;
      const double t = (s.micro_batches() + std::popcount(set) - 1) * v;
      if (t < best) {
        best = t;
        best_set = set;
        best_g = g;
      }
    }
  }
  if (best_g < 0) return Status::Infeasible("no pipeline of these devices holds the model (memory)");
  std::vector<int> a(static_cast<size_t>(L), -1);
  int i = 0, g = best_g;
  size_t set = best_set;
  while (i < L) {
    const size_t at = idx(i, set, g);
    const int j = end[at];
    for (int l = i; l <= j; ++l) a[static_cast<size_t>(l)] = g;
    const int h = next_dev[at];
    set &= ~(size_t{1} << g);
    i = j + 1;
    g = h;
  }
  auto plan = s.EvaluateAssignment(a, "dp");
  if (plan.ok()) plan->evaluations = evals;
  return plan;
}

namespace {

struct BruteForce {
  const StepTimeModel& s;
  long long max_plans;
  std::vector<int> a, best;
  double best_t = kInf;
  long long plans = 0;

  // Layer l goes on the stage's device (continue) or starts a new stage on an unused device.
  bool Visit(int l, unsigned used) {
    if (l == s.num_layers()) {
      if (++plans > max_plans) return false;
      const double t = s.AssignmentStepTime(a);
      if (t < best_t) {
        best_t = t;
        best = a;
      }
      return true;
    }
    for (int g = 0; g < s.num_devices(); ++g) {
      const bool same = l > 0 && a[static_cast<size_t>(l - 1)] == g;
      if (!same && (used & (1u << g))) continue;
      a[static_cast<size_t>(l)] = g;
      if (!Visit(l + 1, used | (1u << g))) return false;
    }
    return true;
  }
};

}  // namespace

Result<HeteroPlan> SolveStepTimeBruteForce(const StepTimeModel& s, long long max_plans) {
  BruteForce bf{s, max_plans, std::vector<int>(static_cast<size_t>(s.num_layers()), -1), {}, kInf, 0};
  if (!bf.Visit(0, 0)) {
    return Status::InvalidArgument(fmt::format("brute force: more than {} pipelines to enumerate", max_plans));
  }
  if (bf.best.empty()) return Status::Infeasible("no pipeline of these devices holds the model (memory)");
  auto plan = s.EvaluateAssignment(bf.best, "brute-force");
  if (plan.ok()) plan->evaluations = bf.plans;
  return plan;
}

Result<HeteroPlan> SolveBsp(const PlanningProblem& problem) {
  HETSCHED_RETURN_IF_ERROR(ValidateProblem(problem));
  const Cluster& cluster = *problem.cluster;
  const ModelProfile& model = *problem.model;
  Plan dp;
  dp.devices = problem.devices;
  if (dp.devices.empty()) {
    for (DeviceId d = 0; d < cluster.num_devices(); ++d) dp.devices.push_back(d);
  }
  const int n = static_cast<int>(dp.devices.size());
  const int global = problem.global_batch > 0 ? problem.global_batch : model.default_batch_size * n;
  dp.parallelism = n == 1 ? Parallelism::kSingle : Parallelism::kDataRing;
  dp.batch_per_device = (global + n - 1) / n;  // evenly split (BSP default, ALGORITHMS.md 4.2)
  const IterationEstimate est = EstimateIteration(model, dp, cluster);
  if (!est.fits_in_memory) {
    return Status::Infeasible(fmt::format("data parallel: {} at batch {} per device does not fit in the smallest device",
                                          model.name, dp.batch_per_device));
  }
  HeteroPlan plan;
  plan.planner = "bsp";
  plan.objective = PlanObjective::kStepTime;
  PlannedStage st;
  st.first_layer = 0;
  st.last_layer = static_cast<int>(model.layers.size()) - 1;
  st.type = cluster.device(dp.devices[0]).type;
  st.units = n;
  st.devices = dp.devices;
  st.compute_s = est.compute_s;
  st.sync_s = est.communication_s;
  plan.stages.push_back(std::move(st));
  plan.step_time_s = est.iteration_s;
  plan.communication_s = est.communication_s;
  plan.communication_share = est.iteration_s > 0 ? est.communication_s / est.iteration_s : 0.0;
  plan.throughput = est.samples_per_s;
  plan.evaluations = 1;
  plan.note = "data-parallel BSP: every device holds the model, ring all-reduce of the gradients";
  return plan;
}

}  // namespace hetsched
