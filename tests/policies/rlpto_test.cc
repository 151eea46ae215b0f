#include "hetsched/policies/rlpto/rlpto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>
#include <unistd.h>  // getpid: a path of its own beside concurrent test runs

#include "fake_backend.h"
#include "hetsched/learn/allocation_agent.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/sha256.h"

namespace hetsched {
namespace {

using ::testing::ElementsAre;
using test::kFast;
using test::kSlow;
using test::PolicyHarness;

TEST(RlptoConvergenceTest, Golden) {
  ConvergenceModel m;  // b = 0.5, f0 = 0.01, epsilon = 0.1
  // L(f) = (f + 0.01)^-0.5: L(0) = 10, L(1) = 1/sqrt(1.01) = 0.99503719.
  // acc(0.5) = (10 - 1/sqrt(0.51)) / (10 - 0.99503719) = (10 - 1.40028008) / 9.00496281 = 0.95499783.
  EXPECT_DOUBLE_EQ(m.Accuracy(0), 0);
  EXPECT_DOUBLE_EQ(m.Accuracy(1), 1);
  EXPECT_NEAR(m.Accuracy(0.5), 0.95499783, 1e-8);
  // acc(f*) = 0.9: L(f*) = 10 - 0.9 x 9.00496281 = 1.89553347, f* = 1.89553347^-2 - 0.01 = 0.26831530.
  EXPECT_NEAR(m.ConvergingFraction(), 0.26831530, 1e-8);
  EXPECT_NEAR(m.Accuracy(m.ConvergingFraction()), 0.9, 1e-12);
}

TEST(RlptoTest, MinimumGpus) {
  EXPECT_EQ(MinimumGpus(8, 0.25), 2);
  EXPECT_EQ(MinimumGpus(3, 0.25), 1);  // ceil(0.75)
  EXPECT_EQ(MinimumGpus(1, 0.25), 1);
  EXPECT_EQ(MinimumGpus(8, 1), 8);
}

// Job 1 (4 GPUs, 100 iterations at 1 s each on the fake planner) converges at 26.83 s. With job
// 2 waiting it halves to 2 GPUs at the next round (30 s), paying a restart, and job 2 starts.
TEST(RlptoTest, ConvergingJobGivesGpusBack) {
  PolicyHarness h({{kFast, 4}}, "rlpto", {"round=30"});
  h.Submit(1, 4, 0, 100);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1,2,3]"));
  h.Submit(2, 1, 5, 100);
  h.ScheduleAt(5);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
  h.ScheduleAt(30);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 1 on [0,1]", "start 2 on [2]"));
}

// The same with job 1 elastic on a back end that resizes: it halves in place (no preemption, its
// first two devices kept) and job 2 starts on a device it gave back. A back end that cannot
// resize (the Slurm agent) gets the preemption and restart of the rigid case.
TEST(RlptoTest, ElasticConvergingJobShrinksInPlace) {
  for (const bool resizes : {true, false}) {
    PolicyHarness h({{kFast, 4}}, "rlpto", {"round=30"});
    if (resizes) h.backend().resize_pause_s = 10;
    h.Submit(1, 4, 0, 100);
    h.backend().mutable_spec(1).elastic = true;
    h.ScheduleAt(0);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1,2,3]"));
    h.Submit(2, 1, 5, 100);
    h.ScheduleAt(30);
    if (resizes) {
      EXPECT_THAT(h.TakeLog(), ElementsAre("resize 1 to [0,1]", "start 2 on [2]"));
      EXPECT_EQ(h.backend().job_status(1).preemptions, 0);
    } else {
      EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 1 on [0,1]", "start 2 on [2]"));
    }
  }
}

// Shrinking never goes below the job's minimum: min_share 0.5 of 8 GPUs = 4; however many rounds
// pass with a job waiting, job 1 halves once (8 -> 4, for job 2) and then keeps 4.
TEST(RlptoTest, ShrinkingNeverBelowTheMinimum) {
  PolicyHarness h({{kFast, 8}}, "rlpto", {"round=10", "min_share=0.5"});
  h.Submit(1, 8, 0, 1000);
  h.ScheduleAt(0);
  h.Submit(2, 4, 1, 10);  // fits once job 1 is at its minimum
  h.Submit(3, 8, 2, 10);  // cannot fit while job 1 holds any GPU: keeps a job waiting
  int min_held = 8;
  for (double t = 10; t <= 900; t += 10) {
    h.ScheduleAt(t);
    if (h.state(1) == JobState::kRunning) min_held = std::min(min_held, h.backend().job_status(1).num_devices());
  }
  EXPECT_EQ(min_held, 4);
  EXPECT_EQ(h.backend().job_status(1).preemptions, 1);
  EXPECT_EQ(h.state(2), JobState::kRunning);
}

