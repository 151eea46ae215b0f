// TAPP (Mao et al., Appl. Sci. 2021; ALGORITHMS.md 4.3): a policy-gradient agent assigns the
// model's layers to pipeline stages on heterogeneous devices, minimising the step time
// (step_time_model.h: GPipe, compute + stage-to-stage communication). The paper's agent is a
// feed-forward grouper plus an attention placer [SRC2]; ours is the same autoregressive LSTM
// policy as heterps [REC]: at each layer it keeps the current device (the stage grows) or moves
// to a device not used yet (a new stage), a mask enforcing that. Reward -T/T_bsp, with T_bsp the
// data-parallel BSP step time on the same devices (the paper's comparator); out-of-memory
// pipelines get -10 - (their share of layers that do not fit alone). Trained as heterps is
// (rl_common.h: risk-seeking gradient and priority-queue imitation, batches of 64) [REC]. The
// best plan sampled or decoded greedily is then (option polish, default on) improved by the
// local search of cost_search.h (ours); learned_objective keeps the RL plan's own step time.
#include <algorithm>
#include <cmath>
#include <span>
#include <memory>

#include <fmt/format.h>

#include "hetsched/learn/lstm_policy.h"
#include "hetsched/learn/reinforce.h"
#include "hetsched/planners/cost_search.h"
#include "hetsched/planners/rl_common.h"
#include "hetsched/planners/step_time_model.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

constexpr double kTappInfeasiblePenalty = 10.0;
constexpr int kDynamicFeatures = 3;

// The partial pipeline's features for each device g at layer l [REC, ours]: with the prefix's
// closed stages setting the slot S (max of t_i + c_i), k stages in all, and the open stage
// [s, l-1] on device c:
//   0: g == c;
//   1: the compute time of the stage layer l would end on g, relative to the balanced slot B
//      (the whole model's time at the pool's summed speed), clipped to [0, 2], halved;
//   2: the step time of the pipeline completed by keeping g to the last layer (the open stage
//      closed towards g when g != c), RelativeLogFeature against ref.
void PartialPipelineFeatures(const StepTimeModel& m, double ref, double balanced, int l, std::span<const int> prefix,
                             std::span<float> out) {
  const int L = m.num_layers(), M = m.num_devices();
  double slot = 0;
  int start = 0, stages = 0;
  for (int i = 1; i < l; ++i) {
    const int a = prefix[static_cast<size_t>(i - 1)], b = prefix[static_cast<size_t>(i)];
    if (a != b) {
      slot = std::max(slot, m.Slot(start, i - 1, a, b));
      start = i;
      ++stages;
    }
  }
  const int c = l > 0 ? prefix[static_cast<size_t>(l - 1)] : -1;
  for (int g = 0; g < M; ++g) {
    const int first = g == c ? start : l;
    double s = slot;
    int k = stages + 1;
    if (g != c && c >= 0) {
      s = std::max(s, m.Slot(start, l - 1, c, g));
      ++k;
    }
    s = std::max(s, m.Slot(first, L - 1, g, -1));
    float* f = out.data() + static_cast<size_t>(g) * kDynamicFeatures;
    f[0] = g == c ? 1.0f : 0.0f;
    f[1] = static_cast<float>(std::clamp(m.ComputeS(first, l, g) / balanced, 0.0, 2.0) / 2.0);
    f[2] = RelativeLogFeature((m.micro_batches() + k - 1) * s, ref);
  }
}

class TappPlanner : public HeteroPlanner {
 public:
  explicit TappPlanner(LearnedPlannerOptions o) : o_(std::move(o)) {}
  std::string_view name() const override { return "tapp"; }
  bool Supports(PlanObjective o) const override { return o == PlanObjective::kStepTime; }

