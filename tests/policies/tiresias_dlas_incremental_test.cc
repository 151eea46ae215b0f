// dlas and its variants: the incremental re-plan (the default, replan=incremental) against the
// whole walk of every job at every event (replan=whole), on random workloads with a fixed seed.
// Both run side by side on the same events; every plan (each preemption and start, in order) and
// every wake-up asked must be the same.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fake_backend.h"

namespace hetsched {
namespace {

using test::kFast;
using test::kSlow;
using test::PolicyHarness;

struct RandomJob {
  JobId id;
  int gpus;
  double submit_s;
  double run_s;  // executed seconds until it finishes
  std::vector<DeviceTypeId> allowed;
};

std::vector<RandomJob> RandomJobs(std::mt19937& rng, int n, bool restrict_types) {
  std::vector<RandomJob> jobs;
  double t = 0;
  const int gpus[] = {1, 1, 2, 2, 4, 8};
  for (JobId id = 0; id < n; ++id) {
    t += static_cast<double>(std::uniform_int_distribution<int>(0, 15)(rng));
    RandomJob job{id, gpus[std::uniform_int_distribution<int>(0, 5)(rng)], t,
                  static_cast<double>(std::uniform_int_distribution<int>(1, 150)(rng)), {}};
    if (restrict_types && std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
      job.allowed = {std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? kFast : kSlow};
    }
    jobs.push_back(job);
  }
  return jobs;
}

// Drives both harnesses through the same arrivals, completions (by the whole walk's plan, which
// the other must equal), wake-ups and a few requeues by the back end.
void ExpectSamePlans(const std::vector<std::pair<DeviceTypeId, int>>& nodes, const std::string& policy,
                     std::vector<std::string> options, uint32_t seed, bool restrict_types) {
  SCOPED_TRACE(policy + " seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const std::vector<RandomJob> jobs = RandomJobs(rng, 60, restrict_types);
  PolicyHarness incremental(nodes, policy, options);
  options.push_back("replan=whole");
  PolicyHarness whole(nodes, policy, options);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double now = 0;
  size_t next_job = 0;
  size_t finished = 0;
  int plans_with_changes = 0;
  for (int step = 0; step < 20000 && finished < jobs.size(); ++step) {
    double t = next_job < jobs.size() ? jobs[next_job].submit_s : kInf;
    for (size_t i = 0; i < next_job; ++i) {
      const RandomJob& job = jobs[i];
      if (whole.state(job.id) == JobState::kRunning) {
        t = std::min(t, now + job.run_s - whole.backend().job_status(job.id).ExecutedS(now));
      }
    }
    for (double w : whole.backend().wake_ups) {
      if (w > now + 1e-9) t = std::min(t, w);
    }
    // Nothing left to happen: the jobs left can never start (e.g. 8 GPUs of the type with 6).
    if (!std::isfinite(t)) break;
    now = std::max(now, t);
    for (size_t i = 0; i < next_job; ++i) {
      const RandomJob& job = jobs[i];
      if (whole.state(job.id) == JobState::kRunning &&
          job.run_s - whole.backend().job_status(job.id).ExecutedS(now) <= 1e-9) {
        whole.Finish(job.id, now);
        incremental.Finish(job.id, now);
        ++finished;
      }
    }
    // Now and then the back end gives a running job back (it keeps its place in its queue).
    if (std::uniform_int_distribution<int>(0, 19)(rng) == 0) {
      for (size_t i = 0; i < next_job; ++i) {
        const RandomJob& job = jobs[i];
        if (whole.state(job.id) == JobState::kRunning) {
          whole.Requeue(job.id, now);
          incremental.Requeue(job.id, now);
          break;
        }
      }
    }
    while (next_job < jobs.size() && jobs[next_job].submit_s <= now) {
      const RandomJob& job = jobs[next_job++];
      whole.Submit(job.id, job.gpus, job.submit_s, 1000, 0, job.allowed);
      incremental.Submit(job.id, job.gpus, job.submit_s, 1000, 0, job.allowed);
    }
    whole.ScheduleAt(now);
    incremental.ScheduleAt(now);
    const std::vector<std::string> log = whole.TakeLog();
    ASSERT_EQ(incremental.TakeLog(), log) << "at t=" << now;
    ASSERT_EQ(incremental.backend().wake_ups, whole.backend().wake_ups) << "at t=" << now;
    if (!log.empty()) ++plans_with_changes;
  }
  EXPECT_GE(finished, jobs.size() * 3 / 4);
  EXPECT_GT(plans_with_changes, 20);  // the workloads do exercise the re-plan
}

const std::vector<std::pair<DeviceTypeId, int>> kHomogeneous = {{kFast, 4}, {kFast, 4}, {kFast, 4}};
const std::vector<std::pair<DeviceTypeId, int>> kMixed = {{kFast, 4}, {kSlow, 4}, {kFast, 4}, {kSlow, 2}};

TEST(TiresiasDlasIncrementalTest, SamePlansAsTheWholeWalk) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    for (const char* policy : {"dlas", "dlas-gpu", "dlas-gpu-05", "dlas-gpu-2", "dlas-gpu-pack"}) {
      ExpectSamePlans(kHomogeneous, policy, {"thresholds=30;120", "placement=count"}, seed, false);
      ExpectSamePlans(kHomogeneous, policy, {"thresholds=60;300"}, seed, false);
      ExpectSamePlans(kMixed, policy, {"thresholds=30;120", "placement=count"}, seed, true);
      ExpectSamePlans(kMixed, policy, {"thresholds=40", "starvation=1"}, seed, true);
    }
  }
}

TEST(TiresiasDlasIncrementalTest, RejectsABadReplan) {
  auto parsed = Options::Parse({"replan=sometimes"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(Registry<JobScheduler>::Instance().Create("dlas-gpu", *parsed).ok());
}

}  // namespace
}  // namespace hetsched
