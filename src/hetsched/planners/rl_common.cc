#include "hetsched/planners/rl_common.h"

#include <cmath>

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
  auto batch = o.GetInt("batch", 16);
  auto lr = o.GetDouble("lr", defaults.lr);
  auto polish = o.GetBool("polish", true);
  auto action_head = o.GetBool("action_head", true);
  auto repeat_bias = o.GetDouble("repeat_bias", 3.0);
  auto entropy = o.GetDouble("entropy", defaults.entropy);
  auto entropy_final = o.GetDouble("entropy_final", defaults.entropy_final);
  auto decay = o.GetDouble("baseline_decay", 0.9);
  auto patience = o.GetInt("patience", 0);
  auto hidden = o.GetInt("hidden", 64);
  auto seed = o.GetInt("seed", 1);
  for (const Status& s : {episodes.status(), batch.status(), lr.status(), entropy.status(), entropy_final.status(), decay.status(),
                          patience.status(), hidden.status(), seed.status(), polish.status(), action_head.status(), repeat_bias.status()}) {
    if (!s.ok()) return s;
  }
  if (*episodes < 1 || *batch < 1 || *hidden < 1 || *patience < 0 || *seed < 0) {
    return Status::InvalidArgument("learned planner: episodes, batch and hidden must be >= 1, patience and seed >= 0");
  }
  out.reinforce.episodes = static_cast<int>(*episodes);
  out.reinforce.batch = static_cast<int>(*batch);
  out.reinforce.learning_rate = *lr;
  out.reinforce.entropy_bonus = *entropy;
  out.reinforce.entropy_final = *entropy_final;
  out.reinforce.baseline_decay = *decay;
  out.reinforce.patience = static_cast<int>(*patience);
  out.reinforce.seed = static_cast<uint64_t>(*seed);
  out.hidden = static_cast<int>(*hidden);
  out.save_path = o.GetString("save", "");
  out.polish = *polish;
  out.action_head = *action_head;
  out.repeat_bias = *repeat_bias;
  return out;
}

Result<LearnedAssignment> LearnAssignment(const LearnedPlannerOptions& o, const learn::StepFeatures& features,
                                          int num_actions, int action_features, const learn::RewardFn& reward,
                                          const learn::ActionMaskFn& mask,
                                          const std::function<double(std::span<const int>)>& objective) {
  learn::LstmPolicyConfig config;
  config.feature_dim = static_cast<int>(features.values.size() / static_cast<size_t>(std::max(1, features.steps)));
  config.num_actions = num_actions;
  config.hidden = o.hidden;
  config.repeat_bias = o.repeat_bias;
  config.action_features = o.action_head ? action_features : 0;
  config.seed = o.reinforce.seed;
  auto policy = learn::LstmPolicy::Create(config);
  if (!policy.ok()) return policy.status();
  auto trained = learn::TrainReinforce(*policy, features, reward, mask, o.reinforce);
  if (!trained.ok()) return trained.status();
  if (!o.save_path.empty()) HETSCHED_RETURN_IF_ERROR(policy->Save(o.save_path));
  LearnedAssignment out;
  out.actions = std::move(trained->best_actions);
  out.learned_objective = objective(out.actions);
  if (o.polish) out.polish_moves = ImproveAssignmentLocally(&out.actions, num_actions, objective);
  out.episodes = trained->episodes;
  out.episodes_to_best = trained->best_episode;
  return out;
}

}  // namespace hetsched