// A shrink that cannot start any waiting job is not done: job 2 needs all 8 GPUs, job 1 can give
// back at most 4 (its minimum is 4), so job 1 keeps its 8 GPUs and is never restarted.
TEST(RlptoTest, NoShrinkThatStartsNothing) {
  PolicyHarness h({{kFast, 8}}, "rlpto", {"round=10", "min_share=0.5"});
  h.Submit(1, 8, 0, 1000);
  h.ScheduleAt(0);
  h.Submit(2, 8, 1, 10);
  for (double t = 10; t <= 900; t += 10) h.ScheduleAt(t);
  EXPECT_EQ(h.backend().job_status(1).num_devices(), 8);
  EXPECT_EQ(h.backend().job_status(1).preemptions, 0);
}

// A starving job that does not fit holds one type; jobs behind it start on the others. Job 3
// (4 GPUs) waits for a whole node and starves from 31 s (3 levels x 10 s); job 4 (1 GPU) arrives
// behind it and starts on the type job 3 does not hold; job 5 finds only the held type free and
// waits. (Before, nothing behind a starving job started.)
TEST(RlptoTest, StarvingJobHoldsOneTypeOnly) {
  PolicyHarness h({{kFast, 4}, {kSlow, 4}}, "rlpto", {"age=10", "shrink=false"});
  h.Submit(1, 3, 0, 100000);
  h.Submit(2, 3, 0, 100000);
  h.ScheduleAt(0);
  ASSERT_EQ(h.state(1), JobState::kRunning);
  ASSERT_EQ(h.state(2), JobState::kRunning);
  h.Submit(3, 4, 1, 100);
  for (double t = 1; t <= 41; t += 10) h.ScheduleAt(t);
  h.Submit(4, 1, 45, 100);
  h.ScheduleAt(45);
  EXPECT_EQ(h.state(3), JobState::kPending);
  EXPECT_EQ(h.state(4), JobState::kRunning);
  h.Submit(5, 1, 50, 100);
  h.ScheduleAt(50);
  EXPECT_EQ(h.state(5), JobState::kPending);
  h.Finish(1, 60);
  h.Finish(2, 60);
  h.ScheduleAt(60);
  EXPECT_EQ(h.state(3), JobState::kRunning);
}

TEST(RlptoTest, NoShrinkWithoutWaitingJobs) {
  PolicyHarness h({{kFast, 4}}, "rlpto", {"round=30"});
  h.Submit(1, 4, 0, 100);
  h.ScheduleAt(0);
  h.TakeLog();
  h.ScheduleAt(30);
  h.ScheduleAt(60);
  EXPECT_THAT(h.TakeLog(), ElementsAre());
}

TEST(RlptoTest, CountChoicesGolden) {
  // Request 8, minimum 2: min 2, half ceil(8 / 2) = 4, request 8, twice 16.
  EXPECT_EQ(RlptoCount(0, 8, 2), 2);
  EXPECT_EQ(RlptoCount(1, 8, 2), 4);
  EXPECT_EQ(RlptoCount(2, 8, 2), 8);
  EXPECT_EQ(RlptoCount(3, 8, 2), 16);
  // Request 3, minimum 3 (min_share 1): half = max(3, ceil(1.5) = 2) = 3, never below the minimum.
  EXPECT_EQ(RlptoCount(1, 3, 3), 3);
  EXPECT_EQ(RlptoCount(0, 1, 1), 1);
  // Action indices: 1 + slot x 4 + count choice; then yield: 14 in all (13 for legacy agents).
  EXPECT_EQ(RlptoAction(0, 0), 1);
  EXPECT_EQ(RlptoAction(2, 3), 12);
  EXPECT_EQ(kRlptoYield, 13);
  EXPECT_EQ(kRlptoActions, 14);
  EXPECT_EQ(kRlptoLegacyActions, 13);
}

