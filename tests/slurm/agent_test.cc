// The Slurm agent without daemons: FakeSlurm (fake_slurm.h) answers its commands, FakeClock
// gives its time. Decision -> pin -> release, following jobs to the end, a failing job, a node
// going down, bad jobs left alone, Slurm unreachable, and restarts after a crash at every
// command of a run (nothing lost, nothing pinned or started twice).
#include "hetsched/slurm/agent.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../common/device_zero_planner.h"
#include "fake_slurm.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/registry.h"

namespace hetsched::slurm {
namespace {

using testing::FakeCrash;
using testing::FakeSlurm;

// The journal lives in memory-backed storage when there is some: each record is fsynced.
std::string JournalPath(const std::string& name) {
  const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : ::testing::TempDir();
  const std::string path = base + "/hetsched_agent_test_" + std::to_string(getpid()) + "_" + name + ".jsonl";
  std::filesystem::remove(path);
  return path;
}

AgentMethods Methods() { return std::move(CreateAgentMethods()).value(); }

int CountEvents(const std::string& journal, const std::string& event, JobId id) {
  auto j = Journal::Open(journal, nullptr);
  EXPECT_TRUE(j.ok());
  int n = 0;
  for (const JournalRecord& r : j->replayed()) n += r.event == event && r.job == id ? 1 : 0;
  return n;
}

class AgentTest : public ::testing::Test {
 protected:
  AgentTest() : slurm(clock) { slurm.AddNodes(2, 2); }  // 2 x 4 A100 + 2 x 8 V100 = 24 GPUs
  ~AgentTest() override { std::filesystem::remove(journal); }

  void StartAgent(int release_batch = AgentOptions{}.release_batch, AgentMethods methods = Methods()) {
    agent.reset();
    AgentOptions o;
    o.journal_path = journal;
    o.release_batch = release_batch;
    o.report = [this](const std::string& m) { reports.push_back(m); };
    auto started = Agent::Start(slurm, clock, ModelZoo::BuiltIn(), std::move(methods), o);
    ASSERT_TRUE(started.ok()) << started.status().message();
    agent = std::move(started).value();
  }
  // One agent poll, a second later.
  void Step() {
    clock.SleepS(1);
    ASSERT_TRUE(agent->Step().ok());
  }
  AgentJobView View(JobId id) const {
    for (const AgentJobView& v : agent->Jobs()) {
      if (v.id == id) return v;
    }
    ADD_FAILURE() << "agent does not know job " << id;
    return {};
  }
  int Reported(const std::string& needle) const {
    return static_cast<int>(std::count_if(reports.begin(), reports.end(),
                                          [&](const std::string& m) { return m.find(needle) != std::string::npos; }));
  }