  Result<HeteroPlan> Solve(const PlanningProblem& p) override {
    auto built = StepTimeModel::Build(p);
    if (!built.ok()) return built.status();
    const StepTimeModel& m = *built;
    const int L = m.num_layers(), M = m.num_devices();
    // Per-device features of each layer: log10 of the layer's time on the device; whether it fits
    // alone; and the device's share of the pool's speed on the whole model (the share of the
    // FLOPs a balanced pipeline gives it; with the generic FLOP-share feature, where its stage
    // should end) [REC, ours].
    double speed_sum = 0;
    for (int g = 0; g < M; ++g) speed_sum += 1.0 / m.ComputeS(0, L - 1, g);
    const learn::StepFeatures features = LayerFeatures(*p.model, 3 * M, [&](int l, std::vector<float>* row) {
      for (int g = 0; g < M; ++g) {
        row->push_back(static_cast<float>(std::log10(1e-9 + m.ComputeS(l, l, g)) / 10.0));
        row->push_back(m.Slot(l, l, g, -1) < kInf ? 1.0f : 0.0f);
        row->push_back(static_cast<float>(1.0 / m.ComputeS(0, L - 1, g) / speed_sum));
      }
    });
    double ref = 0;
    auto bsp = SolveBsp(p);
    if (bsp.ok()) {
      ref = bsp->step_time_s;
    } else {
      for (int g = 0; g < M; ++g) ref = std::max(ref, m.ComputeS(0, L - 1, g) * m.micro_batches());
    }
    const auto mask = [M](int step, std::span<const int> prefix, std::vector<uint8_t>* allowed) {
      unsigned used = 0;
      for (int a : prefix) used |= 1u << a;
      for (int g = 0; g < M; ++g) {
        const bool same = step > 0 && prefix[static_cast<size_t>(step - 1)] == g;
        (*allowed)[static_cast<size_t>(g)] = same || !(used & (1u << g)) ? 1 : 0;
      }
    };
    const auto reward = [&](std::span<const int> a) {
      const double t = m.AssignmentStepTime(a);
      if (t < kInf) return -t / ref;
      int bad = 0;
      for (int l = 0; l < L; ++l) bad += m.Slot(l, l, a[static_cast<size_t>(l)], -1) == kInf;
      return -kTappInfeasiblePenalty - static_cast<double>(bad) / L;
    };
    HETSCHED_ASSIGN_OR_RETURN(const LearnedAssignment learned,
                              LearnAssignment(o_, features, M, /*action_features=*/3, reward, mask,
                                              [&](std::span<const int> a) { return m.AssignmentStepTime(a); },
                                              {kDynamicFeatures, [&](int l, std::span<const int> prefix, std::span<float> out) {
                                                 PartialPipelineFeatures(m, ref, 1.0 / speed_sum, l, prefix, out);
                                               }}));
    auto plan = m.EvaluateAssignment(learned.actions, "tapp");
    if (!plan.ok()) {
      return Status::Infeasible(fmt::format("tapp: no pipeline that fits found in {} episodes ({})", learned.episodes,
                                            plan.status().message()));
    }
    RecordLearning(learned, &*plan);
    plan->note = fmt::format("REINFORCE: reward -T/{:.4g} s ({}); learned plan {:.6g} s, {} local-search move(s){}", ref,
                             bsp.ok() ? "BSP step" : "slowest device alone", learned.learned_objective, learned.polish_moves,
                             o_.polish ? "" : " (polish=false)");
    return plan;
  }

 private:
  LearnedPlannerOptions o_;
};

Result<std::unique_ptr<HeteroPlanner>> MakeTapp(const Options& options) {
  auto o = ReadLearnedPlannerOptions(options, kTappDefaults);
  if (!o.ok()) return o.status();
  return std::unique_ptr<HeteroPlanner>(std::make_unique<TappPlanner>(std::move(o).value()));
}

const MethodInfo kTappInfo{
    "tapp",
    "policy-gradient agent cuts the layers into pipeline stages on distinct devices, min step time (options: " +
        std::string(kLearnedPlannerOptionList) + ")",
    "[SRC] policy-gradient allocation of pipeline stages to heterogeneous devices (Mao et al., Appl. Sci. 2021); "
    "[REC] LSTM policy in place of the grouper/attention placer [SRC2], GPipe step model (ALGORITHMS.md 4.2-4.3), "
    "risk-seeking gradient and priority-queue imitation (ours, after Petersen et al. 2021 and Abolafia et al. 2018), "
    "local-search polish (ours)"};

}  // namespace

HETSCHED_REGISTER_IMPL(HeteroPlanner, kTappRegistered, kTappInfo, MakeTapp)

}  // namespace hetsched