std::vector<float> State(std::initializer_list<std::pair<RlptoFeature, float>> values,
                         std::initializer_list<std::pair<int, std::pair<float, float>>> slots) {
  std::vector<float> s(kRlptoStateDim, 0.0f);
  for (const auto& [f, v] : values) s[static_cast<size_t>(f)] = v;
  for (const auto& [k, speed_free] : slots) {
    s[static_cast<size_t>(RlptoFeature::kSlotSpeed) + static_cast<size_t>(k)] = speed_free.first;
    s[static_cast<size_t>(RlptoFeature::kSlotFree) + static_cast<size_t>(k)] = speed_free.second;
  }
  return s;
}

TEST(RlptoTest, HeuristicGolden) {
  using F = RlptoFeature;
  // Waiting job; slot 0 (speed 1) has room for half its request, slot 1 (speed 0.5) for all of
  // it: its request on slot 1 = action 1 + 1 x 4 + 2 = 7.
  EXPECT_EQ(RlptoHeuristicAction(State({}, {{0, {1.0f, 0.5f}}, {1, {0.5f, 1.0f}}})), 7);
  // Room on the fastest: action 1 + 0 + 2 = 3. No room anywhere: wait (0).
  EXPECT_EQ(RlptoHeuristicAction(State({}, {{0, {1.0f, 2.0f}}, {1, {0.5f, 1.0f}}})), 3);
  EXPECT_EQ(RlptoHeuristicAction(State({}, {{0, {1.0f, 0.9f}}, {1, {0.5f, 0.0f}}})), 0);
  // Running on its request on a type at speed 0.5 with 2 h left (log10(7201) / 6 = 0.643):
  // slot 0 is 2x faster and has room: move (action 3). Converging, or only 0.5 h left
  // (log10(1801) / 6 = 0.543), or held speed 0.9 (< 1.25x): keep (0).
  const auto running = [&](float converging, float remaining, float held_speed) {
    return State({{F::kRunning, 1.0f}, {F::kHeldShare, 1.0f}, {F::kConverging, converging}, {F::kRemaining, remaining},
                  {F::kHeldSpeed, held_speed}},
                 {{0, {1.0f, 1.0f}}, {1, {0.5f, 1.0f}}});
  };
  EXPECT_EQ(RlptoHeuristicAction(running(0, 0.643f, 0.5f)), 3);
  EXPECT_EQ(RlptoHeuristicAction(running(1, 0.643f, 0.5f)), 0);
  EXPECT_EQ(RlptoHeuristicAction(running(0, 0.543f, 0.5f)), 0);
  EXPECT_EQ(RlptoHeuristicAction(running(0, 0.643f, 0.9f)), 0);
  // Yielding (only with yield = true): a job it keeps yields (action 13) when queue 0's head is
  // blocked and both its service and its time since its start have reached the thresholds
  // (shares >= 1); a move comes first; a waiting job never yields.
  const auto kept = [&](float head_blocked, float service, float run) {
    std::vector<float> s = running(1, 0.643f, 0.5f);  // converging: kept
    s[static_cast<size_t>(F::kHeadBlocked)] = head_blocked;
    s[static_cast<size_t>(F::kServiceShare)] = service;
    s[static_cast<size_t>(F::kRunShare)] = run;
    return s;
  };
  EXPECT_EQ(RlptoHeuristicAction(kept(1, 1.0f, 1.0f), true), kRlptoYield);
  EXPECT_EQ(RlptoHeuristicAction(kept(1, 1.0f, 1.0f), false), 0);
  EXPECT_EQ(RlptoHeuristicAction(kept(0, 2.0f, 2.0f), true), 0);
  EXPECT_EQ(RlptoHeuristicAction(kept(1, 0.99f, 2.0f), true), 0);
  EXPECT_EQ(RlptoHeuristicAction(kept(1, 2.0f, 0.99f), true), 0);
  std::vector<float> moving = running(0, 0.643f, 0.5f);
  moving[static_cast<size_t>(F::kHeadBlocked)] = 1;
  moving[static_cast<size_t>(F::kServiceShare)] = 2;
  moving[static_cast<size_t>(F::kRunShare)] = 2;
  EXPECT_EQ(RlptoHeuristicAction(moving, true), 3);
  std::vector<float> waiting = State({{F::kHeadBlocked, 1.0f}}, {{0, {1.0f, 0.5f}}});
  EXPECT_EQ(RlptoHeuristicAction(waiting, true), 0);
}