  FakeClock clock{1.8e9};
  FakeSlurm slurm;
  std::string journal = JournalPath(::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::vector<std::string> reports;
  std::unique_ptr<Agent> agent;
};

TEST_F(AgentTest, DecisionPinsEachJobAndReleasesTheBatchInOneCommand) {
  const long long a = slurm.Submit("a100:2"), v = slurm.Submit("v100:8"), any = slurm.Submit("1");
  ASSERT_NO_FATAL_FAILURE(StartAgent(/*release_batch=*/8));
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(agent->counts().admitted, 3);
  EXPECT_EQ(agent->counts().released, 3);
  for (long long id : {a, v, any}) {
    SCOPED_TRACE("job " + std::to_string(id));
    EXPECT_EQ(slurm.Count("update", id), 1);
    EXPECT_EQ(slurm.Count("release", id), 1);
    // Pinned exactly where the agent says it placed the job.
    EXPECT_EQ(slurm.jobs.at(id).pinned, View(id).nodes);
    EXPECT_EQ(View(id).phase, "released");
    EXPECT_EQ(CountEvents(journal, "place", id), 1);
    EXPECT_EQ(CountEvents(journal, "release", id), 1);
  }
  EXPECT_EQ(View(a).type, "a100-40gb");
  EXPECT_EQ(View(v).type, "v100-16gb");
  // One release command for the three (the batch limit is 8).
  int releases = 0;
  for (const auto& argv : slurm.log) releases += argv.size() > 1 && argv[1] == "release" ? 1 : 0;
  EXPECT_EQ(releases, 1);
  // A per-job count of 2 on one node is rewritten exactly as 2 per node.
  for (const auto& argv : slurm.log) {
    if (argv.size() > 2 && argv[1] == "update" && argv[2] == "JobId=" + std::to_string(a)) {
      EXPECT_NE(std::find(argv.begin(), argv.end(), "TresPerNode=gres:gpu:a100:2"), argv.end());
      EXPECT_NE(std::find(argv.begin(), argv.end(), "TresPerJob="), argv.end());
    }
  }
  EXPECT_EQ(agent->release_latencies_s().size(), 3u);
  EXPECT_TRUE(slurm.violations.empty()) << slurm.violations.front();
}

TEST_F(AgentTest, ByDefaultEachJobIsPinnedAndReleasedAtOnce) {
  const long long a = slurm.Submit("1"), b = slurm.Submit("1");
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  // update a, release a, update b, release b: each job's release does not wait for the other's pin.
  std::vector<std::string> verbs;
  for (const auto& argv : slurm.log) {
    if (argv[0] == "scontrol") verbs.push_back(argv[1] + " " + (argv[1] == "update" ? argv[2].substr(6) : argv[2]));
  }
  const std::string sa = std::to_string(a), sb = std::to_string(b);
  EXPECT_EQ(verbs, (std::vector<std::string>{"update " + sa, "release " + sa, "update " + sb, "release " + sb}));
}

TEST_F(AgentTest, FollowsJobsToCompletionAndKeepsTheTimeline) {
  slurm.Submit("a100:2");
  slurm.Submit("v100:8");
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(agent->counts().running, 2);
  slurm.EndAllRunning();
  ASSERT_NO_FATAL_FAILURE(Step());
  const AgentCounts c = agent->counts();
  EXPECT_EQ(c.finished, 2);
  EXPECT_EQ(c.failed, 0);
  EXPECT_EQ(c.running + c.released + c.pending, 0);
  const RunRecord run = agent->Record();
  ASSERT_EQ(run.jobs.size(), 2u);
  for (const JobRecord& j : run.jobs) EXPECT_TRUE(j.finished());
  // Timeline: busy 2 A100 + 8 V100 = 10 devices while both ran, 0 at the end.
  ASSERT_GE(run.timeline.size(), 2u);
  int peak = 0;
  ASSERT_EQ(run.timeline_busy_by_type.size(), run.timeline.size() * run.device_types.size());
  for (size_t i = 0; i < run.timeline.size(); ++i) {
    const TimelineSample& s = run.timeline[i];
    peak = std::max(peak, s.busy_devices);
    int by_type = 0;
    for (int b : run.BusyByType(i)) by_type += b;
    EXPECT_EQ(by_type, s.busy_devices);
  }
  EXPECT_EQ(peak, 10);
  EXPECT_EQ(run.timeline.back().busy_devices, 0);
  EXPECT_EQ(run.timeline.back().running_jobs, 0);
  ASSERT_EQ(run.device_types.size(), 2u);  // a100-40gb, v100-16gb: the peak sample shows 2 and 8
  bool seen_split = false;
  for (size_t i = 0; i < run.timeline.size(); ++i) {
    const std::span<const int> row = run.BusyByType(i);
    seen_split = seen_split || (run.timeline[i].busy_devices == 10 && std::vector<int>(row.begin(), row.end()) ==
                                                                          std::vector<int>{2, 8});
  }
  EXPECT_TRUE(seen_split);
}

// The run record holds one job, finished, with submit <= first start <= finish.
void ExpectOneJobFinishedWithOrderedTimes(const RunRecord& run) {
  ASSERT_EQ(run.jobs.size(), 1u);
  EXPECT_TRUE(run.jobs[0].finished());
  EXPECT_GE(run.jobs[0].first_start_s, run.jobs[0].submit_s);
  EXPECT_GE(run.jobs[0].finish_s, run.jobs[0].first_start_s);
}

// Slurm's times are whole seconds; a job seen running without a start time (Slurm showed none)
// gets a start on that base, so that its Slurm end (same second) is not before it.
TEST_F(AgentTest, StartSeenWithoutSlurmTimeStaysOnSlurmsWholeSecondBase) {
  const long long id = slurm.Submit("1");
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_EQ(View(id).phase, "released");
  testing::FakeJob& j = slurm.jobs.at(id);
  j.state = "RUNNING";
  j.reason = "None";
  j.nodes = j.pinned;
  j.start = 0;  // squeue prints N/A
  clock.SleepS(1.6);
  ASSERT_TRUE(agent->Step().ok());
  ASSERT_EQ(View(id).phase, "running");
  slurm.End(id);  // in the same second: squeue prints its end truncated to that second
  ASSERT_TRUE(agent->Step().ok());
  ExpectOneJobFinishedWithOrderedTimes(agent->Record());
}

// The agent starts mid-second; a job it releases, and that runs and ends, within that second has
// Slurm times (whole seconds, truncated) before the agent's clock: the run record must still
// show it started and finished, after its submission.
TEST_F(AgentTest, JobRunWithinTheAgentsFirstSecondIsRecordedAsFinished) {
  const long long id = slurm.Submit("1");
  clock.SleepS(0.5);
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_TRUE(agent->Step().ok());
  ASSERT_EQ(View(id).phase, "released");
  slurm.StartReleased();
  slurm.End(id);
  ASSERT_TRUE(agent->Step().ok());
  ASSERT_EQ(View(id).final_state, "COMPLETED");
  ExpectOneJobFinishedWithOrderedTimes(agent->Record());
}

TEST_F(AgentTest, FailingJobIsReportedAndNotRestarted) {
  const long long id = slurm.Submit("1");
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.End(id, "FAILED", 256);
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(agent->counts().finished, 1);
  EXPECT_EQ(agent->counts().failed, 1);
  EXPECT_EQ(View(id).final_state, "FAILED");
  EXPECT_EQ(Reported("job " + std::to_string(id) + " ended FAILED (exit code 256): not restarted"), 1);
  EXPECT_EQ(slurm.Count("release", id), 1);
  EXPECT_EQ(slurm.jobs.at(id).runs, 1);
  // A failed job is not a completion in the run record.
  EXPECT_FALSE(agent->Record().jobs.at(0).finished());
}

TEST_F(AgentTest, NodeDownRequeuesTheJobAndPlacesItOnANodeThatIsUp) {
  const long long id = slurm.Submit("a100:4");  // a whole A100 node
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_EQ(View(id).phase, "running");
  const std::string first = View(id).nodes.at(0);
  slurm.NodeDown(first);
  ASSERT_NO_FATAL_FAILURE(Step());
  // Held again, then placed on the other A100 node and released.
  EXPECT_EQ(slurm.Count("hold", id), 1);
  EXPECT_EQ(slurm.Count("update", id), 2);
  EXPECT_EQ(slurm.Count("release", id), 2);
  const AgentJobView v = View(id);
  EXPECT_EQ(v.requeues, 1);
  EXPECT_EQ(v.placements, 2);
  ASSERT_EQ(v.nodes.size(), 1u);
  EXPECT_NE(v.nodes[0], first);
  EXPECT_EQ(v.type, "a100-40gb");
  EXPECT_EQ(Reported("requeued"), 1);
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.EndAllRunning();
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(View(id).final_state, "COMPLETED");
  EXPECT_EQ(slurm.jobs.at(id).runs, 2);  // once per Slurm start: the first run died with the node
  EXPECT_EQ(agent->counts().requeued, 1);
  EXPECT_TRUE(slurm.violations.empty()) << slurm.violations.front();
  // The down node's devices are out of service: the timeline never counts them busy for a job.
  EXPECT_EQ(agent->Record().timeline.back().busy_devices, 0);
}

TEST_F(AgentTest, BadJobsAreReportedOnceAndLeftAlone) {
  const long long unknown_type = slurm.Submit("h100x:1");
  const long long bad_model = slurm.Submit("1", "hetsched model=no-such-model");
  const long long bad_field = slurm.Submit("1", "hetsched iterations=many");
  const long long too_big = slurm.Submit("a100:16");  // the cluster has 8 A100
  const long long other_partition = slurm.Submit("1");
  slurm.jobs.at(other_partition).partition = "debug";
  const long long not_held = slurm.Submit("1");
  slurm.jobs.at(not_held).reason = "Priority";
  const long long good = slurm.Submit("1", "free text; $(touch x) hetsched model=resnet50", "name | with $(bars)\n");
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(agent->counts().rejected, 4);
  EXPECT_EQ(agent->counts().admitted, 1);
  for (long long id : {unknown_type, bad_model, bad_field, too_big}) {
    SCOPED_TRACE("job " + std::to_string(id));
    EXPECT_EQ(Reported("rejected (left held in Slurm)"), 4);
    EXPECT_EQ(CountEvents(journal, "reject", id), 1);
  }
  for (long long id : {unknown_type, bad_model, bad_field, too_big, other_partition, not_held}) {
    for (const char* verb : {"update", "release", "hold"}) EXPECT_EQ(slurm.Count(verb, id), 0) << verb << " " << id;
    EXPECT_EQ(slurm.jobs.at(id).reason, id == not_held ? "Priority" : "JobHeldUser");
  }
  EXPECT_EQ(slurm.Count("release", good), 1);
  // Free text arrives intact (names and comments are fetched as data, never parsed as fields).
  const RunRecord run = agent->Record();
  ASSERT_EQ(run.jobs.size(), 1u);
  EXPECT_EQ(run.jobs[0].name, "name | with $(bars)\n");
  // A restarted agent knows it rejected them: not reported again, still not touched.
  reports.clear();
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Reported("rejected"), 0);
  EXPECT_EQ(agent->counts().rejected, 4);
  EXPECT_EQ(slurm.Count("update", unknown_type), 0);
}

TEST_F(AgentTest, SlurmUnreachableIsReportedOnceAndRetried) {
  const long long id = slurm.Submit("1");
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  slurm.unreachable = 3;
  for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Reported("Slurm unreachable (will retry)"), 1);
  EXPECT_EQ(agent->counts().admitted, 0);
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Reported("Slurm reachable again"), 1);
  EXPECT_EQ(slurm.Count("release", id), 1);
}

