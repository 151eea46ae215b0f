// A preempting policy on a real Slurm cluster, with the agent killed (-9) and restarted twice
// (issue 20, item 7). One A100 node (4 GPUs). `long` (4 GPUs, 40 s; 3 s when it runs again after
// its preemption, which only needs to outlast the test's steps the first time) runs past Tiresias-LAS's
// first threshold (20 GPU-s here: 5 s); the agent is killed; `short` (4 GPUs, 3 s) is submitted
// and a second agent starts on the same journal. It must see `long` running (restored, in the
// lower queue) and preempt it (`scontrol requeuehold`) for `short`; it is killed again once the
// preemption is journaled, and a third agent, which finds `short` running and `long` held, runs
// both to their end. Each job script appends one line to a marker file when it ends (a run killed
// by the preemption appends none) and logs every run's start and end with its node, so that the
// test checks: every job finished exactly once, none lost, `long` preempted once, and no two runs
// overlapped on the node (nothing double-booked). It prints those counts.
#include <gtest/gtest.h>

#include <iostream>

#include "live_cluster.h"

namespace hetsched::slurm::live {
namespace {

// Lines of the journal recording `event` for job `id`.
int JournalEvents(const std::string& journal, const std::string& event, long long id) {
  std::ifstream f(journal);
  std::string line;
  int n = 0;
  const std::string ev = "\"ev\":\"" + event + "\"", job = "\"job\":" + std::to_string(id);
  while (std::getline(f, line)) {
    const size_t at = line.find(job);
    const bool same_job = at != std::string::npos && at + job.size() < line.size() &&
                          (line[at + job.size()] == ',' || line[at + job.size()] == '}');
    n += line.find(ev) != std::string::npos && same_job ? 1 : 0;
  }
  return n;
}

// A file's text for a failure message ("" if it cannot be read).
std::string Log(const std::string& path) {
  auto text = ReadFile(path);
  return text.ok() ? *text : "";
}

// Waits (up to `timeout_s`) until `done()`; false if it never was.
bool WaitFor(const std::function<bool()>& done, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// A job script that logs "<id> <node> <start> <end> done|killed" to `runs` for each run (a run
// Slurm stops gets SIGTERM first: the trap stops its sleep and logs it) and appends "<id> <node>" to `marker` when it
// completes. It sleeps `sleep_s`, or `rerun_s` (when >= 0) on the job's later runs.
std::string RunLoggingScript(LiveCluster& c, const std::string& name, const std::string& runs,
                             const std::string& marker, double sleep_s, double rerun_s = -1) {
  const std::string path = c.work() + "/" + name;
  std::ofstream f(path);
  f << "#!/bin/bash\n"
       "t0=$(date +%s.%N)\n"
    << c.SleepSeconds(sleep_s, rerun_s) << "sleep $d &\n"
    << "trap 'kill $!; echo \"$SLURM_JOB_ID $SLURM_JOB_NODELIST $t0 $(date +%s.%N) killed\" >> " << runs
    << "; exit 143' TERM\n"
    << "wait $!\n"
    << "echo \"$SLURM_JOB_ID $SLURM_JOB_NODELIST $t0 $(date +%s.%N) done\" >> " << runs << "\n"
    << "echo \"$SLURM_JOB_ID $SLURM_JOB_NODELIST\" >> " << marker << "\n";
  f.close();
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

struct RunSpan {
  long long id = 0;
  std::string node, how;
  double start = 0, end = 0;
};

std::vector<RunSpan> ReadRuns(const std::string& path) {
  std::vector<RunSpan> out;
  std::ifstream f(path);
  RunSpan r;
  while (f >> r.id >> r.node >> r.start >> r.end >> r.how) out.push_back(r);
  return out;
}

TEST(SlurmPreemptionTest, TiresiasPreemptsAJobRestoredRunningAcrossTwoAgentKills) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(1, 0));
  const std::string marker = c.work() + "/marker.txt", runs = c.work() + "/runs.txt";
  const std::string journal = c.work() + "/journal.jsonl";
  const std::string comment = "--comment=hetsched model=resnet50 iterations=100";
  const long long long_job =
      c.SubmitHeld({"--gpus=a100:4", comment}, RunLoggingScript(c, "long.sh", runs, marker, 40, 3));
  ASSERT_GT(long_job, 0);
  const std::map<std::string, std::string> env = {{"SLURM_CONF", c.conf()}};
  auto agent_argv = [&](const std::string& out) {
    return std::vector<std::string>{HETSCHED_CLI_PATH, "agent", "--slurm", "--policy", "tiresias-las",
                                    "--policy-opt", "thresholds=20", "--journal", journal, "-o", out,
                                    "--poll", "0.1", "--exit-after-jobs", "2"};
  };
  // Generous limits: the machine is shared, and a slow start must not read as a failure.
  {
    Child first(agent_argv(c.work() + "/out1"), env, c.work() + "/agent1.log");
    ASSERT_TRUE(WaitFor([&] { return JournalEvents(journal, "start", long_job) == 1; }, 120))
        << "the long job never started; agent log:\n" << Log(c.work() + "/agent1.log");
    // Past the first threshold: 4 GPUs x 8 s = 32 GPU-s > 20.
    std::this_thread::sleep_for(std::chrono::seconds(8));
    first.Kill9();
  }
  const long long short_job =
      c.SubmitHeld({"--gpus=a100:4", comment}, RunLoggingScript(c, "short.sh", runs, marker, 3));
  ASSERT_GT(short_job, 0);
  {
    Child second(agent_argv(c.work() + "/out2"), env, c.work() + "/agent2.log");
    ASSERT_TRUE(WaitFor([&] { return JournalEvents(journal, "release", short_job) == 1; }, 120))
        << "the restored long job was not preempted for the short one; agent log:\n"
        << Log(c.work() + "/agent2.log") << "\njournal:\n" << Log(journal);
    second.Kill9();
  }
  // Journaled as an intent before it was sent (its outcome, `requeue`, may fall to the next agent).
  EXPECT_EQ(JournalEvents(journal, "preempt", long_job), 1);
  Child third(agent_argv(c.work() + "/out3"), env, c.work() + "/agent3.log");
  EXPECT_EQ(third.Wait(300), 0) << "the third agent did not finish; its log:\n"
                                << Log(c.work() + "/agent3.log");
  EXPECT_EQ(CountLines(journal, "\"ev\":\"agent_restart\""), 2);

  // Every job finished exactly once (one marker), none lost; Slurm says COMPLETED.
  const auto markers = ReadMarkers(marker);
  int finished_once = 0, lost = 0, ran_twice = 0;
  for (long long id : {long_job, short_job}) {
    auto it = markers.find(id);
    if (it == markers.end()) {
      ++lost;
    } else if (it->second.size() == 1) {
      ++finished_once;
    } else {
      ++ran_twice;
    }
  }
  std::map<long long, std::string> states;
  for (const SlurmJob& sj : c.Jobs()) states[sj.id] = sj.state;
  EXPECT_EQ(states[long_job], "COMPLETED");
  EXPECT_EQ(states[short_job], "COMPLETED");
  // `long` ran twice (the preempted run was killed), `short` once; each release journaled once.
  const int preempted = JournalEvents(journal, "requeue", long_job);
  EXPECT_EQ(JournalEvents(journal, "release", long_job), 2);
  EXPECT_EQ(JournalEvents(journal, "release", short_job), 1);
  EXPECT_EQ(JournalEvents(journal, "finish", long_job), 1);
  EXPECT_EQ(JournalEvents(journal, "finish", short_job), 1);

  // No two runs overlapped on the node: every job takes its 4 GPUs, so an overlap is a double
  // booking. (A run SIGKILLed before its trap ran has no line: not checked.)
  std::vector<RunSpan> spans = ReadRuns(runs);
  std::sort(spans.begin(), spans.end(), [](const RunSpan& a, const RunSpan& b) { return a.start < b.start; });
  int double_booked = 0, killed = 0;
  for (size_t i = 0; i < spans.size(); ++i) {
    killed += spans[i].how == "killed" ? 1 : 0;
    for (size_t k = i + 1; k < spans.size(); ++k) {
      if (spans[k].node == spans[i].node && spans[k].start < spans[i].end) {
        ++double_booked;
        ADD_FAILURE() << "runs overlap on " << spans[i].node << ": job " << spans[i].id << " [" << spans[i].start
                      << ", " << spans[i].end << "] and job " << spans[k].id << " [" << spans[k].start << ", "
                      << spans[k].end << "]";
      }
    }
  }
  EXPECT_EQ(killed, 1) << "the preempted run of the long job logs its SIGTERM";
  std::cout << "preemption live test: jobs 2, finished exactly once " << finished_once << ", lost " << lost
            << ", run to completion twice " << ran_twice << ", preemptions of the restored job " << preempted
            << ", runs killed " << killed << ", overlapping runs (double-booked) " << double_booked << "\n";
  EXPECT_EQ(finished_once, 2);
  EXPECT_EQ(lost, 0);
  EXPECT_EQ(ran_twice, 0);
  EXPECT_EQ(preempted, 1);
  EXPECT_EQ(double_booked, 0);
}

}  // namespace
}  // namespace hetsched::slurm::live