// Agents of both shapes load: the current one (26 features, 14 actions, with yield) and the
// legacy one (23, 13: the shipped agent's); any other shape is refused by name.
TEST(RlptoTest, AgentShapes) {
  const std::string dir = ::testing::TempDir();
  for (const auto& [dim, actions, ok] : {std::tuple{kRlptoStateDim, kRlptoActions, true},
                                         std::tuple{kRlptoLegacyStateDim, kRlptoLegacyActions, true},
                                         std::tuple{kRlptoLegacyStateDim, kRlptoActions, false},
                                         std::tuple{kRlptoStateDim + 1, kRlptoActions, false}}) {
    learn::AllocationAgentConfig config;
    config.state_dim = dim;
    config.actions = actions;
    auto agent = learn::AllocationAgent::Create(config);
    ASSERT_TRUE(agent.ok()) << agent.status().ToString();
    const std::string path = dir + "/hetsched_rlpto_shape_" + std::to_string(dim) + "_" + std::to_string(actions) + ".bin";
    ASSERT_TRUE(agent->Save(path).ok());
    auto options = Options::Parse({"model=" + path});
    ASSERT_TRUE(options.ok());
    auto made = Registry<JobScheduler>::Instance().Create("rlpto", *options);
    EXPECT_EQ(made.ok(), ok) << dim << " x " << actions;
    if (!ok) {
      EXPECT_THAT(made.status().message(), ::testing::HasSubstr("was not trained for rlpto")) << dim;
    }
  }
}

// With a measured profile, a type it did not measure for the job is ranked by the model's speed
// scaled into the profile's units (ProfiledSpeeds, as the gavel-* policies): the fake planner
// models fast 1 it/s and slow 0.5 it/s, the profile measures the job on slow only, at 10 steps/s
// (20 x the model), so fast ranks at 20 steps/s and the heuristic starts the job there (device
// 0). Unscaled, fast's 1 against slow's measured 10 sent it to the slow GPU (device 1).
// A one-row Gavel throughput table (job type toyjob on 1 GPU of `gpu_type`, 10 steps/s) in a
// temporary file named `name`; returns its path.
std::string WriteOneRowProfile(const std::string& name, const std::string& gpu_type) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream out(path);
  out << "gpu_type,consolidated,job_type,scale_factor,steps_per_second\n" << gpu_type << ",no,toyjob,1,10\n";
  return path;
}

TEST(RlptoTest, ProfileScalesUnmeasuredTypesIntoItsUnits) {
  const std::string path = WriteOneRowProfile("rlpto_profile.csv", "slow-gpu");
  PolicyHarness h({{kFast, 1}, {kSlow, 1}}, "rlpto", {"allocation=heuristic", "profile=" + path});
  h.SubmitNamed(1, "toyjob", 1, 1000000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0]"));
}

// A profile naming a GPU type the cluster's catalog lacks ends the run with the file's name
// (it was dropped silently, and the types ranked by the model alone).
TEST(RlptoTest, ProfileWithAnUnknownTypeEndsTheRun) {
  const std::string path = WriteOneRowProfile("rlpto_bad_profile.csv", "no-such-gpu");
  PolicyHarness h({{kFast, 1}, {kSlow, 1}}, "rlpto", {"allocation=heuristic", "profile=" + path});
  h.SubmitNamed(1, "toyjob", 1, 1000000);
  const Status error = h.ctx().TakeError();
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.message().find("rlpto_bad_profile.csv"), std::string::npos) << error.ToString();
}

// allocation=heuristic: job 1 (2 GPUs) goes to the fast type (1 s vs 2 s per iteration); job 2
// (2 GPUs) finds the fast node full and starts on the slow one, and so does job 3. When job 1
// ends, both are reconsidered at the next round tick (60 s): job 2 stays (1,000 iterations x
// 1 s on the fast type = 1,000 s left, under an hour), job 3 (8,000 s left, and the fast type
// 2x faster with room for its 2 GPUs) moves there.
TEST(RlptoTest, HeuristicPicksTheFastTypeAndMovesLongJobsUp) {
  PolicyHarness h({{kFast, 2}, {kSlow, 4}}, "rlpto", {"round=60", "allocation=heuristic", "shrink=false"});
  h.Submit(1, 2, 0, 100);
  h.Submit(2, 2, 0, 1000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "start 2 on [2,3]"));
  h.Submit(3, 2, 1, 8000);
  h.ScheduleAt(1);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [4,5]"));
  h.Finish(1, 50);
  h.ScheduleAt(50);
  EXPECT_THAT(h.TakeLog(), ElementsAre());  // running jobs are reconsidered at round ticks only
  h.ScheduleAt(60);
  EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 3", "start 3 on [0,1]"));
}

