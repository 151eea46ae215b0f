#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched::test {
namespace {

// One dense layer, 1e9 FLOP forward per sample (3e9 with backward), `param_bytes` of gradients.
ModelProfile DenseModel(const std::string& name, double param_bytes) {
  ModelProfile m;
  m.name = name;
  LayerProfile l;
  l.name = "dense";
  l.kind = LayerKind::kDense;
  l.fwd_flops_per_sample = 1e9;
  l.bwd_flops_per_sample = 2e9;
  l.param_bytes = param_bytes;
  l.activation_bytes_per_sample = 1e6;
  m.layers.push_back(l);
  return m;
}

// Fake back end and lowest-id placer (fake_backend.h) with a zoo of a communication-heavy model
// (1 GB of gradients) and a compute-heavy one (1 MB). Servers of fast GPUs: NVLink 120e9 B/s
// effective, 25 GbE 2.5e9 B/s effective (efficiency 0.8).
class GadgetHarness {
 public:
  GadgetHarness(const std::vector<std::pair<DeviceTypeId, int>>& nodes, const std::vector<std::string>& options = {})
      : cluster_(nodes), backend_(cluster_.cluster()) {
    zoo_.Add(DenseModel("heavy-comm", 1e9));
    zoo_.Add(DenseModel("light-comm", 1e6));
    ctx_ = std::make_unique<SchedContext>(backend_, backend_.state(), placer_, planner_, zoo_);
    auto parsed = Options::Parse(options);
    EXPECT_TRUE(parsed.ok());
    auto made = Registry<JobScheduler>::Instance().Create("gadget", *parsed);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    if (made.ok()) scheduler_ = std::move(made).value();
  }
  void Submit(JobId id, const std::string& model, int gpus, int64_t iterations, double t = 0) {
    JobSpec spec;
    spec.id = id;
    spec.model = model;
    spec.num_gpus = gpus;
    spec.iterations = iterations;
    spec.batch_size = 32;
    spec.submit_time_s = t;
    backend_.set_now(t);
    scheduler_->OnJobSubmitted(backend_.AddJob(std::move(spec)), *ctx_);
  }
  std::vector<std::string> ScheduleAt(double t) {
    backend_.set_now(t);
    scheduler_->Schedule(*ctx_);
    EXPECT_TRUE(backend_.state().CheckConsistency().ok());
    std::vector<std::string> out;
    out.swap(backend_.log);
    return out;
  }
  FakeBackend& backend() { return backend_; }

