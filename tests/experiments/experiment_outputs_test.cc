// The experiments' result tail (experiments/experiment.h, WriteExperimentOutputs): every file is
// written under the output folder, then one "outputs:" line names them and the outputs written
// elsewhere; a file that cannot be written is an error naming it, and no line is printed.
#include "hetsched/experiments/experiment.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "hetsched/util/file_io.h"

namespace hetsched {
namespace {

TEST(ExperimentOutputsTest, WritesEachFileThenOneLineNamingThemAndTheOthers) {
  const std::string dir = ::testing::TempDir() + "/hetsched_experiment_outputs";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string printed;
  ExperimentContext ctx;
  ctx.out_dir = dir;
  ctx.print = [&](const std::string& text) { printed += text; };
  ASSERT_TRUE(WriteExperimentOutputs(ctx, {{"x.csv", "a,b\n1,2\n"}, {"x.txt", "table\n"}}, {"seed-<N>/"}).ok());
  EXPECT_EQ(printed, "outputs: " + dir + "/x.csv " + dir + "/x.txt " + dir + "/seed-<N>/\n");
  EXPECT_EQ(*ReadFile(dir + "/x.csv"), "a,b\n1,2\n");
  EXPECT_EQ(*ReadFile(dir + "/x.txt"), "table\n");
  printed.clear();
  ctx.out_dir = dir + "/missing/deeper";
  const Status st = WriteExperimentOutputs(ctx, {{"y.csv", "1\n"}});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("y.csv"), std::string::npos) << st.message();
  EXPECT_EQ(printed, "");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetsched
