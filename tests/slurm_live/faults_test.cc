// Faults on a real Slurm cluster: the agent killed (-9) and restarted, slurmctld restarted, a
// node marked down under a running job, a job that fails. Nothing lost, nothing run twice: each
// job script appends one line to a marker file when it ends, and each job must have exactly one.
#include <gtest/gtest.h>

#include "live_cluster.h"

namespace hetsched::slurm::live {
namespace {

const std::vector<std::string> kRequests = {"--gpus=1", "--gpus=2", "--gpus=a100:2", "--gpus=v100:4", "--gpus=4",
                                            "--gpus=v100:8"};

std::vector<long long> SubmitMany(LiveCluster& c, const std::string& script, int n) {
  std::vector<long long> ids;
  for (int i = 0; i < n; ++i) {
    const long long id = c.SubmitHeld({kRequests[static_cast<size_t>(i) % kRequests.size()],
                                       "--comment=hetsched model=resnet50 iterations=100"},
                                      script);
    EXPECT_GT(id, 0);
    ids.push_back(id);
  }
  return ids;
}

void ExpectEachRanOnce(LiveCluster& c, const std::string& marker, const std::vector<long long>& ids) {
  const auto markers = ReadMarkers(marker);
  for (long long id : ids) {
    auto it = markers.find(id);
    ASSERT_NE(it, markers.end()) << "job " << id << " never completed";
    EXPECT_EQ(it->second.size(), 1u) << "job " << id << " ran " << it->second.size() << " times";
  }
  std::map<long long, std::string> states;
  for (const SlurmJob& sj : c.Jobs()) states[sj.id] = sj.state;
  for (long long id : ids) EXPECT_EQ(states[id], "COMPLETED") << "job " << id;
}

TEST(SlurmFaultTest, AgentKilledWithSigkillAndRestarted) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(2, 2));
  const std::string marker = c.work() + "/marker.txt";
  const std::string script = c.MarkerScript("job.sh", marker, 1.5);
  const std::vector<long long> ids = SubmitMany(c, script, 40);
  const std::string journal = c.work() + "/journal.jsonl";
  const std::map<std::string, std::string> env = {{"SLURM_CONF", c.conf()}};
  auto agent_argv = [&](const std::string& out) {
    return std::vector<std::string>{HETSCHED_CLI_PATH, "agent", "--slurm", "--journal", journal, "-o", out,
                                    "--poll", "0.1", "--exit-after-jobs", "40"};
  };
  {
    Child first(agent_argv(c.work() + "/out1"), env, c.work() + "/agent1.log");
    // Kill it mid-run: some jobs released, most not.
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (CountLines(journal, "\"ev\":\"release\"") < 10 && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_GE(CountLines(journal, "\"ev\":\"release\""), 10);
    first.Kill9();
  }
  const int released_before = CountLines(journal, "\"ev\":\"release\"");
  EXPECT_LT(released_before, 40);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // jobs go on (and some end) without an agent
  Child second(agent_argv(c.work() + "/out2"), env, c.work() + "/agent2.log");
  EXPECT_EQ(second.Wait(240), 0) << "the restarted agent did not finish; see its log";
  EXPECT_EQ(CountLines(journal, "\"ev\":\"agent_restart\""), 1);
  // Each job released exactly once over both lives of the agent.
  EXPECT_EQ(CountLines(journal, "\"ev\":\"release\""), 40);
  ExpectEachRanOnce(c, marker, ids);
  // The second life's metrics include the jobs the first life started: 40 rows + header.
  EXPECT_EQ(CountLines(c.work() + "/out2/jobs.csv", ","), 41);
  // ... and `hetsched compare` puts the real run beside a simulation of the same workload.
  PosixCommandRunner plain({}, 120);
  const std::string out = c.work() + "/out2";
  auto cmp = plain.Run({HETSCHED_CLI_PATH, "compare", "--cluster", out + "/cluster.yaml", "--trace",
                        out + "/workload.csv", "--policies", "fifo", "--real-run", out, "-o", c.work() + "/cmp"});
  ASSERT_TRUE(cmp.ok());
  EXPECT_EQ(cmp->exit_code, 0) << cmp->err;
  EXPECT_EQ(CountLines(c.work() + "/cmp/compare.txt", "40/40"), 2) << cmp->out;  // simulated + real
  EXPECT_EQ(CountLines(c.work() + "/cmp/compare.txt", "real:fifo+pack"), 1) << cmp->out;
}

TEST(SlurmFaultTest, SlurmctldRestartedMidRun) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(2, 2));
  const std::string marker = c.work() + "/marker.txt";
  const std::string script = c.MarkerScript("job.sh", marker, 1.0);
  const std::vector<long long> ids = SubmitMany(c, script, 30);
  LiveAgent agent;
  ASSERT_NO_FATAL_FAILURE(agent.Start(c));
  SystemClock& clock = agent.clock;
  std::vector<std::string>& reports = agent.reports;
  PosixCommandRunner plain({}, 60);
  enum { kBefore, kDown, kUp } phase = kBefore;
  double down_at = 0;
  const double deadline = clock.NowS() + 240;
  Status run = agent->Run([&] {
    const AgentCounts k = agent->counts();
    if (phase == kBefore && k.finished >= 5) {
      auto r = plain.Run({Scripts() + "/ctld.sh", c.dir(), "stop"});
      EXPECT_TRUE(r.ok() && r->exit_code == 0);
      phase = kDown;
      down_at = clock.NowS();
    } else if (phase == kDown && clock.NowS() - down_at > 3) {  // the agent polls a dead controller
      auto r = plain.Run({Scripts() + "/ctld.sh", c.dir(), "start"});
      EXPECT_TRUE(r.ok() && r->exit_code == 0) << (r.ok() ? r->err : r.status().message());
      phase = kUp;
    }
    return k.finished >= 30 || clock.NowS() > deadline;
  });
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(phase, kUp);
  EXPECT_EQ(agent->counts().finished, 30);
  EXPECT_EQ(agent->counts().failed, 0);
  bool saw_outage = false;
  for (const auto& m : reports) saw_outage = saw_outage || m.find("Slurm unreachable") != std::string::npos;
  EXPECT_TRUE(saw_outage) << "the agent never noticed slurmctld was down";
  ExpectEachRanOnce(c, marker, ids);
}