TEST_F(AgentTest, PollAnswerNotUnderstoodIsReportedAsSuchNamingTheField) {
  const long long id = slurm.Submit("1");
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  slurm.bad_time_polls = 2;
  for (int i = 0; i < 2; ++i) ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Reported("Slurm unreachable"), 0);
  EXPECT_EQ(Reported("Slurm's answer not understood (will retry)"), 1);
  EXPECT_EQ(Reported("field 'StartTime': 'yesterday' is not a time"), 1);
  EXPECT_EQ(agent->counts().admitted, 0);
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(slurm.Count("release", id), 1);
}

TEST_F(AgentTest, RefusedPinLeavesTheJobHeldAndPendingForTheNextDecision) {
  const long long id = slurm.Submit("1");
  slurm.refuse_update.insert(id);
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(slurm.Count("release", id), 0);
  EXPECT_EQ(View(id).phase, "pending");
  EXPECT_EQ(View(id).placements, 0);
  EXPECT_EQ(CountEvents(journal, "unplace", id), 1);
  EXPECT_EQ(Reported("failed: exit 1: Requested node configuration is not available"), 1);
  slurm.refuse_update.clear();
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(slurm.Count("release", id), 1);
  EXPECT_EQ(View(id).placements, 1);
}

TEST_F(AgentTest, RestartFinishesJobsThatEndedOrVanishedWhileTheAgentWasAway) {
  const long long done = slurm.Submit("1"), gone = slurm.Submit("1"), held = slurm.Submit("a100:4");
  const long long waiting = slurm.Submit("a100:8");  // needs both A100 nodes: waits for `held`
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  agent.reset();  // stopped
  slurm.End(done);
  slurm.End(gone);
  slurm.Purge(gone);
  ASSERT_NO_FATAL_FAILURE(StartAgent());
  EXPECT_EQ(View(done).final_state, "COMPLETED");
  EXPECT_EQ(View(gone).final_state, "VANISHED");
  EXPECT_EQ(View(held).phase, "running");
  EXPECT_EQ(View(waiting).phase, "pending");
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.EndAllRunning();
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.EndAllRunning();
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(agent->counts().finished, 4);
  for (long long id : {done, gone, held, waiting}) EXPECT_EQ(slurm.Count("release", id), 1) << "job " << id;
  EXPECT_TRUE(slurm.violations.empty()) << slurm.violations.front();
}

