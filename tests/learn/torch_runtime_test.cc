#include "hetsched/learn/torch_runtime.h"

#include <gtest/gtest.h>

namespace hetsched::learn {
namespace {

TEST(TorchRuntime, ThreadCountIsWhatWeSet) {
  ConfigureTorchThreads(1);
  EXPECT_EQ(TorchThreads(), 1);
  ConfigureTorchThreads(2);
  EXPECT_EQ(TorchThreads(), 2);
  ConfigureTorchThreads(1);
  EXPECT_EQ(TorchThreads(), 1);
}

TEST(TorchRuntime, VersionNamesLibTorch) {
  EXPECT_EQ(TorchVersion().rfind("LibTorch 1.", 0), 0u) << TorchVersion();
}

}  // namespace
}  // namespace hetsched::learn
