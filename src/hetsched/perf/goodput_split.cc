#include "hetsched/perf/goodput_split.h"
#include "hetsched/util/fixed_math.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hetsched {
namespace {

constexpr int kSplitBatches = 24;

double PassS(const SplitSide& side, int bsz) {
  return side.pass_scale * (side.params.alpha_c + side.params.beta_c * bsz);
}

double OwnStepS(const SplitSide& side, int bsz) {
  const GoodputModel model(side.params, GradientStats{}, 1);
  return model.OptimStepTimeS(PassS(side, bsz), model.NetworkTimeS(side.nodes, side.replicas));
}

}  // namespace

double PredictSplitStepS(const SplitKnowledge& k, int b1, int b2) {
  const double pass_s = std::max(PassS(k.first, b1), PassS(k.second, b2));
  return k.step_scale * std::max({OwnStepS(k.first, b1), OwnStepS(k.second, b2), pass_s + k.ring_s});
}

void CorrectByMeasurement(const SplitMeasurement& m, DeviceTypeId second_type, SplitKnowledge* k) {
  if (m.second_type != second_type || m.nodes1 != k->first.nodes || m.replicas1 != k->first.replicas ||
      m.nodes2 != k->second.nodes || m.replicas2 != k->second.replicas || m.bsz1 < 1 || m.bsz2 < 1) {
    return;
  }
  k->first.pass_scale = PassScale(k->first.params, m.bsz1, m.pass1_s);
  k->second.pass_scale = PassScale(k->second.params, m.bsz2, m.pass2_s);
  k->step_scale = 1;
  const double predicted_s = PredictSplitStepS(*k, m.bsz1, m.bsz2);
  if (predicted_s > 0 && m.step_s > 0) k->step_scale = m.step_s / predicted_s;
}

SplitChoice PickSplitBatches(const SplitKnowledge& k, const GradientStats& grad, double init_batch, double max_batch) {
  SplitChoice best;
  const SplitSide& first = k.first;
  const SplitSide& second = k.second;
  const int lo1 = first.min_bsz, hi1 = first.max_bsz, lo2 = second.min_bsz, hi2 = second.max_bsz;
  if (lo1 < 1 || hi1 < lo1 || lo2 < 1 || hi2 < lo2 || !(second.params.beta_c > 0) || !(second.pass_scale > 0)) return best;
  const GoodputModel efficiency(first.params, grad, init_batch);
  for (int i = 0; i < kSplitBatches; ++i) {
    const double at = static_cast<double>(i) / (kSplitBatches - 1);
    const int b1 = static_cast<int>(std::lround(lo1 * FixedPow(static_cast<double>(hi1) / lo1, at)));
    // The second type's largest local batch whose pass is no longer (its pass is linear in it).
    const double room = PassS(first, b1) / second.pass_scale - second.params.alpha_c;
    const double fits = std::floor(room / second.params.beta_c + 1e-9);
    if (!(fits >= lo2)) continue;
    const int b2 = static_cast<int>(std::min<double>(fits, hi2));
    const double batch = static_cast<double>(first.replicas) * b1 + static_cast<double>(second.replicas) * b2;
    if (batch < init_batch || batch > max_batch) continue;
    const double step_s = PredictSplitStepS(k, b1, b2);
    const double goodput = batch / step_s * efficiency.Efficiency(batch);
    if (goodput > best.goodput) best = SplitChoice{b1, b2, step_s, goodput};
  }
  return best;
}

SplitSide SplitSideOn(const GoodputApplication& app, const ThroughputParams& params, const std::vector<int>& placement) {
  SplitSide side;
  side.params = params;
  side.nodes = static_cast<int>(std::count_if(placement.begin(), placement.end(), [](int g) { return g > 0; }));
  side.replicas = std::accumulate(placement.begin(), placement.end(), 0);
  side.min_bsz = app.min_local_bsz();
  side.max_bsz = app.max_local_bsz();
  if (app.local_batch_per_placement()) {
    side.max_bsz = app.MaxLocalBszOn(placement);
    const int measured = app.MaxLocalBszForReplicas(side.replicas);
    if (measured > 0) side.max_bsz = std::min(side.max_bsz, measured);
  }
  return side;
}

std::optional<ThroughputParams> SecondTypeParams(const std::optional<ThroughputParams>& own,
                                                 const ThroughputParams& first, const GoodputApplication& first_app,
                                                 const GoodputApplication& second_app) {
  if (own.has_value()) return own;
  const double from = first_app.single_gpu_throughput(), to = second_app.single_gpu_throughput();
  if (!(from > 0) || !(to > 0)) return std::nullopt;
  return ProjectedParams(first, to / from);
}

ThroughputParams ProjectedParams(const ThroughputParams& from, double to_over_from) {
  ThroughputParams p = from;
  if (to_over_from > 0) {
    p.alpha_c /= to_over_from;
    p.beta_c /= to_over_from;
  }
  return p;
}

double PassScale(const ThroughputParams& params, int bsz, double measured_pass_s) {
  const double model_s = params.alpha_c + params.beta_c * bsz;
  return model_s > 0 && measured_pass_s > 0 ? measured_pass_s / model_s : 1.0;
}

double MeasuredSplitGoodput(const SplitMeasurement& m, const GradientStats& grad, double init_batch) {
  if (!(m.step_s > 0)) return 0;
  const double batch = static_cast<double>(m.replicas1) * m.bsz1 + static_cast<double>(m.replicas2) * m.bsz2;
  const GoodputModel efficiency(ThroughputParams{}, grad, init_batch);
  return batch / m.step_s * efficiency.Efficiency(batch);
}

}  // namespace hetsched
