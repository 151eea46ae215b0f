// `rlpto`'s options (docs/rlpto.md) read into RlptoConfig, the agent file loaded, the decider and
// the trainer's observer chosen, and the registration. The scheduler: scheduler.cc (its decisions:
// decide.cc); the deciders: deciders.cc; the trainer's reward recorder: reward_recorder.cc; the
// agent's encoding: encoding.cc; the forecast: forecast.cc.
#include "hetsched/policies/rlpto/rlpto.h"

#include <cmath>
#include <filesystem>
#include <optional>

#include "hetsched/policies/rlpto/decider.h"
#include "hetsched/policies/rlpto/reward_recorder.h"
#include "hetsched/policies/rlpto/scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/embedded.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

// The SHA-256 the agent file `model` must have: option `model_sha256`, else the first word of
// the file beside it, MODEL.sha256 (on disk or built in: every agent in data/models/ has one,
// sha256sum's format), else none (an agent trained here and not shipped).
Result<std::string> ModelChecksum(const Options& options, const std::string& model, const std::string& who) {
  std::string sum = options.GetString("model_sha256", "");
  const std::string sidecar = model + ".sha256";
  if (sum.empty() && (std::filesystem::exists(sidecar) || EmbeddedFile(sidecar).has_value())) {
    auto text = ReadFileOrEmbedded(sidecar);
    if (!text.ok()) return text.status().WithContext(who + ": option 'model': ");
    sum = std::string(Trim(Split(Trim(*text), ' ')[0]));
  }
  if (!sum.empty() && (sum.size() != 64 || sum.find_first_not_of("0123456789abcdef") != std::string::npos)) {
    return Status::InvalidArgument(who + ": the SHA-256 for " + model + " must be 64 lower-case hex digits, got '" + sum + "'");
  }
  return sum;
}

// The options but `model` read into RlptoConfig and checked, in the order they are reported.
Result<RlptoConfig> ReadRlptoConfig(const Options& options, const std::string& who) {
  RlptoConfig c;
  HETSCHED_ASSIGN_OR_RETURN(c.classes, ParsePriorityClassOptions(options, who));
  HETSCHED_ASSIGN_OR_RETURN(c.round_s, options.GetDouble("round", c.round_s));
  HETSCHED_ASSIGN_OR_RETURN(c.min_share, options.GetDouble("min_share", c.min_share));
  HETSCHED_ASSIGN_OR_RETURN(c.shrink, options.GetBool("shrink", c.shrink));
  HETSCHED_ASSIGN_OR_RETURN(c.convergence.epsilon, options.GetDouble("epsilon", c.convergence.epsilon));
  HETSCHED_ASSIGN_OR_RETURN(c.convergence.exponent, options.GetDouble("loss_exponent", c.convergence.exponent));
  HETSCHED_ASSIGN_OR_RETURN(c.forecast_window_s, options.GetDouble("forecast_window", c.forecast_window_s));
  HETSCHED_ASSIGN_OR_RETURN(c.reserve_fraction, options.GetDouble("reserve", c.reserve_fraction));
  HETSCHED_ASSIGN_OR_RETURN(const long long window, options.GetInt("window", c.window));
  HETSCHED_ASSIGN_OR_RETURN(c.reward.congestion_share, options.GetDouble("congestion_share", c.reward.congestion_share));
  if (!(c.reward.congestion_share >= 0 && c.reward.congestion_share <= 1)) {
    return Status::InvalidArgument(who + ": option 'congestion_share' must be in [0, 1]");
  }
  HETSCHED_ASSIGN_OR_RETURN(c.reward.type_share, options.GetDouble("type_share", c.reward.type_share));
  if (!(c.reward.type_share >= 0 && c.reward.type_share <= 1)) return Status::InvalidArgument(who + ": option 'type_share' must be in [0, 1]");
  HETSCHED_ASSIGN_OR_RETURN(c.yield, options.GetBool("yield", c.yield));
  HETSCHED_ASSIGN_OR_RETURN(const double yield_service_h, options.GetDouble("yield_service", c.classes.large_gpu_s / 3600));
  c.yield_service_gpu_s = yield_service_h * 3600;
  HETSCHED_ASSIGN_OR_RETURN(c.yield_after_s, options.GetDouble("yield_after", c.yield_after_s));
  if (!(c.yield_service_gpu_s >= 0) || !std::isfinite(c.yield_service_gpu_s)) {
    return Status::InvalidArgument(who + ": option 'yield_service' must be a finite number of GPU-hours >= 0");
  }
  if (!(c.yield_after_s >= 0) || !std::isfinite(c.yield_after_s)) {
    return Status::InvalidArgument(who + ": option 'yield_after' must be a finite number of seconds >= 0");
  }
  const std::string allocation = options.GetString("allocation", "rule");
  if (allocation == "heuristic") {
    c.allocation = RlptoAllocation::kHeuristic;
  } else if (allocation != "rule") {
    return Status::InvalidArgument(who + ": option 'allocation' must be 'rule' or 'heuristic', got '" + allocation + "'");
  }
  c.profile_origin = options.GetString("profile", "");
  if (!c.profile_origin.empty()) {
    auto text = ReadFileOrEmbedded(c.profile_origin);
    if (!text.ok()) return text.status().WithContext(who + ": option 'profile': ");
    HETSCHED_ASSIGN_OR_RETURN(c.profile, ParseGavelThroughputs(*text, c.profile_origin));
  }
  if (!(c.round_s > 0)) return Status::InvalidArgument(who + ": option 'round' must be > 0 seconds");
  if (!(c.min_share > 0 && c.min_share <= 1)) return Status::InvalidArgument(who + ": option 'min_share' must be in (0, 1]");
  if (!(c.convergence.epsilon > 0 && c.convergence.epsilon < 1)) return Status::InvalidArgument(who + ": option 'epsilon' must be in (0, 1)");
  if (!(c.convergence.exponent > 0 && c.convergence.exponent <= 10)) {
    return Status::InvalidArgument(who + ": option 'loss_exponent' must be in (0, 10]");
  }
  if (!(c.forecast_window_s > 0)) return Status::InvalidArgument(who + ": option 'forecast_window' must be > 0 seconds");
  if (!(c.reserve_fraction >= 0 && c.reserve_fraction <= 1)) return Status::InvalidArgument(who + ": option 'reserve' must be in [0, 1]");
  if (window < 1 || window > 100000) return Status::InvalidArgument(who + ": option 'window' must be in 1..100000");
  HETSCHED_ASSIGN_OR_RETURN(const long long moves, options.GetInt("moves", c.moves));
  if (moves < 0 || moves > 100000) return Status::InvalidArgument(who + ": option 'moves' must be in 0..100000");
  c.moves = static_cast<int>(moves);
  c.window = static_cast<int>(window);
  return c;
}

