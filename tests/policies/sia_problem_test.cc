// Sia's round worked by hand: its configurations on its paper's cluster, the goodput rows'
// normalisation, the re-allocation factor, the integer program's coefficients and choices, and
// its fast placer (sia_problem.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "fake_backend.h"
#include "hetsched/perf/goodput.h"
#include "hetsched/perf/goodput_application.h"
#include "hetsched/policies/sia/sia_problem.h"

namespace hetsched::sia_internal {
namespace {

using test::TestCluster;
using test::kFast;
using test::kSlow;

std::vector<std::tuple<int, int, int>> Triples(const std::vector<SiaConfig>& configs) {
  std::vector<std::tuple<int, int, int>> out;
  for (const SiaConfig& c : configs) out.emplace_back(c.group, c.nodes, c.gpus);
  return out;
}

// Sia's configurations (sia.py:13-17) cut to each type's nodes: on its paper's cluster 6 nodes of
// 4 T4 give 8, 2 of 8 A100 give 5, 3 of 8 RTX 2080Ti give 6 (19 in all).
TEST(SiaProblemTest, ConfigurationsOfSiasCluster) {
  TestCluster c({{kFast, 4}, {kFast, 4}, {kFast, 4}, {kFast, 4}, {kFast, 4}, {kFast, 4}, {kSlow, 8}, {kSlow, 8}});
  const std::vector<NodeGroup> groups = GroupNodes(c.cluster());
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].nodes, (std::vector<NodeId>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(groups[1].gpus_per_node, 8);
  EXPECT_EQ(groups[1].nodes, (std::vector<NodeId>{6, 7}));
  const std::vector<std::tuple<int, int, int>> want{
      {0, 1, 1}, {0, 1, 2}, {0, 1, 4}, {0, 2, 8}, {0, 3, 12}, {0, 4, 16}, {0, 5, 20}, {0, 6, 24},
      {1, 1, 1}, {1, 1, 2}, {1, 1, 4}, {1, 1, 8}, {1, 2, 16}};
  EXPECT_EQ(Triples(Configurations(groups)), want);
  TestCluster rtx({{kSlow, 8}, {kSlow, 8}, {kSlow, 8}});
  EXPECT_EQ(Triples(Configurations(GroupNodes(rtx.cluster()))),
            (std::vector<std::tuple<int, int, int>>{{0, 1, 1}, {0, 1, 2}, {0, 1, 4}, {0, 1, 8}, {0, 2, 16}, {0, 3, 24}}));
  // 16 nodes of 4: CONFIGS_4GPU whole (18, up to 64 GPUs); 20 nodes of 8: CONFIGS_8GPU (11).
  std::vector<std::pair<DeviceTypeId, int>> sixteen(16, {kFast, 4}), twenty(20, {kFast, 8});
  EXPECT_EQ(Configurations(GroupNodes(TestCluster(sixteen).cluster())).size(), 18u);
  const auto eights = Configurations(GroupNodes(TestCluster(twenty).cluster()));
  ASSERT_EQ(eights.size(), 11u);
  EXPECT_EQ(eights.back().gpus, 64);
  EXPECT_EQ(eights.back().nodes, 8);
  // One type, nodes of 4, 4 and 2 [REC]: one group, configurations of its largest node.
  TestCluster uneven({{kFast, 4}, {kFast, 4}, {kFast, 2}});
  const auto one = GroupNodes(uneven.cluster());
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].gpus_per_node, 4);
  EXPECT_EQ(Configurations(one).back().gpus, 12);
}

