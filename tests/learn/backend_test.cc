#include "hetsched/learn/backend.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>  // getpid: a path of its own beside concurrent test runs

namespace hetsched::learn {
namespace {

const Backend& Loaded() {
  static const Result<const Backend*> backend = LearnBackend();
  EXPECT_TRUE(backend.ok()) << backend.status().ToString();
  return *backend.value();
}

std::string MappedFiles() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str();
}

TEST(LearnBackend, ThreadCountIsWhatWeSet) {
  const Backend& b = Loaded();
  b.ConfigureThreads(1);
  EXPECT_EQ(b.Threads(), 1);
  b.ConfigureThreads(2);
  EXPECT_EQ(b.Threads(), 2);
  b.ConfigureThreads(1);
  EXPECT_EQ(b.Threads(), 1);
}

TEST(LearnBackend, VersionNamesLibTorch) {
  EXPECT_EQ(Loaded().TorchVersion().rfind("LibTorch 1.", 0), 0u) << Loaded().TorchVersion();
}

// The loaded back end maps LibTorch (the counterpart of the simulator test that a FIFO run maps
// none: this shows that reading /proc/self/maps sees it when it is there).
TEST(LearnBackend, LoadingMapsLibTorchAndTheModule) {
  Loaded();
  const std::string maps = MappedFiles();
  EXPECT_NE(maps.find("libhetsched_learn_torch.so"), std::string::npos);
  EXPECT_NE(maps.find("libtorch_cpu.so"), std::string::npos);
}

TEST(LearnBackend, MissingOrForeignModuleIsAClearError) {
  const auto missing = OpenLearnBackendAt("/nonexistent/libhetsched_learn_torch.so");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(
                "cannot load LibTorch's back end (for the learned components) from /nonexistent/libhetsched_learn_torch.so"),
            std::string::npos)
      << missing.status().ToString();
  const std::string junk =
      (std::filesystem::temp_directory_path() / ("hetsched_not_a_module_" + std::to_string(::getpid()) + ".so")).string();
  std::ofstream(junk) << "not an ELF file\n";
  const auto foreign = OpenLearnBackendAt(junk);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find(junk), std::string::npos) << foreign.status().ToString();
  std::filesystem::remove(junk);
}

}  // namespace
}  // namespace hetsched::learn
