// Heterogeneous planners benchmark (docs/PERFORMANCE.md, "Heterogeneous planners"). Prints
// figures; asserts nothing.
//   planners_bench
// 1. The cost DP (hetsched plan --planner dp) on a 200-layer model over 8 resource types
//    (target < 100 ms): p50 and max of 20 solves.
// 2. The step-time DP on resnet50 (56 layers) over 8 devices (2^8 device sets).
// 3. HeterPS training with the planner's defaults (LSTM + REINFORCE, 6,000 episodes in batches
//    of 64 with the risk-seeking gradient and priority-queue imitation, 256 inference samples,
//    one LibTorch thread) on resnet50 over 8 types at 8,000 samples/s (target < 60 s on one
//    core): wall and process CPU seconds.
// 4. Inference of the trained policy with its partial-plan features (greedy decoding of 56
//    layers; target < 5 ms): p50, p99; and sampling 256 plans from it (Bello et al. 2016).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <unistd.h>
#include <vector>

#include "hetsched/learn/lstm_policy.h"
#include "hetsched/planners/cost_model.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/planners/heterps_features.h"
#include "hetsched/planners/rl_common.h"
#include "hetsched/util/rng.h"

using namespace hetsched;

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kPool[] = {"cpu-node", "k80", "t4", "p100", "v100-16gb", "a100-40gb", "a100-80gb", "rtx-a6000"};

double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

PlanningProblem CostProblem(const ModelProfile& model, double limit) {
  PlanningProblem p;
  p.model = &model;
  p.catalog = &DeviceCatalog::BuiltIn();
  p.network = &LinkCatalog::BuiltIn().link(LinkCatalog::BuiltIn().Find("eth25"));
  for (const char* t : kPool) p.pool.push_back({DeviceCatalog::BuiltIn().Find(t), 0});
  p.throughput_limit = limit;
  return p;
}

}  // namespace

int main() {
  // 1. A 200-layer model: resnet50's, bert-large's, gpt2-medium's and cyclegan's layers in turn.
  ModelProfile big;
  big.name = "synthetic-200";
  big.default_batch_size = 32;
  const char* sources[] = {"resnet50", "bert-large", "gpt2-medium", "cyclegan"};
  for (size_t i = 0; big.layers.size() < 200; ++i) {
    const ModelProfile* m = ModelZoo::BuiltIn().Find(sources[i % 4]);
    for (const LayerProfile& l : m->layers) {
      if (big.layers.size() < 200) big.layers.push_back(l);
    }
  }
  const PlanningProblem big_problem = CostProblem(big, 2000);
  std::vector<double> ms;
  long long evals = 0;
  for (int i = 0; i < 20; ++i) {
    const auto t0 = Clock::now();
    auto plan = SolveWith("dp", big_problem);
    ms.push_back(Ms(t0, Clock::now()));
    if (!plan.ok()) {
      std::printf("dp failed: %s\n", plan.status().ToString().c_str());
      return 1;
    }
    evals = plan->evaluations;
  }
  std::printf("cost DP, 200 layers x 8 types: p50 %.2f ms, max %.2f ms (%lld stage evaluations; target < 100 ms)\n",
              Percentile(ms, 0.5), Percentile(ms, 1.0), evals);

  // 2. Step-time DP, resnet50 on 8 devices (2 A100, 2 V100, 2 P100, 2 T4).
  auto cluster = MakeShorthandCluster({{"a100-40gb", 2}, {"v100-16gb", 2}, {"p100", 2}, {"t4", 2}}, 2,
                                      DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
  const ModelProfile* resnet = ModelZoo::BuiltIn().Find("resnet50");
  PlanningProblem step;
  step.model = resnet;
  step.objective = PlanObjective::kStepTime;
  step.cluster = &*cluster;
  step.global_batch = 256;
  ms.clear();
  for (int i = 0; i < 3; ++i) {
    const auto t0 = Clock::now();
    auto plan = SolveWith("dp", step);
    ms.push_back(Ms(t0, Clock::now()));
    if (!plan.ok()) return 1;
  }
  std::printf("step-time DP, resnet50 (56 layers) x 8 devices: p50 %.1f ms\n", Percentile(ms, 0.5));

  // 3. HeterPS training on resnet50 over the 8 types.
  const PlanningProblem rp = CostProblem(*resnet, 8000);
  const std::string saved = "/tmp/planners_bench_policy_" + std::to_string(::getpid()) + ".pt";
  Options o;
  o.Set("save", saved);
  const std::clock_t c0 = std::clock();
  const auto t0 = Clock::now();
  auto rl = SolveWith("heterps", rp, o);
  const double wall = Ms(t0, Clock::now()) / 1000;
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  if (!rl.ok()) {
    std::printf("heterps failed: %s\n", rl.status().ToString().c_str());
    return 1;
  }
  auto dp = SolveWith("dp", rp);
  std::printf("heterps training, resnet50 x 8 types, %d episodes + %d inference samples: %.1f s wall, %.1f s CPU "
              "(target < 60 s); learned %.4g $/h, DP %.4g $/h, best at sequence %d\n",
              rl->episodes, rl->samples, wall, cpu, rl->learned_objective, dp.ok() ? dp->cost_per_hour : 0.0,
              rl->episodes_to_best);

  // 4. Inference of the trained policy.
  auto policy = learn::LstmPolicy::Load(saved);
  std::remove(saved.c_str());
  if (!policy.ok()) return 1;
  // The planner's features (the static part's values do not change the timing; the dynamic
  // part is computed as the planner does, per step from the prefix).
  const learn::StepFeatures features =
      LayerFeatures(*resnet, policy->config().feature_dim - LayerFeatureDim(), [](int, std::vector<float>*) {});
  auto cm = StageCostModel::Build(rp);
  if (!cm.ok()) return 1;
  double ref = StageCostModel::kInfeasible, min_price = StageCostModel::kInfeasible;
  for (int t = 0; t < cm->num_types(); ++t) {
    ref = std::min(ref, cm->AssignmentCost(std::vector<int>(resnet->layers.size(), t)));
    min_price = std::min(min_price, cm->type(t).price_per_hour);
  }
  const learn::DynamicFeatureFn dynamic = [&](int l, std::span<const int> prefix, std::span<float> out) {
    HeterPsPartialPlanFeatures(*cm, ref, min_price, l, prefix, out);
  };
  ms.clear();
  const std::clock_t i0 = std::clock();
  for (int i = 0; i < 200; ++i) {
    const auto s0 = Clock::now();
    auto a = policy->Greedy(features, {}, dynamic);
    ms.push_back(Ms(s0, Clock::now()));
    if (!a.ok()) {
      std::printf("greedy failed: %s\n", a.status().ToString().c_str());
      return 1;
    }
  }
  const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - i0) / CLOCKS_PER_SEC / 200;
  std::printf("policy inference (greedy, 56 layers): p50 %.3f ms, p99 %.3f ms wall, %.3f ms CPU per call (target < 5 ms)\n",
              Percentile(ms, 0.5), Percentile(ms, 0.99), cpu_ms);
  ms.clear();
  for (int i = 0; i < 10; ++i) {
    const auto s0 = Clock::now();
    auto a = policy->Sample(features, 256, static_cast<uint64_t>(i), {}, dynamic);
    ms.push_back(Ms(s0, Clock::now()));
    if (!a.ok()) return 1;
  }
  std::printf("policy inference by sampling 256 plans (56 layers): p50 %.1f ms wall\n", Percentile(ms, 0.5));
  return 0;
}