// Yielding (docs/rlpto.md): job 1 (2 GPUs, ~28 h) holds both devices when job 2 (1 GPU, 100 s,
// high priority: queue 0) arrives. Rounds every 600 s; job 1 may yield once it has run
// yield_after = 1,800 s and attained yield_service = 1 GPU-h (3,600 GPU-s): at 600 s it has run
// 600 s (1,200 GPU-s), at 1,200 s 1,200 s, at 1,800 s 1,800 s and 2 x 1,800 = 3,600 GPU-s, so it
// is preempted there and job 2 starts on a device it gave back; job 1 (re-queued in a lower
// queue: normal priority, large) needs 2 and waits until job 2 ends at 1,900 s. Without `yield`,
// nothing moves; with it, a job that runs alone is never asked to yield.
TEST(RlptoTest, YieldingGolden) {
  for (const bool yield : {true, false}) {
    PolicyHarness h({{kFast, 2}}, "rlpto",
                    {"round=600", "allocation=heuristic", "shrink=false", yield ? "yield=true" : "yield=false", "yield_service=1",
                     "yield_after=1800"});
    h.Submit(1, 2, 0, 100000);
    h.ScheduleAt(0);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
    h.Submit(2, 1, 10, 100, 0, {}, /*priority=*/1);
    for (double t : {10.0, 600.0, 1200.0}) {
      h.ScheduleAt(t);
      EXPECT_THAT(h.TakeLog(), ElementsAre()) << t;
    }
    h.ScheduleAt(1800);
    if (!yield) {
      EXPECT_THAT(h.TakeLog(), ElementsAre());
      continue;
    }
    EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0]"));
    h.Finish(2, 1900);
    h.ScheduleAt(1900);
    EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
    h.ScheduleAt(3600);  // alone, past both thresholds again: no job waits, so it keeps its devices
    h.ScheduleAt(7200);
    EXPECT_THAT(h.TakeLog(), ElementsAre());
  }
}

// A teacher that never yields (RlptoTraining::teacher_yield = false, E2's warm start): the same
// case as YieldingGolden with yield=true, the heuristic acting for an agent of the yielding
// shape (imitation data): with teacher_yield it yields job 1 at 1800 s and records action 13
// there; without, nothing moves and no decision is a yield, although the scheduler's option is on.
//
// For an agent of the legacy shape (23 features, 13 actions: no yield action) the teacher's
// label is a keep and the scheduler's rule yields what it keeps; without teacher_yield it does not.
TEST(RlptoTest, TeacherWithoutYieldGolden) {
  for (const bool legacy : {false, true}) {
    learn::AllocationAgentConfig config;
    config.state_dim = legacy ? kRlptoLegacyStateDim : kRlptoStateDim;
    config.actions = legacy ? kRlptoLegacyActions : kRlptoActions;
    auto agent = learn::AllocationAgent::Create(config);
    ASSERT_TRUE(agent.ok()) << agent.status().ToString();
    auto shared = std::make_shared<learn::AllocationAgent>(std::move(agent).value());
    for (const bool teacher_yield : {true, false}) {
      const std::vector<std::string> opts{"round=600", "shrink=false", "yield=true", "yield_service=1", "yield_after=1800"};
      PolicyHarness h({{kFast, 2}}, "rlpto", opts);
      RlptoTrajectory trajectory;
      RlptoTraining training;
      training.agent = shared;
      training.act_by_teacher = true;
      training.teacher_yield = teacher_yield;
      training.trajectory = &trajectory;
      auto options = Options::Parse(opts);
      ASSERT_TRUE(options.ok());
      auto made = MakeRlptoScheduler(*options, training);
      ASSERT_TRUE(made.ok()) << made.status().ToString();
      h.SetScheduler(std::move(made).value());
      h.Submit(1, 2, 0, 100000);
      h.ScheduleAt(0);
      h.Submit(2, 1, 10, 100, 0, {}, /*priority=*/1);
      for (double t : {10.0, 600.0, 1200.0}) h.ScheduleAt(t);
      EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]"));
      h.ScheduleAt(1800);
      const long long yields = std::count(trajectory.teacher_actions.begin(), trajectory.teacher_actions.end(), kRlptoYield);
      if (teacher_yield) {
        EXPECT_THAT(h.TakeLog(), ElementsAre("preempt 1", "start 2 on [0]")) << legacy;
        EXPECT_EQ(yields, legacy ? 0 : 1);  // the legacy shape has no yield label: the rule yielded
      } else {
        EXPECT_THAT(h.TakeLog(), ElementsAre()) << legacy;
        EXPECT_EQ(yields, 0);
      }
      EXPECT_EQ(trajectory.actions, trajectory.teacher_actions);  // the teacher acted
    }
  }
}

