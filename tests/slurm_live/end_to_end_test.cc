// 200 short jobs with mixed GPU requests pass through the agent on a real 8-node Slurm cluster
// (4 x 4 A100 + 4 x 8 V100): all complete, each ran exactly once, on the nodes and GPU type the
// policy chose.
#include <gtest/gtest.h>

#include <set>

#include "live_cluster.h"

namespace hetsched::slurm::live {
namespace {

TEST(SlurmEndToEndTest, TwoHundredJobsRunOnceWhereThePolicyChose) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(4, 4));
  const std::string marker = c.work() + "/marker.txt";
  const std::string script = c.MarkerScript("job.sh", marker, 0.1);
  // Mixed requests: untyped and typed, 1 to 12 GPUs, per job and per node.
  const std::vector<std::vector<std::string>> kinds = {
      {"--gpus=1"},        {"--gpus=2"},         {"--gpus=a100:1"}, {"--gpus=v100:2"},
      {"--gpus=4"},        {"--gpus=a100:4"},    {"--gpus=v100:8"}, {"--gpus=6"},
      {"--gpus=v100:12"},  {"-N", "2", "--gres=gpu:a100:2"}};
  std::map<long long, size_t> kind_of;
  for (int i = 0; i < 200; ++i) {
    const size_t k = static_cast<size_t>(i * 7) % kinds.size();
    std::vector<std::string> args = kinds[k];
    args.push_back("--comment=hetsched model=resnet50 iterations=100");
    args.push_back("--job-name=job " + std::to_string(i));
    const long long id = c.SubmitHeld(args, script);
    ASSERT_GT(id, 0) << "sbatch failed for job " << i;
    kind_of[id] = k;
  }
  LiveAgent agent;
  ASSERT_NO_FATAL_FAILURE(agent.Start(c));
  // No fixed deadline: under load (an ASan build beside it) the run takes longer; it fails only
  // if it stops making progress.
  ASSERT_NO_FATAL_FAILURE(agent.RunWhileProgressing([&] { return agent->counts().finished >= 200; }));
  const AgentCounts counts = agent->counts();
  EXPECT_EQ(counts.admitted, 200);
  EXPECT_EQ(counts.finished, 200);
  EXPECT_EQ(counts.failed, 0);
  EXPECT_EQ(counts.rejected, 0);
  // Notes are allowed (Slurm decides the per-node split of an uneven per-job GPU count), and so
  // is Slurm answering late under load; anything else is not.
  for (const auto& m : agent.Unexpected()) ADD_FAILURE() << "unexpected report: " << m;

  // Each job ran exactly once (one marker line), on exactly the nodes the agent chose, all of the
  // chosen type, and of the type the job asked for when it named one.
  const auto markers = ReadMarkers(marker);
  EXPECT_EQ(markers.size(), 200u);
  const DeviceCatalog& cat = DeviceCatalog::BuiltIn();
  for (const AgentJobView& v : agent->Jobs()) {
    SCOPED_TRACE("job " + std::to_string(v.id));
    EXPECT_EQ(v.final_state, "COMPLETED");
    EXPECT_EQ(v.placements, 1);
    auto it = markers.find(v.id);
    ASSERT_NE(it, markers.end());
    ASSERT_EQ(it->second.size(), 1u) << "ran " << it->second.size() << " times";
    auto ran_on = ExpandHostlist(it->second[0]);
    ASSERT_TRUE(ran_on.ok());
    EXPECT_EQ(Sorted(*ran_on), Sorted(v.nodes));
    for (const std::string& node : *ran_on) {
      const NodeId n = agent->cluster().Find(node);
      ASSERT_GE(n, 0);
      EXPECT_EQ(cat.type(agent->cluster().cluster.node(n).device_type).name, v.type);
    }
    const std::string& first_arg = kinds[kind_of.at(v.id)][0];
    if (first_arg.find("a100") != std::string::npos) {
      EXPECT_EQ(v.type, "a100-40gb");
    }
    if (first_arg.find("v100") != std::string::npos) {
      EXPECT_EQ(v.type, "v100-16gb");
    }
  }
  // Slurm agrees: every job COMPLETED, none restarted.
  for (const SlurmJob& sj : c.Jobs()) {
    EXPECT_EQ(sj.state, "COMPLETED") << "job " << sj.id;
    EXPECT_EQ(sj.restart_count, 0) << "job " << sj.id;
  }
  // The run record has the simulator's shape: 200 finished jobs, times from the first submission.
  const RunRecord record = agent->Record();
  ASSERT_EQ(record.jobs.size(), 200u);
  for (const JobRecord& j : record.jobs) {
    SCOPED_TRACE("record of job " + std::to_string(j.id) + ": submit " + std::to_string(j.submit_s) + ", start " +
                 std::to_string(j.first_start_s) + ", finish " + std::to_string(j.finish_s));
    EXPECT_TRUE(j.finished());
    EXPECT_GE(j.first_start_s, j.submit_s);
    EXPECT_GE(j.finish_s, j.first_start_s);
    EXPECT_GE(j.gpu_seconds, 0);  // Slurm's times have 1 s resolution: a 0.1 s job shows 0 or 1 s
  }
}

}  // namespace
}  // namespace hetsched::slurm::live