// Kill the agent at each command of a run in turn, before it runs or once Slurm carried it out
// (as kill -9 would: the journal has what the agent wrote), restart it, and finish the run: every
// job completes once, none is pinned while released, released without a pin, or started twice.
TEST_F(AgentTest, CrashAtAnyCommandThenRestartLosesNothingAndStartsNothingTwice) {
  auto run_with_crash_at = [&](long long crash_at, bool once_done, long long* commands) {
    SCOPED_TRACE("crash " + std::string(once_done ? "after" : "before") + " command " + std::to_string(crash_at));
    FakeSlurm s(clock);
    s.AddNodes(2, 2);
    std::vector<long long> ids;
    for (const char* g : {"a100:4", "a100:4", "a100:4", "v100:8", "2", "v100:3", "1"}) ids.push_back(s.Submit(g));
    s.crash_after = crash_at;
    s.crash_once_done = once_done;
    const std::string path = JournalPath("crash");
    std::unique_ptr<Agent> a;
    int crashes = 0;
    AgentOptions o;
    o.journal_path = path;
    o.release_batch = 3;
    for (int round = 0; round < 60; ++round) {
      try {
        if (!a) {
          auto started = Agent::Start(s, clock, ModelZoo::BuiltIn(), Methods(), o);
          ASSERT_TRUE(started.ok()) << started.status().message();
          a = std::move(started).value();
        }
        clock.SleepS(1);
        ASSERT_TRUE(a->Step().ok());
      } catch (const FakeCrash&) {
        a.reset();
        ++crashes;
        s.StartReleased();  // Slurm goes on while the agent is down
        continue;
      }
      if (a->counts().finished == static_cast<long long>(ids.size())) break;
      // Slurm's own progress between polls: jobs released start, jobs running end.
      s.EndAllRunning();
      s.StartReleased();
    }
    ASSERT_TRUE(a != nullptr);
    EXPECT_EQ(crashes, crash_at > 0 ? 1 : 0);
    EXPECT_TRUE(s.violations.empty()) << s.violations.front();
    EXPECT_EQ(a->counts().admitted, static_cast<long long>(ids.size()));
    EXPECT_EQ(a->counts().finished, static_cast<long long>(ids.size()));
    EXPECT_EQ(a->counts().failed, 0);
    for (long long id : ids) {
      EXPECT_EQ(s.jobs.at(id).state, "COMPLETED") << "job " << id;
      EXPECT_EQ(s.jobs.at(id).runs, 1) << "job " << id;
      // Released in Slurm once, journaled as released exactly once: a release Slurm carried out
      // just before the kill is journaled by the restarted agent.
      EXPECT_EQ(s.Count("release", id), 1) << "job " << id;
      EXPECT_EQ(CountEvents(path, "release", id), 1) << "job " << id;
    }
    *commands = s.commands_run;
    std::filesystem::remove(path);
  };
  long long total = 0;
  run_with_crash_at(0, false, &total);  // no crash: how many commands a whole run takes
  ASSERT_GT(total, 10);
  for (bool once_done : {false, true}) {
    for (long long k = 1; k <= total && !HasFailure(); ++k) {
      long long ignored = 0;
      run_with_crash_at(k, once_done, &ignored);
    }
  }
}

// Issue 20, item 7: jobs running when the agent restarts are shown to the policy
// (JobScheduler::OnJobRunning), which counts and may preempt them. Two A100 nodes are held by
// long jobs that reached Tiresias-LAS's second queue (4 GPUs x 1,000 s > 3,600 GPU-s); the agent
// is killed and restarted; a new 4-GPU A100 job (queue 0) must preempt one of them. Before the
// hook the restored jobs were hidden from the policy, so nothing could be preempted and the new
// job waited for one of them to end.
TEST_F(AgentTest, JobsRunningAtRestartAreCountedAndPreemptedByThePolicy) {
  const long long first = slurm.Submit("a100:4"), second = slurm.Submit("a100:4");
  ASSERT_NO_FATAL_FAILURE(StartAgent(1, std::move(CreateAgentMethods("tiresias-las")).value()));
  ASSERT_NO_FATAL_FAILURE(Step());
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_EQ(agent->counts().running, 2);
  clock.SleepS(1000);
  agent.reset();  // killed: the journal has what it wrote
  const long long fresh = slurm.Submit("a100:4");
  ASSERT_NO_FATAL_FAILURE(StartAgent(1, std::move(CreateAgentMethods("tiresias-las")).value()));
  EXPECT_EQ(agent->counts().running, 2);
  ASSERT_NO_FATAL_FAILURE(Step());
  const int preempted_first = slurm.Count("requeuehold", first), preempted_second = slurm.Count("requeuehold", second);
  EXPECT_EQ(preempted_first + preempted_second, 1) << "one restored job makes room for the new one";
  const long long victim = preempted_first == 1 ? first : second;
  const long long survivor = victim == first ? second : first;
  EXPECT_EQ(View(fresh).phase, "released");
  EXPECT_EQ(View(victim).phase, "pending");
  EXPECT_EQ(CountEvents(journal, "requeue", victim), 1);
  // The new job goes where the victim was; then everything runs to its end, exactly once.
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(View(fresh).phase, "running");
  EXPECT_EQ(slurm.jobs.at(fresh).nodes, slurm.jobs.at(victim).pinned);
  for (int i = 0; i < 6 && agent->counts().finished < 3; ++i) {
    slurm.EndAllRunning();
    ASSERT_NO_FATAL_FAILURE(Step());
    slurm.StartReleased();
    ASSERT_NO_FATAL_FAILURE(Step());
  }
  EXPECT_EQ(agent->counts().finished, 3);
  EXPECT_EQ(agent->counts().failed, 0);
  for (long long id : {first, second, fresh}) {
    SCOPED_TRACE("job " + std::to_string(id));
    EXPECT_EQ(slurm.jobs.at(id).state, "COMPLETED");
    EXPECT_EQ(CountEvents(journal, "finish", id), 1);
    EXPECT_EQ(slurm.jobs.at(id).runs, id == victim ? 2 : 1);
    EXPECT_EQ(slurm.Count("release", id), id == victim ? 2 : 1);
  }
  EXPECT_EQ(slurm.Count("requeuehold", survivor), 0);
  EXPECT_TRUE(slurm.violations.empty()) << slurm.violations.front();
}