// Shrinking never drops a job below its minimum, whoever allocates: the rule, the heuristic or
// an (untrained, random) agent, whose actions include "the minimum" and "half the request" for
// running and waiting jobs. Random job streams on a 2-type cluster; after every call, every
// running job holds at least MinimumGpus(request, min_share).
TEST(RlptoTest, PropertyNeverBelowTheMinimum) {
  const std::string model =
      (std::filesystem::temp_directory_path() / ("hetsched_rlpto_property_agent_" + std::to_string(::getpid()) + ".bin")).string();
  long long restarts = 0;  // the property is exercised: jobs were shrunk or moved
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    learn::AllocationAgentConfig config;
    config.state_dim = kRlptoStateDim;
    config.actions = kRlptoActions;
    config.seed = seed;
    auto agent = learn::AllocationAgent::Create(config);
    ASSERT_TRUE(agent.ok()) << agent.status().ToString();
    ASSERT_TRUE(agent->Save(model).ok());
    Rng rng(seed);
    const double min_share = 0.25 + 0.25 * static_cast<double>(rng.Below(4));  // 0.25 .. 1
    const std::string share = "min_share=" + std::to_string(min_share);
    for (const std::vector<std::string>& options :
         {std::vector<std::string>{"round=20", share}, std::vector<std::string>{"round=20", share, "allocation=heuristic"},
          std::vector<std::string>{"round=20", share, "model=" + model},
          std::vector<std::string>{"round=20", share, "allocation=heuristic", "yield=true", "yield_service=0.01", "yield_after=20", "age=30"},
          std::vector<std::string>{"round=20", share, "model=" + model, "yield=true", "age=30"}}) {
      PolicyHarness h({{kFast, 8}, {kSlow, 8}}, "rlpto", options);
      std::map<JobId, int> request;
      JobId next = 1;
      for (double t = 0; t <= 2000; t += 10) {
        if (rng.Below(3) == 0) {
          const int gpus = 1 << rng.Below(4);  // 1, 2, 4, 8
          request[next] = gpus;
          h.Submit(next++, gpus, t, 50 + static_cast<int64_t>(rng.Below(400)));
        }
        // Jobs end when their iterations are done at the rate they run.
        for (const auto& [id, req] : request) {
          const JobStatus& s = h.backend().job_status(id);
          if (s.state == JobState::kRunning && s.iterations_done + s.iteration_rate * (t - s.last_start_s) >= static_cast<double>(s.spec->iterations)) {
            h.Finish(id, t);
          }
        }
        h.ScheduleAt(t);
        for (const auto& [id, req] : request) {
          const JobStatus& s = h.backend().job_status(id);
          if (s.state == JobState::kRunning) {
            ASSERT_GE(s.num_devices(), MinimumGpus(req, min_share)) << "seed " << seed << " job " << id << " at " << t;
          }
        }
      }
      long long preempted = 0;
      for (const auto& [id, req] : request) preempted += h.backend().job_status(id).preemptions;
      restarts += preempted;
      if (std::find(options.begin(), options.end(), "yield=true") != options.end()) {
        EXPECT_GT(preempted, 0) << "seed " << seed << ": the yielding variant never yielded";
      }
    }
  }
  std::filesystem::remove(model);
  EXPECT_GT(restarts, 0);
}

