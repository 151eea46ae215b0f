// A goodput job through the agent on a real Slurm cluster (docs/slurm.md, "Goodput jobs"): the
// example job (scripts/slurm/goodput-job.py) reads the allocation the agent wrote before its
// release and reports a measurement per step into its metrics file, which the agent reads into
// the job's state, as the simulator's job keeps it; the job completes, run once.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hetsched/slurm/goodput_files.h"
#include "hetsched/slurm/journal.h"
#include "live_cluster.h"

namespace hetsched::slurm::live {
namespace {

TEST(SlurmGoodputTest, AnAdaptiveJobRunsOnTheAllocationTheAgentWroteAndReportsToIt) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(1, 1));
  const std::string dir = c.work() + "/goodput";
  std::filesystem::create_directories(dir);
  // The job: 30 steps of the example job (about 0.06 s each), its arguments in a wrapper (sbatch
  // runs one script).
  const std::string script = c.work() + "/goodput-job.sh";
  {
    std::ofstream f(script);
    f << "#!/bin/bash\nexec python3 " << Scripts() << "/goodput-job.py " << dir << " 30\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  const long long id = c.SubmitHeld(
      {"--gpus=1", "--comment=hetsched application=cifar10 adaptive_batch=1 elastic=1 total_batch_size=128"}, script);
  ASSERT_GT(id, 0);

  LiveAgent agent;
  agent.methods = MethodChoice{.policy = "sia", .placer = "pack"};
  agent.methods.policy_options = *Options::Parse({"round=5"});  // Sia's rounds every 5 s (60 s by default)
  agent.options.goodput_dir = dir;
  agent.options.goodput_types = {{"", "v100"}};  // the built-in (Pollux's) profiles, on the V100 node
  ASSERT_NO_FATAL_FAILURE(agent.Start(c));
  ASSERT_NO_FATAL_FAILURE(agent.RunWhileProgressing([&] { return agent->counts().finished >= 1; }));
  for (const auto& m : agent.Unexpected()) ADD_FAILURE() << "unexpected report: " << m;
  EXPECT_EQ(agent->counts().finished, 1);
  EXPECT_EQ(agent->counts().failed, 0);

  // The allocation the job ran on: the agent's, on the V100 node, one batch that the job's
  // application allows.
  auto alloc_text = ReadFile(AllocPath(dir, id));
  ASSERT_TRUE(alloc_text.ok()) << alloc_text.status().message();
  const nlohmann::json alloc = nlohmann::json::parse(*alloc_text);
  EXPECT_EQ(alloc["job"], id);
  EXPECT_EQ(alloc["type"], "v100-16gb");
  EXPECT_EQ(alloc["adaptive"], true);
  EXPECT_GE(alloc["batch_size"].get<int>(), 1);

  // Every step's report reached the agent (journaled as read), and its last says the job went the
  // whole way on the batches it was given.
  std::ifstream metrics(MetricsPath(dir, id));
  std::string line;
  int lines = 0;
  while (std::getline(metrics, line)) ++lines;
  auto journal = Journal::Open(c.work() + "/journal.jsonl", nullptr);
  ASSERT_TRUE(journal.ok()) << journal.status().message();
  int measured = 0;
  for (const JournalRecord& r : journal->replayed()) measured += r.event == "measure" && r.job == id;
  EXPECT_GE(lines, 30);
  EXPECT_EQ(measured, lines) << "every report read once, none twice";

  // What the policy sees of the job: the model fitted to its reports.
  auto view = agent->goodput_job(id, /*with_model=*/true);
  ASSERT_TRUE(view.ok()) << view.status().message();
  ASSERT_TRUE(view->has_value());
  EXPECT_TRUE((*view)->params.has_value());
  EXPECT_TRUE((*view)->grad.has_value());

  // Slurm agrees: the job completed.
  for (const AgentJobView& v : agent->Jobs()) EXPECT_EQ(v.final_state, "COMPLETED") << "job " << v.id;
}

}  // namespace
}  // namespace hetsched::slurm::live
