// `hetsched sweep --slurm`: configurations run as a real Slurm job array give the same table, byte
// for byte, as the same configurations run here (--local); a configuration that fails is named;
// one that is a bad command line is refused before the array is submitted.
#include <gtest/gtest.h>

#include "live_cluster.h"

namespace hetsched::slurm::live {
namespace {

TEST(SlurmSweepTest, JobArrayMatchesLocalRuns) {
  HETSCHED_SKIP_WITHOUT_SLURM();
  LiveCluster c;
  ASSERT_NO_FATAL_FAILURE(c.Start(1, 1));
  const std::string configs = c.work() + "/configs.txt";
  std::ofstream(configs) << "# three policies, one cluster\n"
                            "--policy fifo --gpus v100=16,a100=8 --synthetic 40 --seed 3 --skip-unfit\n"
                            "--policy sjf --gpus v100=16,a100=8 --synthetic 40 --seed 3 --skip-unfit\n\n"
                            "--policy tiresias-las --placer first-fit --gpus v100=16 --synthetic 40 --seed 3 --skip-unfit\n";
  PosixCommandRunner run({{"SLURM_CONF", c.conf()}}, 240);
  auto slurm = run.Run({HETSCHED_CLI_PATH, "sweep", "--configs", configs, "--slurm", "-o", c.work() + "/s"});
  ASSERT_TRUE(slurm.ok());
  ASSERT_EQ(slurm->exit_code, 0) << slurm->err;
  EXPECT_NE(slurm->out.find("as Slurm job array"), std::string::npos);
  auto local = run.Run({HETSCHED_CLI_PATH, "sweep", "--configs", configs, "--local", "-o", c.work() + "/l"});
  ASSERT_TRUE(local.ok());
  ASSERT_EQ(local->exit_code, 0) << local->err;
  auto a = ReadFile(c.work() + "/s/sweep.csv");
  auto b = ReadFile(c.work() + "/l/sweep.csv");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(CountLines(c.work() + "/s/sweep.csv", "40/40") + CountLines(c.work() + "/s/sweep.csv", ",40,"), 3)
      << *a;
  // Every task ran as an array element of one job.
  int array_tasks = 0;
  for (const SlurmJob& sj : c.Jobs()) array_tasks += (sj.array_job_id > 0 && sj.state == "COMPLETED") ? 1 : 0;
  EXPECT_EQ(array_tasks, 3);
  // On a terminal (a pseudo-terminal from util-linux's `script`), a progress line counts the
  // array's tasks while the sweep waits.
  if (std::filesystem::exists("/usr/bin/script")) {
    auto shown = run.Run({"/usr/bin/script", "-qec",
                          std::string(HETSCHED_CLI_PATH) + " sweep --configs " + configs + " --slurm -o " + c.work() +
                              "/t >" + c.work() + "/t.stdout",
                          "/dev/null"});
    ASSERT_TRUE(shown.ok());
    EXPECT_EQ(shown->exit_code, 0) << shown->out << shown->err;
    EXPECT_NE(shown->out.find("sweep (Slurm array)"), std::string::npos) << shown->out;
    EXPECT_NE(shown->out.find("3/3 tasks"), std::string::npos) << shown->out;
  }

  // A configuration whose input cannot be read fails when it runs: the table has the others, the
  // failure is named, exit 1.
  std::ofstream(configs, std::ios::app) << "--policy fifo --gpus v100=4 --trace " << c.work() << "/no-such.trace\n";
  auto bad = run.Run({HETSCHED_CLI_PATH, "sweep", "--configs", configs, "--slurm", "-o", c.work() + "/b"});
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->exit_code, 1);
  EXPECT_NE(bad->err.find("configuration 3 (" + configs + ":6) has no result"), std::string::npos) << bad->err;
  // A configuration that is a bad command line is refused before anything is submitted (exit 2).
  std::ofstream(configs, std::ios::app) << "--policy nosuch --gpus v100=4 --synthetic 5\n";
  auto refused = run.Run({HETSCHED_CLI_PATH, "sweep", "--configs", configs, "--slurm", "-o", c.work() + "/r"});
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->exit_code, 2);
  EXPECT_NE(refused->err.find(configs + ":7: --policy: unknown policy 'nosuch'"), std::string::npos) << refused->err;
  EXPECT_FALSE(std::filesystem::exists(c.work() + "/r/sweep-task.sh"));
}

}  // namespace
}  // namespace hetsched::slurm::live