// Per-job credit (RlptoTrajectory): each decision is linked to the next about the same job, and
// a job's rewards over its chain add up to its whole reward. 4 fast GPUs, round 30 s, the
// heuristic acting. Job 1 (2 GPUs, high priority: omega 3) starts at 0 and ends at 50; job 2
// (4 GPUs, omega 2) waits at 0 and 30, starts at 50 and ends at 80. Decisions: 0: job 1 (start),
// 1: job 2 (start: the states are built before any action, with 4 GPUs free; job 1 starts first
// and job 2 no longer fits); at 30 (a round tick): 2: job 1 (keep), 3: job 2 (wait: 2 free);
// at 50: 4: job 2 (start).
// Job 1's total: time -0.5 x 3 x 50 / 3600 = -0.02083333, GPUs -0.3 x 2 x 50 / (4 x 3600) =
// -0.00208333, accuracy +3 (all of it by its end), done +3: 5.97708333.
// Job 2's total: time -0.5 x 2 x 80 / 3600 = -0.02222222, GPUs -0.3 x 4 x 30 / (4 x 3600) =
// -0.0025, accuracy +2, done +2: 3.97527778.
//
// With congestion_share 0.5 (the default), half of job 2's waiting time from 0 to 30 (while job 1
// holds the only GPUs in use), 0.5 x 0.00833333 = 0.00416667, moves from job 2 to job 1:
// 5.97291667 and 3.97944444, the same sum.
void RunCreditScenario(const std::string& share, RlptoTrajectory& trajectory) {
  PolicyHarness h({{kFast, 4}}, "rlpto", {"round=30"});
  RlptoTraining training;
  training.trajectory = &trajectory;
  training.act_by_teacher = true;
  auto options = Options::Parse({"round=30", "congestion_share=" + share});
  ASSERT_TRUE(options.ok());
  auto made = MakeRlptoScheduler(*options, training);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  h.SetScheduler(std::move(made).value());
  h.Submit(1, 2, 0, 1000, 0, {}, 1);
  h.Submit(2, 4, 0, 1000, 0, {}, 0);
  h.ScheduleAt(0);
  h.ScheduleAt(30);
  h.Finish(1, 50);
  h.ScheduleAt(50);
  h.Finish(2, 80);
}

TEST(RlptoTest, PerJobCreditChainsGolden) {
  RlptoTrajectory trajectory;
  RunCreditScenario("0", trajectory);
  EXPECT_THAT(trajectory.job, ElementsAre(1, 2, 1, 2, 2));
  EXPECT_THAT(trajectory.next_decision, ElementsAre(2, 3, -1, 4, -1));
  EXPECT_EQ(trajectory.actions[0], RlptoAction(0, 2));  // job 1: its request on its fastest slot
  EXPECT_EQ(trajectory.actions[1], RlptoAction(0, 2));  // no room left when applied
  EXPECT_EQ(trajectory.actions[2], 0);                  // job 1 keeps
  EXPECT_EQ(trajectory.actions[3], 0);                  // job 2 waits: 2 GPUs free
  EXPECT_EQ(trajectory.actions[4], RlptoAction(0, 2));
  double job1 = 0, job2 = 0;
  for (size_t i = 0; i < trajectory.job.size(); ++i) (trajectory.job[i] == 1 ? job1 : job2) += trajectory.job_reward[i];
  EXPECT_NEAR(job1, 5.97708333, 1e-8);
  EXPECT_NEAR(job2, 3.97527778, 1e-8);
  // Job 2 waiting from 0 to 30 pays only its time: -0.5 x 2 x 30 / 3600.
  EXPECT_NEAR(trajectory.job_reward[1], -0.00833333, 1e-8);

  RlptoTrajectory shared;
  RunCreditScenario("0.5", shared);
  EXPECT_EQ(shared.next_decision, trajectory.next_decision);
  double shared1 = 0, shared2 = 0;
  for (size_t i = 0; i < shared.job.size(); ++i) (shared.job[i] == 1 ? shared1 : shared2) += shared.job_reward[i];
  EXPECT_NEAR(shared1, 5.97291667, 1e-8);
  EXPECT_NEAR(shared2, 3.97944444, 1e-8);
  EXPECT_NEAR(shared.job_reward[1], -0.00416667, 1e-8);
}

// Type-competition credit (option type_share): job 1 (2 GPUs) holds the only fast node's 2
// GPUs, job 2 (2 GPUs) runs on the slow type at half the speed (the fast type has no room). Over
// 0..30 s job 2's time term is -0.5 x 2 x 30 / 3600 = -0.01666667 x 0.5 = -0.00833333; it lost
// half of it (speed 0.5): with type_share 1 that half, 0.00416667, is charged to job 1 (the
// holder of its fastest type) instead. Nothing waits (congestion_share has nothing to move).
void RunTypeCreditScenario(const std::string& share, RlptoTrajectory& trajectory) {
  PolicyHarness h({{kFast, 2}, {kSlow, 4}}, "rlpto", {"round=60"});
  RlptoTraining training;
  training.trajectory = &trajectory;
  training.act_by_teacher = true;
  auto options = Options::Parse({"round=60", "shrink=false", "type_share=" + share});
  ASSERT_TRUE(options.ok());
  auto made = MakeRlptoScheduler(*options, training);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  h.SetScheduler(std::move(made).value());
  h.Submit(1, 2, 0, 1000);
  h.Submit(2, 2, 0, 1000);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "start 2 on [2,3]"));
  h.ScheduleAt(30);
}