// The agent file `model`, its checksum checked, of the current or the legacy shape.
Result<std::shared_ptr<learn::AllocationAgent>> LoadRlptoAgent(const Options& options, const std::string& model,
                                                               const std::string& who) {
  HETSCHED_ASSIGN_OR_RETURN(const std::string checksum, ModelChecksum(options, model, who));
  auto loaded = learn::AllocationAgent::Load(model, checksum);
  if (!loaded.ok()) return loaded.status().WithContext(who + ": option 'model': ");
  const bool current = loaded->config().state_dim == kRlptoStateDim && loaded->config().actions == kRlptoActions;
  const bool legacy = loaded->config().state_dim == kRlptoLegacyStateDim && loaded->config().actions == kRlptoLegacyActions;
  if (!current && !legacy) {
    return Status::InvalidArgument(who + ": model " + model + " was not trained for rlpto (state or action size differs)");
  }
  return std::make_shared<learn::AllocationAgent>(std::move(loaded).value());
}

// The scheduler's decider and observer, chosen once (decider.h, observer.h). The agent acting:
// the trainer's, else the loaded one, none when the heuristic acts for the trainer; the heuristic
// without an agent (allocation=heuristic, or acting for the trainer); else the rule (null). An
// agent of another shape than kRlptoStateDim (the legacy one), or the heuristic acting for one,
// goes behind the legacy adapter. The heuristic's yield rule is on with yield=true unless the
// trainer switched it off (teacher_yield): then only an agent's own yield action yields.
struct RlptoStages {
  std::unique_ptr<rlpto_internal::RlptoDecider> decider;
  std::unique_ptr<rlpto_internal::RlptoObserver> observer;
};
RlptoStages ChooseRlptoStages(const RlptoConfig& c, std::shared_ptr<learn::AllocationAgent> loaded, const RlptoTraining& training) {
  const std::shared_ptr<learn::AllocationAgent> acting = training.act_by_teacher ? nullptr : training.agent ? training.agent : loaded;
  const learn::AllocationAgent* shape = training.agent ? training.agent.get() : acting.get();
  const int dim = shape != nullptr ? shape->config().state_dim : kRlptoStateDim;
  const bool full = dim == kRlptoStateDim;
  const bool rule_yields = c.yield && training.teacher_yield;
  RlptoStages out;
  if (training.trajectory != nullptr) {
    out.observer = rlpto_internal::MakeRlptoRewardRecorder(training.trajectory, c.reward, c.convergence, dim, rule_yields && full);
  }
  if (acting == nullptr && !training.act_by_teacher && c.allocation != RlptoAllocation::kHeuristic) return out;  // the rule
  const bool explore = training.trajectory != nullptr && training.explore;
  std::unique_ptr<rlpto_internal::RlptoDecider> decider =
      acting != nullptr ? rlpto_internal::MakeRlptoAgentDecider(acting, explore ? std::optional<uint64_t>(training.explore_seed) : std::nullopt)
                        : rlpto_internal::MakeRlptoHeuristicDecider(rule_yields && full);
  out.decider = full ? std::move(decider) : rlpto_internal::MakeRlptoLegacyAdapter(std::move(decider), dim, rule_yields);
  return out;
}

}  // namespace

Result<std::unique_ptr<JobScheduler>> MakeRlptoScheduler(const Options& options, RlptoTraining training) {
  const std::string who = "policy 'rlpto'";
  HETSCHED_ASSIGN_OR_RETURN(RlptoConfig c, ReadRlptoConfig(options, who));
  const std::string model = options.GetString("model", "");
  std::shared_ptr<learn::AllocationAgent> loaded;
  if (!model.empty() && !training.agent) {
    HETSCHED_ASSIGN_OR_RETURN(loaded, LoadRlptoAgent(options, model, who));
  }
  RlptoStages stages = ChooseRlptoStages(c, std::move(loaded), training);
  return NewRlptoScheduler(std::move(c), std::move(stages.decider), std::move(stages.observer));
}

namespace {
const MethodInfo kRlptoInfo{
    "rlpto",
    "multi-priority queues + convergence shrinking + forecast-aware allocation (model=AGENT: RL agent; none: rule; "
    "yield=true: long-served jobs give way to blocked short ones)",
    "[SRC] RLPTO (Lu et al., IEEE TPDS 2023): ARIMA+GRU forecast, priority queues, RL allocation, shrinking; "
    "state, actions, reward weights, convergence rule, forecast use and yielding [REC]"};
}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kRlptoRegistered, kRlptoInfo,
                       [](const Options& options) { return MakeRlptoScheduler(options); })

}  // namespace hetsched