 private:
  TestCluster cluster_;
  FakeBackend backend_;
  FakePlacer placer_;
  FakePlanner planner_;
  ModelZoo zoo_;
  std::unique_ptr<SchedContext> ctx_;
  std::unique_ptr<JobScheduler> scheduler_;
};

// 8 GPUs asked, two servers of 4. Compute 32 x 3e9 / 8e12 + 2 ms = 0.014 s.
// heavy-comm on 4 (one server): tau = 0.014 + 1.5 x 1e9 / 120e9 + 12 us = 0.02651 s, rate
//   4 / (8 x 0.02651) = 18.9 it/s; on 8 over 25 GbE: tau = 0.014 + 1.75 x 1e9 / 2.5e9 + 280 us
//   = 0.7143 s, rate 1.4 it/s. GADGET shrinks the ring to one server.
TEST(GadgetTest, ShrinksACommunicationHeavyRingToOneServer) {
  GadgetHarness h({{kFast, 4}, {kFast, 4}});
  h.Submit(0, "heavy-comm", 8, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 0 on [0,1,2,3]"}));
}

// light-comm on 8 over 25 GbE: tau = 0.014 + 1.75 x 1e6 / 2.5e9 + 280 us = 0.01498 s, rate
//   8 / (8 x 0.01498) = 66.8 it/s, against 4 / (8 x 0.01403) = 35.6 on one server: all 8.
TEST(GadgetTest, SpansServersWhenComputeDominates) {
  GadgetHarness h({{kFast, 4}, {kFast, 4}});
  h.Submit(0, "light-comm", 8, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 0 on [0,1,2,3,4,5,6,7]"}));
}

// Completion-time utility x(w)/R: with 4 GPUs for two 4-GPU jobs, the 100-iteration job's every
// worker is worth 1e4 times more than the 1e6-iteration job's: it takes all four.
TEST(GadgetTest, ShortJobFirstUnderTheCompletionTimeObjective) {
  GadgetHarness h({{kFast, 4}});
  h.Submit(0, "light-comm", 4, 1000000);
  h.Submit(1, "light-comm", 4, 100);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 1 on [0,1,2,3]"}));
  ASSERT_TRUE(h.backend().Finish(1).ok());
}

// Elastic: 6 free GPUs (servers of 4 and 2), two 4-GPU compute-heavy jobs with equal work:
// diminishing returns, so the greedy splits 3 + 3 (the third worker of each is worth more than
// the fourth of either). Job 0 gets [0,1,2]; job 1 is left 1 + 2 free GPUs on two servers: its
// shrink check compares 3 over 25 GbE (tau = 0.014 + 4 x 20e-6 + 4/3 x 1e6 / 2.5e9 = 0.01461 s,
// 3 / 0.01461 = 205 per 4-worker-iteration unit) with 2 on one server (2 / 0.01401 = 143): 3 wins.
TEST(GadgetTest, ElasticSplitsFreeGpusBetweenJobs) {
  GadgetHarness h({{kFast, 4}, {kFast, 2}});
  h.Submit(0, "light-comm", 4, 1000);
  h.Submit(1, "light-comm", 4, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 0 on [0,1,2]", "start 1 on [3,4,5]"}));
}

TEST(GadgetTest, RigidModeRunsJobsAtTheirSizeOnly) {
  GadgetHarness h({{kFast, 4}, {kFast, 2}}, {"elastic=false"});
  h.Submit(0, "light-comm", 4, 1000);
  h.Submit(1, "light-comm", 4, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 0 on [0,1,2,3]"}));
}

TEST(GadgetTest, MaxScaleLetsAJobGrowBeyondItsRequest) {
  GadgetHarness h({{kFast, 4}, {kFast, 4}}, {"max_scale=2"});
  h.Submit(0, "light-comm", 4, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 0 on [0,1,2,3,4,5,6,7]"}));
}

// Fairness (alpha = 1): every job's first worker is worth log(1000) against at most log 2 for
// doubling: three 2-GPU jobs on 3 GPUs get one each.
TEST(GadgetTest, FairnessGivesEveryJobAWorkerFirst) {
  GadgetHarness h({{kFast, 3}}, {"objective=fairness"});
  h.Submit(0, "light-comm", 2, 1000);
  h.Submit(1, "light-comm", 2, 100);
  h.Submit(2, "light-comm", 2, 10);
  EXPECT_EQ(h.ScheduleAt(0).size(), 3u);
}

// Energy: with energy_weight = 1 a second worker must add a whole worker's throughput, which a
// ring never does (communication costs something): one worker only (min_fraction lowered so that
// one worker of four is allowed).
TEST(GadgetTest, EnergyObjectiveRefusesWorkersThatDoNotPayForThemselves) {
  GadgetHarness h({{kFast, 4}}, {"objective=energy", "energy_weight=1", "min_fraction=0.25"});
  h.Submit(0, "light-comm", 4, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 0 on [0]"}));
}

// The default lower bound W_min = ceil(0.5 x 4) = 2: the energy objective cannot go below it.
TEST(GadgetTest, MinFractionBoundsTheShrinking) {
  GadgetHarness h({{kFast, 4}}, {"objective=energy", "energy_weight=1"});
  h.Submit(0, "light-comm", 4, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 0 on [0,1]"}));
}

TEST(GadgetTest, RejectsBadOptions) {
  for (const char* bad : {"objective=speed", "max_scale=0.5", "energy_weight=2", "target_fraction=0", "window=0",
                          "alpha=-1", "min_fraction=0"}) {
    auto parsed = Options::Parse({bad});
    ASSERT_TRUE(parsed.ok());
    EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("gadget", *parsed).ok()) << bad;
  }
}


// Per-slot re-allocation. One server of 4: job 0 (4 GPUs, 1e6 iterations) and job 1 (2 GPUs,
// 1,000 iterations) share it 2 + 2 (W_min = 2 for job 0). When job 1 ends, the next slot grows
// job 0 back to 4 on its own server: rate 4/(4 tau(4)) = 71.30 it/s against 2/(4 tau(2)) =
// 35.68 (T_ring = 2 (w-1) 2 us + 2 (w-1)/w 1e6 / 120e9: tau(2) = 0.014 + 4e-6 + 8.3e-6 =
// 0.0140123 s; tau(4) = 0.014 + 12e-6 + 12.5e-6 = 0.0140245 s), so over the horizon H' = 3600 s
// with a 10 s pause 71.30 x 3590 > 35.68 x 3600.
TEST(GadgetReallocTest, ARingGrowsBackWhenGpusFreeUp) {
  GadgetHarness h({{kFast, 4}});
  h.backend().resize_pause_s = 10;
  h.Submit(0, "light-comm", 4, 1000000);
  h.Submit(1, "light-comm", 2, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 0 on [0,1]", "start 1 on [2,3]"}));
  h.backend().set_now(30);
  ASSERT_TRUE(h.backend().Finish(1).ok());
  EXPECT_EQ(h.ScheduleAt(30), std::vector<std::string>{});  // not a slot boundary (slot = 600 s)
  EXPECT_EQ(h.ScheduleAt(600), (std::vector<std::string>{"resize 0 to [0,1,2,3]"}));
}

TEST(GadgetReallocTest, NoChangeThatDoesNotPayForItselfWithinTheHorizon) {
  // Horizon 15 s, pause 10 s: 71.30 x 5 = 357 < 35.68 x 15 = 535.
  GadgetHarness h({{kFast, 4}}, {"horizon=15"});
  h.backend().resize_pause_s = 10;
  h.Submit(0, "light-comm", 4, 1000000);
  h.Submit(1, "light-comm", 2, 1000);
  h.ScheduleAt(0);
  h.backend().set_now(30);
  ASSERT_TRUE(h.backend().Finish(1).ok());
  EXPECT_EQ(h.ScheduleAt(600), std::vector<std::string>{});
}

TEST(GadgetReallocTest, TheStaticAblationAndABackEndThatCannotResizeLeaveRingsAlone) {
  for (const bool refuse : {false, true}) {
    GadgetHarness h({{kFast, 4}}, refuse ? std::vector<std::string>{} : std::vector<std::string>{"realloc=false"});
    if (!refuse) h.backend().resize_pause_s = 10;  // realloc=false: never asks
    h.Submit(0, "light-comm", 4, 1000000);
    h.Submit(1, "light-comm", 2, 1000);
    h.ScheduleAt(0);
    h.backend().set_now(30);
    ASSERT_TRUE(h.backend().Finish(1).ok());
    EXPECT_EQ(h.ScheduleAt(600), std::vector<std::string>{}) << refuse;
  }
}

// A ring spread over two servers (2 + 2 over 25 GbE: heavy-comm, tau = 0.014 + 1.5 x 1e9 /
// 2.5e9 + ... = 0.614 s) moves onto one server when one frees up (tau(4) on NVLink = 0.0265 s):
// job 2 (2 GPUs) held [0,1] of server 0 when job 0 started on [2,3] + [4,5]; when job 2 ends,
// server 0 holds job 0's 2 workers there and 2 free GPUs: an elastic move to [2,3,0,1].
TEST(GadgetReallocTest, ASpreadRingIsConsolidatedOnOneServer) {
  GadgetHarness h({{kFast, 4}, {kFast, 4}}, {"min_fraction=1"});
  h.backend().resize_pause_s = 10;
  h.Submit(2, "heavy-comm", 2, 1000);
  h.Submit(3, "heavy-comm", 2, 1000);
  EXPECT_EQ(h.ScheduleAt(0), (std::vector<std::string>{"start 2 on [0,1]", "start 3 on [2,3]"}));
  h.Submit(0, "heavy-comm", 4, 1000000, 1);
  h.backend().set_now(1);
  ASSERT_TRUE(h.backend().Finish(3).ok());
  EXPECT_EQ(h.ScheduleAt(1), (std::vector<std::string>{"start 0 on [2,3,4,5]"}));
  h.backend().set_now(50);
  ASSERT_TRUE(h.backend().Finish(2).ok());
  EXPECT_EQ(h.ScheduleAt(600), (std::vector<std::string>{"resize 0 to [2,3,0,1]"}));
}

}  // namespace
}  // namespace hetsched::test