TEST(RlptoTest, TypeCompetitionCreditGolden) {
  RlptoTrajectory none, full;
  RunTypeCreditScenario("0", none);
  RunTypeCreditScenario("1", full);
  ASSERT_THAT(none.job, ElementsAre(1, 2));
  ASSERT_THAT(full.job, ElementsAre(1, 2));
  EXPECT_NEAR(full.job_reward[0] - none.job_reward[0], -0.00416667, 1e-8);
  EXPECT_NEAR(full.job_reward[1] - none.job_reward[1], 0.00416667, 1e-8);
  // The cluster's reward is the same.
  ASSERT_EQ(none.rewards.size(), full.rewards.size());
  for (size_t i = 0; i < none.rewards.size(); ++i) EXPECT_EQ(none.rewards[i], full.rewards[i]);
  auto bad = Options::Parse({"type_share=1.5"});
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(MakeRlptoScheduler(*bad).ok());
}

// The shipped agents (data/models/, docs/rlpto.md "Shipped agent") load with their checksums
// checked; a copy with one byte changed is refused, and the message says why.
class ShippedAgentTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedAgentTest, Checksum) {
  const std::string shipped = std::string(HETSCHED_SOURCE_DIR) + "/data/models/" + GetParam();
  auto bytes = ReadFile(shipped);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto sidecar = ReadFile(shipped + ".sha256");
  ASSERT_TRUE(sidecar.ok()) << sidecar.status().ToString();
  EXPECT_EQ(sidecar->substr(0, 64), Sha256Hex(*bytes));
  auto options = Options::Parse({"model=" + shipped});
  ASSERT_TRUE(options.ok());
  auto made = Registry<JobScheduler>::Instance().Create("rlpto", *options);
  EXPECT_TRUE(made.ok()) << made.status().ToString();

  const std::string dir =
      (std::filesystem::temp_directory_path() / ("hetsched_rlpto_checksum_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  std::string corrupted = *bytes;
  corrupted[corrupted.size() / 2] = static_cast<char>(corrupted[corrupted.size() / 2] ^ 0x01);
  ASSERT_TRUE(WriteFileAtomic(dir + "/agent.bin", corrupted).ok());
  ASSERT_TRUE(WriteFileAtomic(dir + "/agent.bin.sha256", *sidecar).ok());
  auto bad = Options::Parse({"model=" + dir + "/agent.bin"});
  ASSERT_TRUE(bad.ok());
  auto refused = Registry<JobScheduler>::Instance().Create("rlpto", *bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("SHA-256 checksum mismatch"), std::string::npos) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find(sidecar->substr(0, 64)), std::string::npos) << refused.status().ToString();
  // The untouched file with a wrong checksum given as an option is refused too.
  auto wrong = Options::Parse({"model=" + shipped, "model_sha256=" + std::string(64, '0')});
  ASSERT_TRUE(wrong.ok());
  EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("rlpto", *wrong).ok());
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(RlptoTest, ShippedAgentTest,
                         ::testing::Values("rlpto_agent_e2_seed1.bin", "rlpto_agent_e2_yield_seed1.bin"));

TEST(RlptoTest, BadOptions) {
  for (const char* bad : {"round=0", "min_share=0", "min_share=1.5", "epsilon=1", "loss_exponent=0", "reserve=2",
                          "window=0", "moves=-1", "model=/nonexistent/agent.bin", "shrink=maybe", "allocation=greedy",
                          "profile=/nonexistent/throughputs.csv", "yield=sometimes", "yield_service=-1",
                          "yield_after=-5", "yield_after=inf"}) {
    auto options = Options::Parse({bad});
    ASSERT_TRUE(options.ok());
    EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("rlpto", *options).ok()) << bad;
  }
}

}  // namespace
}  // namespace hetsched
