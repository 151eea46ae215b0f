#include "hetsched/planners/rl_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "hetsched/planners/cost_search.h"

namespace hetsched {

namespace {
constexpr int kKinds = 8;  // LayerKind values
float Log(double x) { return static_cast<float>(std::log10(1.0 + std::max(0.0, x)) / 10.0); }
}  // namespace

int LayerFeatureDim() { return kKinds + 6; }

learn::StepFeatures LayerFeatures(const ModelProfile& model, int extra_dim,
                                  const std::function<void(int layer, std::vector<float>* row)>& extra) {
  learn::StepFeatures f;
  f.steps = static_cast<int>(model.layers.size());
  const int dim = LayerFeatureDim() + extra_dim;
  f.values.reserve(static_cast<size_t>(f.steps) * static_cast<size_t>(dim));
  std::vector<float> row;
  double total_flops = 0;
  for (const LayerProfile& layer : model.layers) total_flops += layer.fwd_flops_per_sample + layer.bwd_flops_per_sample;
  double flops_before = 0;
  for (int l = 0; l < f.steps; ++l) {
    const LayerProfile& layer = model.layers[static_cast<size_t>(l)];
    row.assign(kKinds, 0.0f);
    row[static_cast<size_t>(layer.kind)] = 1.0f;
    row.push_back(Log(layer.fwd_flops_per_sample + layer.bwd_flops_per_sample));
    row.push_back(Log(layer.param_bytes));
    row.push_back(Log(layer.sparse_bytes_per_sample));
    row.push_back(Log(layer.activation_bytes_per_sample));
    row.push_back(static_cast<float>(l) / static_cast<float>(f.steps));
    // Share of the model's FLOPs before this layer: where a balanced cut falls (TAPP).
    row.push_back(total_flops > 0 ? static_cast<float>(flops_before / total_flops) : 0.0f);
    flops_before += layer.fwd_flops_per_sample + layer.bwd_flops_per_sample;
    if (extra) extra(l, &row);
    row.resize(static_cast<size_t>(dim), 0.0f);
    f.values.insert(f.values.end(), row.begin(), row.end());
  }
  return f;
}

Result<LearnedPlannerOptions> ReadLearnedPlannerOptions(const Options& o, const LearnedPlannerDefaults& defaults) {
  LearnedPlannerOptions out;
  auto episodes = o.GetInt("episodes", defaults.episodes);
  auto batch = o.GetInt("batch", defaults.batch);
  auto lr = o.GetDouble("lr", defaults.lr);
  auto polish = o.GetBool("polish", true);
  auto action_head = o.GetBool("action_head", true);
  auto repeat_bias = o.GetDouble("repeat_bias", 3.0);
  auto entropy = o.GetDouble("entropy", defaults.entropy);
  auto entropy_final = o.GetDouble("entropy_final", defaults.entropy_final);
  auto decay = o.GetDouble("baseline_decay", 0.9);
  auto patience = o.GetInt("patience", 0);
  auto risk = o.GetDouble("risk", defaults.risk);
  auto elite = o.GetInt("elite", defaults.elite);
  auto imitation = o.GetDouble("imitation", defaults.imitation);
  auto hidden = o.GetInt("hidden", 64);
  auto dynamic = o.GetBool("dynamic", true);
  auto restarts = o.GetInt("restarts", defaults.restarts);
  auto samples = o.GetInt("samples", defaults.samples);
  auto seed = o.GetInt("seed", 1);
  for (const Status& s : {episodes.status(), batch.status(), lr.status(), entropy.status(), entropy_final.status(), decay.status(),
                          patience.status(), risk.status(), elite.status(), imitation.status(), hidden.status(), seed.status(), polish.status(), action_head.status(), repeat_bias.status(),
                          dynamic.status(), restarts.status(), samples.status()}) {
    if (!s.ok()) return s;
  }
  if (*episodes < 1 || *batch < 1 || *hidden < 1 || *restarts < 1 || *patience < 0 || *seed < 0 || *samples < 0) {
    return Status::InvalidArgument(
        "learned planner: episodes, batch, hidden and restarts must be >= 1, patience, seed and samples >= 0");
  }
  out.reinforce.episodes = static_cast<int>(*episodes);
  out.reinforce.batch = static_cast<int>(*batch);
  out.reinforce.learning_rate = *lr;
  out.reinforce.entropy_bonus = *entropy;
  out.reinforce.entropy_final = *entropy_final;
  out.reinforce.baseline_decay = *decay;
  out.reinforce.patience = static_cast<int>(*patience);
  out.reinforce.risk = *risk;
  out.reinforce.elite = static_cast<int>(*elite);
  out.reinforce.imitation = *imitation;
  out.reinforce.seed = static_cast<uint64_t>(*seed);
  out.hidden = static_cast<int>(*hidden);
  out.save_path = o.GetString("save", "");
  out.polish = *polish;
  out.action_head = *action_head;
  out.repeat_bias = *repeat_bias;
  out.dynamic = *dynamic;
  out.restarts = static_cast<int>(*restarts);
  out.samples = static_cast<int>(*samples);
  return out;
}

void RecordLearning(const LearnedAssignment& learned, HeteroPlan* plan) {
  plan->episodes = learned.episodes;
  plan->episodes_to_best = learned.episodes_to_best;
  plan->evaluations = learned.episodes;
  plan->learned_objective = learned.learned_objective;
  plan->trained_objective = learned.trained_objective;
  plan->samples = learned.samples;
}

float RelativeLogFeature(double x, double ref) {
  if (!(x < std::numeric_limits<double>::infinity())) return 1.0f;
  return static_cast<float>(std::clamp(std::log10(std::max(x, 1e-300) / ref), -2.0, 2.0) / 2.0);
}

namespace {

// One training run (seed `seed`) and, when o.samples > 0, sampling at inference from the
// trained policy. Writes the policy to `policy_out`.
struct OneRun {
  std::vector<int> actions, trained_actions;
  double reward = -std::numeric_limits<double>::infinity();
  double trained_reward = -std::numeric_limits<double>::infinity();
  int episodes = 0, best_episode = 0;
};
Result<OneRun> TrainOnce(const LearnedPlannerOptions& o, const learn::LstmPolicyConfig& config, uint64_t seed,
                         const learn::StepFeatures& features, const learn::RewardFn& reward,
                         const learn::ActionMaskFn& mask, const learn::DynamicFeatureFn& dynamic,
                         std::optional<learn::LstmPolicy>* policy_out) {
  learn::LstmPolicyConfig c = config;
  c.seed = seed;
  HETSCHED_ASSIGN_OR_RETURN(learn::LstmPolicy policy, learn::LstmPolicy::Create(c));
  learn::ReinforceConfig rc = o.reinforce;
  rc.seed = seed;
  HETSCHED_ASSIGN_OR_RETURN(learn::ReinforceResult trained, learn::TrainReinforce(policy, features, reward, mask, rc, dynamic));
  OneRun run;
  run.actions = run.trained_actions = std::move(trained.best_actions);
  run.reward = run.trained_reward = trained.best_reward;
  run.episodes = trained.episodes;
  run.best_episode = trained.best_episode;
  if (o.samples > 0) {
    // A stream apart from the training's (seed + 2^32).
    HETSCHED_ASSIGN_OR_RETURN(const auto sampled, policy.Sample(features, o.samples, seed + (1ull << 32), mask, dynamic));
    for (size_t i = 0; i < sampled.size(); ++i) {
      const double r = reward(sampled[i]);
      if (r > run.reward) {
        run.reward = r;
        run.actions = sampled[i];
        run.best_episode = trained.episodes + static_cast<int>(i) + 1;
      }
    }
  }
  policy_out->emplace(std::move(policy));
  return run;
}

}  // namespace

Result<LearnedAssignment> LearnAssignment(const LearnedPlannerOptions& o, const learn::StepFeatures& features,
                                          int num_actions, int action_features, const learn::RewardFn& reward,
                                          const learn::ActionMaskFn& mask,
                                          const std::function<double(std::span<const int>)>& objective,
                                          const DynamicFeatures& dynamic) {
  const bool use_dynamic = o.dynamic && dynamic.per_action > 0;
  learn::LstmPolicyConfig config;
  config.feature_dim = static_cast<int>(features.values.size() / static_cast<size_t>(std::max(1, features.steps)));
  config.num_actions = num_actions;
  config.hidden = o.hidden;
  config.repeat_bias = o.repeat_bias;
  config.action_features = o.action_head ? action_features : 0;
  config.dynamic_features = use_dynamic ? dynamic.per_action : 0;
  const learn::DynamicFeatureFn dynamic_fn = use_dynamic ? dynamic.fn : learn::DynamicFeatureFn();
  LearnedAssignment out;
  std::optional<learn::LstmPolicy> best_policy;
  double best_reward = -std::numeric_limits<double>::infinity();
  double best_trained = -std::numeric_limits<double>::infinity();
  for (int r = 0; r < o.restarts; ++r) {
    std::optional<learn::LstmPolicy> policy;
    HETSCHED_ASSIGN_OR_RETURN(OneRun run, TrainOnce(o, config, o.reinforce.seed + static_cast<uint64_t>(r), features,
                                                    reward, mask, dynamic_fn, &policy));
    if (run.trained_reward > best_trained) {
      best_trained = run.trained_reward;
      out.trained_objective = objective(run.trained_actions);
    }
    if (run.reward > best_reward) {
      best_reward = run.reward;
      out.actions = std::move(run.actions);
      out.episodes_to_best = out.episodes + out.samples + run.best_episode;
      best_policy = std::move(policy);
    }
    out.episodes += run.episodes;
    out.samples += o.samples;
  }
  if (!o.save_path.empty()) HETSCHED_RETURN_IF_ERROR(best_policy->Save(o.save_path));
  out.learned_objective = objective(out.actions);
  if (o.polish) out.polish_moves = ImproveAssignmentLocally(&out.actions, num_actions, objective);
  return out;
}

}  // namespace hetsched
