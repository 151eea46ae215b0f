// util/file_io.h: a relative data path that is neither on disk nor built in is read from the data
// tree named by HETSCHED_DATA_DIR (or beside the program), and the error names every place tried.
#include "hetsched/util/file_io.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace hetsched {
namespace {

namespace fs = std::filesystem;

class DataDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test and process: the fixture's tests may run at once in other shards.
    root_ = fs::path(::testing::TempDir()) /
            ("hetsched_data_dir_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
             std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "data" / "zz");
    ASSERT_TRUE(WriteFileAtomic((root_ / "data" / "zz" / "only_here.csv").string(), "a,b\n1,2\n").ok());
  }
  void TearDown() override {
    unsetenv("HETSCHED_DATA_DIR");
    fs::remove_all(root_);
  }
  fs::path root_;
};

TEST_F(DataDirTest, ARelativePathIsFoundUnderTheDataDirectory) {
  ASSERT_FALSE(fs::exists("data/zz/only_here.csv"));  // not from the working directory
  setenv("HETSCHED_DATA_DIR", root_.c_str(), 1);
  auto text = ReadFileOrEmbedded("data/zz/only_here.csv");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "a,b\n1,2\n");
}

TEST_F(DataDirTest, TheErrorNamesEveryPlaceTried) {
  setenv("HETSCHED_DATA_DIR", root_.c_str(), 1);
  auto missing = ReadFileOrEmbedded("data/zz/nowhere.csv");
  ASSERT_FALSE(missing.ok());
  const std::string message = missing.status().message();
  EXPECT_NE(message.find("data/zz/nowhere.csv: no such file"), std::string::npos) << message;
  EXPECT_NE(message.find((root_ / "data" / "zz" / "nowhere.csv").string()), std::string::npos) << message;
  EXPECT_NE(message.find("share/hetsched/data/zz/nowhere.csv"), std::string::npos) << message;  // beside the program
  // An absolute path is not looked for elsewhere.
  auto absolute = ReadFileOrEmbedded((root_ / "nope.csv").string());
  ASSERT_FALSE(absolute.ok());
  EXPECT_EQ(absolute.status().message().find("also looked"), std::string::npos) << absolute.status().message();
}

TEST_F(DataDirTest, TheBuildTreeLinksTheSourcesDataBesideThePrograms) {
  // tests/ is a sibling of bin/ in the build tree: ../share/hetsched/data is the sources' data/.
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  ASSERT_FALSE(ec);
  const fs::path runtimes = exe.parent_path() / "../share/hetsched/data/real/philly/philly_runtime.csv";
  EXPECT_TRUE(fs::exists(runtimes)) << runtimes;
}

}  // namespace
}  // namespace hetsched