TEST(SlurmFaultTest, NodeDownRequeuesItsJobWhichIsPlacedAgain) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(1, 2));
  const std::string marker = c.work() + "/marker.txt";
  // Long enough that the agent's poll sees it running and downs its node before it can end, also
  // on a loaded machine (at 4 s a first run once finished first: two end markers). Its second run,
  // after the requeue, only needs to end: 2 s.
  const std::string long_script = c.MarkerScript("long.sh", marker, 12, 2);
  const long long victim = c.SubmitHeld({"--gpus=v100:8"}, long_script);
  ASSERT_GT(victim, 0);
  LiveAgent agent;
  ASSERT_NO_FATAL_FAILURE(agent.Start(c));
  SystemClock& clock = agent.clock;
  const AgentOptions& o = agent.options;
  std::vector<std::string>& reports = agent.reports;
  std::string downed;  // the node the job first ran on
  const double deadline = clock.NowS() + 120;
  Status run = agent->Run([&] {
    for (const AgentJobView& v : agent->Jobs()) {
      if (v.id == victim && v.phase == "running" && downed.empty()) {
        downed = v.nodes.at(0);
        // DOWN kills and requeues its jobs; the cluster's ReturnToService=2 would bring the node
        // back at once (its slurmd still answers), so it is also drained: it stays out, like a
        // node that really failed.
        CommandResult r = c.Slurm({"scontrol", "update", "NodeName=" + downed, "State=DOWN", "Reason=hetsched-test"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
        r = c.Slurm({"scontrol", "update", "NodeName=" + downed, "State=DRAIN", "Reason=hetsched-test"});
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
    }
    return agent->counts().finished >= 1 || clock.NowS() > deadline;
  });
  ASSERT_TRUE(run.ok()) << run.message();
  ASSERT_FALSE(downed.empty()) << "the job never ran";
  const std::vector<AgentJobView> jobs = agent->Jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].final_state, "COMPLETED");
  EXPECT_EQ(jobs[0].requeues, 1);
  EXPECT_EQ(jobs[0].placements, 2);
  ASSERT_EQ(jobs[0].nodes.size(), 1u);
  EXPECT_NE(jobs[0].nodes[0], downed) << "placed again on the node that is down; journal:\n"
                                      << ReadFile(o.journal_path).value() << "\nsinfo:\n"
                                      << c.Slurm({"sinfo", "-N"}).out;
  EXPECT_EQ(jobs[0].type, "v100-16gb");
  // The killed run never reached its end: exactly one completed run, on the other node.
  const auto markers = ReadMarkers(marker);
  ASSERT_EQ(markers.count(victim), 1u);
  ASSERT_EQ(markers.at(victim).size(), 1u);
  EXPECT_EQ(markers.at(victim)[0], jobs[0].nodes[0]);
  const RunRecord record = agent->Record();
  ASSERT_EQ(record.jobs.size(), 1u);
  EXPECT_EQ(record.jobs[0].preemptions, 1);
  EXPECT_GE(record.jobs[0].gpu_seconds, 8 * 2.0 - 1e-9);  // at least the completed run: 8 GPUs x >= 2 s
  bool reported = false;
  for (const auto& m : reports) reported = reported || (m.find("node " + downed + " is ") != std::string::npos && m.find("no new job goes there") != std::string::npos);
  EXPECT_TRUE(reported) << "the agent did not report the node out of service";
}

TEST(SlurmFaultTest, FailingJobIsReportedAndNotRunAgain) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(1, 1));
  const std::string marker = c.work() + "/marker.txt";
  // Appends its marker, then fails: a second run would append a second line.
  const std::string script = c.work() + "/fails.sh";
  std::ofstream(script) << "#!/bin/bash\necho \"$SLURM_JOB_ID $SLURM_JOB_NODELIST\" >> " << marker << "\nexit 3\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const long long id = c.SubmitHeld({"--gpus=1"}, script);
  ASSERT_GT(id, 0);
  LiveAgent agent;
  ASSERT_NO_FATAL_FAILURE(agent.Start(c));
  SystemClock& clock = agent.clock;
  ASSERT_NO_FATAL_FAILURE(agent.RunWhileProgressing([&] { return agent->counts().finished >= 1; }, 60));
  // Keep polling a little: a failed job must stay finished.
  const double settle = clock.NowS() + 2;
  ASSERT_TRUE(agent->Run([&] { return clock.NowS() > settle; }).ok());
  EXPECT_EQ(agent->counts().failed, 1);
  EXPECT_EQ(agent->Jobs().at(0).final_state, "FAILED");
  EXPECT_EQ(agent->Jobs().at(0).placements, 1);
  EXPECT_EQ(ReadMarkers(marker)[id].size(), 1u);
  const std::vector<std::string> unexpected = agent.Unexpected();
  ASSERT_EQ(unexpected.size(), 1u);
  EXPECT_NE(unexpected[0].find("ended FAILED"), std::string::npos) << unexpected[0];
  EXPECT_FALSE(agent->Record().jobs.at(0).finished());  // a failure is not a completion
}

}  // namespace
}  // namespace hetsched::slurm::live
