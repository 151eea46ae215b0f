// Bad input on a real Slurm cluster (2 nodes x 4 A100 + 2 x 8 V100 = 8 A100, 16 V100): jobs that
// Slurm accepts held but hetsched cannot run are reported and left alone (still held); a script
// Slurm refuses never reaches the agent; a broken script fails once; shell syntax in a job's name
// or comment is never executed.
#include <gtest/gtest.h>

#include "live_cluster.h"

namespace hetsched::slurm::live {
namespace {

TEST(SlurmBadInputTest, ReportedAndLeftAlone) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(2, 2));
  const std::string marker = c.work() + "/marker.txt";
  const std::string good = c.MarkerScript("good.sh", marker, 0.2);
  const std::string pwned = c.work() + "/pwned";
  std::map<long long, std::string> bad;  // id -> the words its rejection must contain
  auto submit_bad = [&](std::vector<std::string> args, const std::string& expect) {
    const long long id = c.SubmitHeld(args, good);
    ASSERT_GT(id, 0) << "Slurm refused " << args[0];
    bad[id] = expect;
  };
  submit_bad({"--gpus=h100x:1"}, "GPU type 'h100x'");                         // no such GPU type anywhere
  submit_bad({"--gpus=k80:2"}, "does not exist in this cluster");              // a catalog type, not here
  submit_bad({"--gpus=a100:9"}, "larger than the cluster");                    // 8 A100 exist
  submit_bad({"--gpus=17"}, "larger than the cluster");                        // 16 of one type at most
  submit_bad({"--gpus=1", "--comment=hetsched iterations=abc"}, "'iterations'");  // malformed field
  submit_bad({"--gpus=1", "--comment=hetsched model=resnet50 ;touch " + pwned}, "not key=value");

  // A script without "#!": Slurm itself refuses it, so the agent never sees it.
  const std::string no_shebang = c.work() + "/no_shebang.sh";
  std::ofstream(no_shebang) << "echo hi\n";
  EXPECT_EQ(c.SubmitHeld({"--gpus=1"}, no_shebang), -1);
  // A script with a syntax error: accepted, runs, fails once, is not run again.
  const std::string broken = c.work() + "/broken.sh";
  std::ofstream(broken) << "#!/bin/bash\necho \"$SLURM_JOB_ID x\" >> " << marker << "\nif then fi (\n";
  const long long broken_id = c.SubmitHeld({"--gpus=1"}, broken);
  ASSERT_GT(broken_id, 0);
  // Shell syntax in the name and a harmless comment: runs normally, nothing is executed.
  const long long evil_name = c.SubmitHeld({"--gpus=2", "--job-name=$(touch " + pwned + ");`touch " + pwned + "`",
                                            "--comment=free text $(touch " + pwned + ") hetsched model=resnet50"},
                                           good);
  ASSERT_GT(evil_name, 0);
  const long long fine = c.SubmitHeld({"--gpus=v100:4"}, good);

  LiveAgent agent;
  ASSERT_NO_FATAL_FAILURE(agent.Start(c));
  SystemClock& clock = agent.clock;
  const AgentOptions& o = agent.options;
  std::vector<std::string>& reports = agent.reports;
  const double deadline = clock.NowS() + 90;
  ASSERT_TRUE(agent->Run([&] { return agent->counts().finished >= 3 || clock.NowS() > deadline; }).ok());
  const AgentCounts k = agent->counts();
  EXPECT_EQ(k.rejected, 6);
  EXPECT_EQ(k.finished, 3);
  EXPECT_EQ(k.failed, 1);  // the broken script

  // Each bad job: reported once, with its reason, and still held in Slurm (left alone).
  for (const auto& [id, expect] : bad) {
    int seen = 0;
    for (const auto& m : reports) {
      if (m.find("Slurm job " + std::to_string(id) + ":") != std::string::npos ||
          m.find("Slurm job " + std::to_string(id) + " ") != std::string::npos) {
        ++seen;
        EXPECT_NE(m.find(expect), std::string::npos) << m;
      }
    }
    EXPECT_EQ(seen, 1) << "job " << id;
  }
  std::map<long long, SlurmJob> states;
  for (const SlurmJob& sj : c.Jobs()) states[sj.id] = sj;
  for (const auto& [id, expect] : bad) EXPECT_TRUE(states[id].HeldByUser()) << "job " << id << " " << states[id].state;
  EXPECT_EQ(states[broken_id].state, "FAILED");
  EXPECT_EQ(states[evil_name].state, "COMPLETED");
  EXPECT_EQ(states[fine].state, "COMPLETED");
  const auto markers = ReadMarkers(marker);
  EXPECT_EQ(markers.at(broken_id).size(), 1u);
  EXPECT_EQ(markers.at(evil_name).size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(pwned)) << "a job name or comment reached a shell";
  // Rejections are journaled: a restarted agent does not report them again.
  EXPECT_EQ(CountLines(o.journal_path, "\"ev\":\"reject\""), 6);
}

}  // namespace
}  // namespace hetsched::slurm::live