TEST(SiaProblemTest, GoodputRowsNormalisedAsSiaDoes) {
  const std::vector<SiaConfig> configs{{0, 1, 1}, {0, 1, 2}, {0, 1, 4}, {0, 2, 8},
                                       {1, 1, 1}, {1, 1, 2}, {1, 1, 4}, {1, 1, 8}};
  // A model on group 0 (8 GPUs not valid: 0); none on group 1: its one-GPU entry is 1.
  const auto row = NormaliseGoodputs(configs, {50, 90, 160, 0, 0, 0, 0, 0}, {true, false});
  const std::vector<double> want{1, 1.8, 3.2, kZeroAllocGain, 1, kZeroAllocGain, kZeroAllocGain, kZeroAllocGain};
  ASSERT_EQ(row.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(row[i], want[i]) << i;
  // No model anywhere: one GPU of any group, worth 1.
  const auto none = NormaliseGoodputs(configs, std::vector<double>(8, 0), {false, false});
  EXPECT_EQ(none[0], 1);
  EXPECT_EQ(none[4], 1);
  EXPECT_EQ(none[1], kZeroAllocGain);
  // Models on both: the smallest positive goodput of either is 1.
  const auto both = NormaliseGoodputs(configs, {40, 60, 0, 0, 20, 30, 0, 0}, {true, true});
  EXPECT_DOUBLE_EQ(both[0], 2);
  EXPECT_DOUBLE_EQ(both[4], 1);
  EXPECT_DOUBLE_EQ(both[5], 1.5);
}

TEST(SiaProblemTest, ReallocFactorPenaltiesAndCoefficients) {
  EXPECT_DOUBLE_EQ(ReallocFactor(100, 2, 30), 40.0 / 130);
  EXPECT_EQ(ReallocFactor(20, 5, 30), 1);  // younger than its penalty
  EXPECT_EQ(ReallocFactor(50, 3, 30), 0);
  EXPECT_EQ(RestartPenalty("imagenet"), 250);
  EXPECT_EQ(RestartPenalty("cifar10"), 30);
  EXPECT_EQ(RestartPenalty("bert"), 120);
  EXPECT_EQ(RestartPenalty("deepspeech2"), 25);
  EXPECT_EQ(RestartPenalty("yolov3"), 45);
  EXPECT_EQ(RestartPenalty("ncf"), 30);
  EXPECT_DOUBLE_EQ(PoweredCoefficient(4, -0.5), 0.5);
  EXPECT_DOUBLE_EQ(PoweredCoefficient(3, -0.5), 0.58);     // 0.57735 to two decimals
  EXPECT_DOUBLE_EQ(PoweredCoefficient(64, -0.5), 0.12);    // 12.5 hundredths: half to even, as numpy
  EXPECT_DOUBLE_EQ(PoweredCoefficient(kZeroAllocGain, -0.5), 100);
  EXPECT_DOUBLE_EQ(PoweredCoefficient(1e-9, -0.5), kGoodputClip);
}

// Two jobs on one 4-GPU group. Coefficients minus lambda_n = 1.1 per job placed:
//   A: 1 GPU 1 -> 1, 2 GPUs 1.96 -> 0.71, 4 GPUs 3.61 -> 0.53;  B: 1 -> 1, 2: 1.44 -> 0.83, 4: 1.69 -> 0.77.
// Best: A 2 + B 2 = 1.54 (A 4 alone: 0.53 + 1.1 = 1.63; A 2 + B 1: 1.71).
TEST(SiaProblemTest, TheIntegerProgramByHand) {
  auto job = [](std::vector<double> g) {
    SiaJobRow r;
    const int gpus[] = {1, 2, 4};
    for (size_t i = 0; i < g.size(); ++i) r.options.push_back({0, gpus[i], g[i]});
    return r;
  };
  std::vector<SiaJobRow> jobs{job({1, 1.96, 3.61}), job({1, 1.44, 1.69})};
  auto choice = SolveRound({4}, jobs, SiaSettings{});
  ASSERT_TRUE(choice.ok()) << choice.status().ToString();
  EXPECT_EQ(*choice, (std::vector<int>{1, 1}));
  // A had 4 GPUs and pays 0.5 to change: 1 GPU 0.5 -> 1.41, 2 GPUs 0.98 -> 1.01. A 4 + B none
  // (1.63) beats A 2 + B 2 (1.84).
  jobs[0].previous = 2;
  jobs[0].realloc_factor = 0.5;
  choice = SolveRound({4}, jobs, SiaSettings{});
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(*choice, (std::vector<int>{2, -1}));
  // B is in its checkpoint-restore on 1 GPU: held there; A gets 2 (1.01 + 1 against 1.41 + 1).
  jobs[1].previous = 0;
  jobs[1].hold = true;
  choice = SolveRound({4}, jobs, SiaSettings{});
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(*choice, (std::vector<int>{1, 0}));
  // Three jobs without a model yet (one GPU each, worth 1: 1 - 1.1 each) on four groups with room
  // for all: every one gets a GPU.
  // A job without a configuration pays no re-allocation factor, whatever it is.
  std::vector<SiaJobRow> fresh(3);
  fresh[0].options = {{2, 1, 1}};
  fresh[0].realloc_factor = 0.01;
  for (int k = 1; k < 3; ++k) fresh[static_cast<size_t>(k)].options = {{0, 1, 1}, {1, 1, 1}, {2, 1, 1}, {3, 1, 1}};
  choice = SolveRound({2, 1, 6, 2}, fresh, SiaSettings{});
  ASSERT_TRUE(choice.ok());
  for (int c : *choice) EXPECT_GE(c, 0);
  // Nothing to place: no program.
  EXPECT_TRUE(SolveRound({4}, {}, SiaSettings{}).ok());
}

TEST(SiaProblemTest, FastPlacerByHand) {
  // By GPUs (8, 2, 1, 1): whole nodes 0 and 1 for the 8; then from node 2: the 2, and the two
  // single GPUs after it (the pointer wraps past the full nodes).
  const auto placed = PlaceFast({1, 8, 2, 1}, {4, 4, 4});
  EXPECT_EQ(placed[1], (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(placed[2], (std::vector<int>{2, 2}));
  EXPECT_EQ(placed[0], (std::vector<int>{2}));
  EXPECT_EQ(placed[3], (std::vector<int>{2}));
  // The pointer moves on past each job's last node: two single GPUs go to two nodes.
  const auto spread = PlaceFast({1, 1}, {4, 4});
  EXPECT_EQ(spread[0], (std::vector<int>{0}));
  EXPECT_EQ(spread[1], (std::vector<int>{1}));
  // "A whole node" is the most GPUs free on one node (sia.py:162, over the group's GPUs, all of
  // them free when it runs): a 4-GPU job takes node 1's 3, then 1 from node 0.
  const auto split = PlaceFast({4}, {2, 3});
  EXPECT_EQ(split[0], (std::vector<int>{1, 1, 1, 0}));
}

// A hand-made application whose one-GPU placements take `step` s at local batch 32 and 2 x step at
// 64: its one-GPU throughput (Sia's largest local batch over largest step time) is 64 / (2 step).
// Validated at batch 32 and 1024 (largest batch over smallest local batch: 32 GPUs).
std::shared_ptr<const GoodputApplication> Hand(const char* name, double step) {
  PolluxModelProfile p;
  p.model = name;
  for (const char* where : {"1", "2", "4"}) {
    p.placements.push_back(PolluxPlacementRow{where, 32, step, 0});
    p.placements.push_back(PolluxPlacementRow{where, 64, 2 * step, 0});
  }
  p.scalability = {PolluxScalabilityRow{2, 8, 32, 2 * step, step}, PolluxScalabilityRow{2, 8, 64, 3 * step, step}};
  p.validation[32] = {PolluxValidationRow{100, 100, 0.5, 1, 1}};
  p.validation[1024] = {PolluxValidationRow{10, 3, 0.5, 1, 3}};
  auto app = GoodputApplication::Create(std::move(p));
  EXPECT_TRUE(app.ok()) << app.status().ToString();
  return *app;
}

// A job with a model on the slow type (4-GPU nodes) only; the fast type (8-GPU nodes) is twice as
// fast on one GPU. Without projection the fast type offers one GPU, at the row's smallest value;
// with it, every fast configuration of k GPUs is worth twice the model's goodput at k GPUs on
// ceil(k / 4) slow nodes, and the fast type may use as many GPUs as the slow one.
TEST(SiaProblemTest, GoodputsPerTypeAndProjectedOntoATypeWithoutAModel) {
  TestCluster c({{kSlow, 4}, {kFast, 8}});
  const std::vector<NodeGroup> groups = GroupNodes(c.cluster());
  const std::vector<SiaConfig> configs = Configurations(groups);
  ASSERT_EQ(Triples(configs), (std::vector<std::tuple<int, int, int>>{
                                  {0, 1, 1}, {0, 1, 2}, {0, 1, 4}, {1, 1, 1}, {1, 1, 2}, {1, 1, 4}, {1, 1, 8}}));
  const auto slow_app = Hand("toy", 0.1), fast_app = Hand("toy", 0.05);
  EXPECT_DOUBLE_EQ(slow_app->single_gpu_throughput(), 320);
  EXPECT_DOUBLE_EQ(fast_app->single_gpu_throughput(), 640);
  GoodputJobView view;
  view.application = slow_app.get();
  view.grad = GradientStats{1, 3};
  ThroughputParams params;
  params.alpha_c = 0.02;
  params.beta_c = 0.003;
  view.types = {GoodputTypeView{groups[0].type, slow_app.get(), 4, params}, GoodputTypeView{groups[1].type, fast_app.get(), 0, {}}};
  const std::vector<bool> allowed = {true, true};
  const GoodputModel model(params, GradientStats{1, 3}, 32);
  BatchLimits limits;
  limits.max_batch_size = 1024;
  limits.min_atomic_bsz = 32;
  limits.max_atomic_bsz = 64;
  limits.accumulation = true;
  // The unit: the smallest of the slow type's goodputs (two GPUs on a node, here: the larger batch
  // they pick costs more statistical efficiency than the second GPU brings).
  double unit = model.Optimize(1, 1, limits).goodput;
  for (int k : {2, 4}) unit = std::min(unit, model.Optimize(1, k, limits).goodput);
  auto at = [](const std::vector<SiaOption>& row, int group, int gpus) {
    for (const SiaOption& o : row) {
      if (o.group == group && o.gpus == gpus) return o.goodput;
    }
    return -1.0;
  };

  GoodputRowSettings plain;
  plain.project = false;
  const std::vector<SiaOption> own = GoodputOptions(view, groups, configs, allowed, plain);
  ASSERT_EQ(own.size(), configs.size());
  for (int k : {1, 2, 4}) EXPECT_DOUBLE_EQ(at(own, 0, k), model.Optimize(1, k, limits).goodput / unit) << k;
  EXPECT_DOUBLE_EQ(at(own, 1, 1), 1);
  EXPECT_DOUBLE_EQ(at(own, 1, 2), kZeroAllocGain);
  EXPECT_DOUBLE_EQ(at(own, 1, 8), kZeroAllocGain);

  const std::vector<SiaOption> projected = GoodputOptions(view, groups, configs, allowed, GoodputRowSettings{});
  for (int k : {1, 2, 4}) EXPECT_DOUBLE_EQ(at(projected, 0, k), at(own, 0, k)) << k;
  for (int k : {1, 2, 4}) EXPECT_DOUBLE_EQ(at(projected, 1, k), 2 * at(projected, 0, k)) << k;
  // 8 GPUs: within the shared limit (the slow type's: twice 4 measured), on two slow nodes.
  EXPECT_DOUBLE_EQ(at(projected, 1, 8), 2 * model.Optimize(2, 8, limits).goodput / unit);

  // Before the job measured itself anywhere: one GPU on each type, nothing projected.
  view.types[0].params.reset();
  const std::vector<SiaOption> none = GoodputOptions(view, groups, configs, allowed, GoodputRowSettings{});
  EXPECT_DOUBLE_EQ(at(none, 0, 1), 1);
  EXPECT_DOUBLE_EQ(at(none, 1, 1), 1);
  EXPECT_DOUBLE_EQ(at(none, 1, 2), kZeroAllocGain);
  // A type the job may not use is not offered.
  const std::vector<SiaOption> slow_only = GoodputOptions(view, groups, configs, {true, false}, GoodputRowSettings{});
  EXPECT_EQ(at(slow_only, 1, 1), -1.0);
}

// sia-plus's parts [REC] by hand.
TEST(SiaProblemTest, SiaPlusPricedFactorAndPriorOptions) {
  // Sia's form with the change's own price, a young job not exempt.
  EXPECT_DOUBLE_EQ(PricedFactor(100, 2, 30), 40.0 / 130);
  EXPECT_DOUBLE_EQ(PricedFactor(20, 0, 30), 20.0 / 50);  // Sia: 1 (younger than its penalty)
  EXPECT_DOUBLE_EQ(PricedFactor(20, 5, 10), 0);
  EXPECT_DOUBLE_EQ(PricedFactor(990, 0, 10), 0.99);
  // Before a job has measured itself: its configurations up to its user's 4 GPUs, worth GPUs x the
  // type's one-GPU throughput (320 and 640 samples/s), normalised to the smallest (1 slow GPU).
  TestCluster c({{kSlow, 4}, {kFast, 8}});
  const std::vector<NodeGroup> groups = GroupNodes(c.cluster());
  const std::vector<SiaConfig> configs = Configurations(groups);
  const auto slow_app = Hand("toy", 0.1), fast_app = Hand("toy", 0.05);
  GoodputJobView view;
  view.application = slow_app.get();
  view.types = {GoodputTypeView{groups[0].type, slow_app.get(), 0, {}}, GoodputTypeView{groups[1].type, fast_app.get(), 0, {}}};
  std::vector<std::tuple<int, int, double>> got;
  for (const SiaOption& o : PriorOptions(view, groups, configs, {true, true}, 4)) got.emplace_back(o.group, o.gpus, o.goodput);
  EXPECT_EQ(got, (std::vector<std::tuple<int, int, double>>{{0, 1, 1}, {0, 2, 2}, {0, 4, 4}, {1, 1, 2}, {1, 2, 4}, {1, 4, 8}}));
  got.clear();
  for (const SiaOption& o : PriorOptions(view, groups, configs, {false, true}, 0)) got.emplace_back(o.group, o.gpus, o.goodput);
  EXPECT_EQ(got, (std::vector<std::tuple<int, int, double>>{{1, 1, 1}}));  // at least one GPU; the unit is the fast one
}

// An elastic change inside a group: keep the job's own GPUs where it holds most, take room beside.
TEST(SiaProblemTest, SiaPlusResizeWithinByHand) {
  // Grow 2 (node 1) to 4 on one node: node 1 has room for 2 more.
  EXPECT_EQ(ResizeWithin({0, 2, 0}, {4, 2, 4}, 4, 1), (std::vector<int>{0, 4, 0}));
  // Grow 2 to 8 on one 8-GPU node: node 1 holds 2 and has room for 3 only: no such change.
  EXPECT_TRUE(ResizeWithin({0, 2, 0}, {8, 3, 8}, 8, 1).empty());
  // Grow 8 (node 0, whole) to 16 on two nodes: node 0 and the node with the most room (2).
  EXPECT_EQ(ResizeWithin({8, 0, 0}, {0, 5, 8}, 16, 2), (std::vector<int>{8, 0, 8}));
  // Shrink 16 on two nodes to 8 on one: the lower of the two equal nodes keeps all 8.
  EXPECT_EQ(ResizeWithin({8, 0, 8}, {0, 5, 0}, 8, 1), (std::vector<int>{8, 0, 0}));
  // Shrink 3 + 1 to 2: the node where it holds most.
  EXPECT_EQ(ResizeWithin({1, 3}, {0, 0}, 2, 1), (std::vector<int>{0, 2}));
  // A job holding nothing in the group cannot change there elastically.
  EXPECT_TRUE(ResizeWithin({0, 0}, {4, 4}, 2, 1).empty());
}

// The elastic group's options other than the job's last are weighed with the elastic factor. One
// 4-GPU group; job A had 2 GPUs (its option 1) and changes at factor 0.5 (restart) or 0.95
// (elastic): 4 GPUs 3.61 -> x 0.5: 1.805 -> 0.74, x 0.95: 3.43 -> 0.54; staying at 2: 1.96 -> 0.71.
TEST(SiaProblemTest, SiaPlusElasticFactorInTheIntegerProgram) {
  SiaJobRow a;
  a.options = {{0, 1, 1}, {0, 2, 1.96}, {0, 4, 3.61}};
  a.previous = 1;
  a.realloc_factor = 0.5;
  auto choice = SolveRound({4}, {a}, SiaSettings{});
  ASSERT_TRUE(choice.ok()) << choice.status().ToString();
  EXPECT_EQ(*choice, (std::vector<int>{1}));
  a.elastic_group = 0;
  a.elastic_factor = 0.95;
  choice = SolveRound({4}, {a}, SiaSettings{});
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(*choice, (std::vector<int>{2}));
}

// sia-plus's lean toward the jobs nearest their end. Time left 100, 400, none, 1600 and 10 s: the
// median of the four reported is the lower middle one, 100. k = 0.5: 10 s weighs (10/100)^-0.5 =
// 3.162; 400 and 1600 ((4)^-0.5, (16)^-0.5) are held up at 1; no report: 1. k = 1: 10 s weighs 10,
// held at 4. k = 0: Sia's weights.
TEST(SiaProblemTest, SiaPlusWeightsByTimeLeft) {
  auto rows_with = [](std::vector<double> left) {
    std::vector<SiaJobRow> rows(left.size());
    for (size_t i = 0; i < left.size(); ++i) rows[i].remaining_s = left[i];
    return rows;
  };
  std::vector<SiaJobRow> rows = rows_with({100, 400, 0, 1600, 10});
  WeighByRemaining(rows, 0.5);
  const double expected[] = {1, 1, 1, 1, std::sqrt(10.0)};
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_NEAR(rows[i].weight, expected[i], 1e-12) << i;
  rows = rows_with({100, 400, 0, 1600, 10});
  WeighByRemaining(rows, 1);
  EXPECT_EQ(rows[4].weight, 4);
  rows = rows_with({100, 400, 0, 1600, 10});
  WeighByRemaining(rows, 0);
  for (const SiaJobRow& r : rows) EXPECT_EQ(r.weight, 1);
  rows = rows_with({0, 0});
  WeighByRemaining(rows, 0.5);
  for (const SiaJobRow& r : rows) EXPECT_EQ(r.weight, 1);
}

// The two jobs of TheIntegerProgramByHand, A weighing 4: A 4 GPUs alone 4 x (0.53 - 1.1) = -2.28
// beats A 2 + B 2, 4 x (0.71 - 1.1) + (0.83 - 1.1) = -1.83 (unweighted, A 2 + B 2 won).
TEST(SiaProblemTest, SiaPlusWeightInTheIntegerProgram) {
  SiaJobRow a, b;
  a.options = {{0, 1, 1}, {0, 2, 1.96}, {0, 4, 3.61}};
  b.options = {{0, 1, 1}, {0, 2, 1.44}, {0, 4, 1.69}};
  a.weight = 4;
  auto choice = SolveRound({4}, {a, b}, SiaSettings{});
  ASSERT_TRUE(choice.ok()) << choice.status().ToString();
  EXPECT_EQ(*choice, (std::vector<int>{2, -1}));
}

}  // namespace
}  // namespace hetsched::sia_internal