// Every registered policy takes a job found running at restart as its own: when Slurm then
// requeues it (its node went down), the policy places it again and it runs to its end once.
// A policy that ignored the job would leave it pending for ever; one that booked it wrongly would
// start it twice or on busy GPUs (FakeSlurm records both).
TEST_F(AgentTest, EveryPolicyPlacesAgainAJobRequeuedAfterItWasRestoredRunning) {
  for (const MethodInfo& policy : Registry<JobScheduler>::Instance().List()) {
    // gavel-fifo never places a job on some clusters (the known livelock, docs/NOTES.md; the
    // property test leaves it out too).
    if (policy.name == "gavel-fifo") continue;
    SCOPED_TRACE("policy " + policy.name);
    FakeSlurm s(clock);
    s.AddNodes(2, 2);
    const long long id = s.Submit("a100:4");
    const std::string path = JournalPath("every_policy");
    AgentOptions o;
    o.journal_path = path;
    auto start = [&]() -> std::unique_ptr<Agent> {
      auto methods = CreateAgentMethods(policy.name);
      EXPECT_TRUE(methods.ok()) << methods.status().message();
      if (!methods.ok()) return nullptr;
      auto started = Agent::Start(s, clock, ModelZoo::BuiltIn(), std::move(methods).value(), o);
      EXPECT_TRUE(started.ok()) << started.status().message();
      return started.ok() ? std::move(started).value() : nullptr;
    };
    // Round-based policies decide at round ticks: a poll every 400 s passes one each time.
    auto step = [&](Agent& a) {
      clock.SleepS(400);
      const Status st = a.Step();
      EXPECT_TRUE(st.ok()) << st.message();
    };
    std::unique_ptr<Agent> a = start();
    ASSERT_NE(a, nullptr);
    // (Under Gavel's mechanism a job waits for the next reset, >= 1,920 s.)
    for (int i = 0; i < 12 && s.jobs.at(id).state != "RUNNING"; ++i) {
      step(*a);
      s.StartReleased();
    }
    ASSERT_EQ(s.jobs.at(id).state, "RUNNING");
    step(*a);
    a.reset();
    a = start();
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->counts().running, 1);
    s.NodeDown(s.jobs.at(id).nodes.front());
    for (int i = 0; i < 12 && a->counts().finished == 0; ++i) {
      step(*a);
      s.StartReleased();
      if (s.jobs.at(id).state == "RUNNING") s.End(id);
    }
    EXPECT_EQ(a->counts().finished, 1);
    EXPECT_EQ(a->counts().requeued, 1);
    EXPECT_EQ(s.jobs.at(id).state, "COMPLETED");
    EXPECT_EQ(s.jobs.at(id).runs, 2);
    EXPECT_EQ(s.Count("release", id), 2);
    EXPECT_TRUE(s.violations.empty()) << s.violations.front();
    a.reset();
    std::filesystem::remove(path);
  }
}

// Issue 20: a start the back end refuses as a fault (here a planner that lays the second job on
// the first job's device) ends the agent with that error; it used to read as "no room", leaving
// the policy and the agent disagreeing about the job. Nothing is pinned for the refused job.
TEST_F(AgentTest, StartFaultInsideThePolicyEndsTheAgentWithTheError) {
  const long long first = slurm.Submit("a100:1");
  const long long second = slurm.Submit("a100:1");
  AgentMethods methods = Methods();
  methods.planner = std::make_unique<testing_util::DeviceZeroPlanner>(std::move(methods.planner));
  ASSERT_NO_FATAL_FAILURE(StartAgent(AgentOptions{}.release_batch, std::move(methods)));
  clock.SleepS(1);
  const Status st = agent->Step();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_EQ(st.message(), "job " + std::to_string(second) + ": device 0 is busy");
  EXPECT_EQ(slurm.Count("release", first), 1);
  EXPECT_EQ(slurm.Count("update", second), 0);
  EXPECT_EQ(slurm.Count("release", second), 0);
}

}  // namespace
}  // namespace hetsched::slurm
