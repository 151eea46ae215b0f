// GoodputCatalog (trace/goodput_catalog.h) on the project's copy of Pollux's profiles
// (data/real/pollux/traces, Apache-2.0).
#include "hetsched/trace/goodput_catalog.h"

#include <gtest/gtest.h>

#include <vector>

namespace hetsched {
namespace {

TEST(GoodputCatalogTest, LoadsPolluxsApplicationsWithItsSettings) {
  auto catalog = GoodputCatalog::Open(HETSCHED_SOURCE_DIR "/data/real/pollux/traces");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  EXPECT_EQ(catalog->Available(),
            (std::vector<std::string>{"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}));
  // cifar10: 6 validated sizes 128-4096, 100 epochs each; Pollux runs it for 100 epochs.
  auto app = catalog->Get("cifar10");
  ASSERT_TRUE(app.ok()) << app.status().message();
  EXPECT_EQ((*app)->init_batch_size(), 128);
  EXPECT_EQ((*app)->max_batch_size(), 4096);
  EXPECT_EQ((*app)->max_epochs(), 100);
  // placements.csv's first row: "1" at local batch 32.
  const std::vector<int> one = {1};
  auto t = (*app)->StepTime(one, 32);
  ASSERT_TRUE(t.ok());
  EXPECT_DOUBLE_EQ(t->step_s, 0.0427886962890625);
  EXPECT_DOUBLE_EQ(t->sync_s, 0.0004995360016822816);
  // 16 nodes x 4 GPUs was never measured as a placement: interpolated, and positive.
  const std::vector<int> big(16, 4);
  auto wide = (*app)->StepTime(big, 64);
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  EXPECT_GT(wide->step_s, wide->sync_s);
  EXPECT_GT(wide->sync_s, 0);
  // Pollux's own limit for yolov3's local batch (applications.py:237), and the same object twice.
  auto yolo = catalog->Get("yolov3");
  ASSERT_TRUE(yolo.ok());
  EXPECT_EQ((*yolo)->max_local_bsz(), 8);
  EXPECT_EQ((*yolo)->max_epochs(), 50);
  EXPECT_EQ(catalog->Get("yolov3")->get(), yolo->get());
}

TEST(GoodputCatalogTest, RefusesWhatIsNotAnApplicationFolder) {
  auto catalog = GoodputCatalog::Open(HETSCHED_SOURCE_DIR "/data/real/pollux/traces");
  ASSERT_TRUE(catalog.ok());
  for (const char* bad : {"", "resnet", "../traces", ".", "cifar10/"}) {
    auto app = catalog->Get(bad);
    ASSERT_FALSE(app.ok()) << bad;
    EXPECT_NE(app.status().message().find("unknown application"), std::string::npos) << app.status().message();
  }
  EXPECT_FALSE(GoodputCatalog::Open("/nonexistent/profiles").ok());
  EXPECT_FALSE(GoodputCatalog::Open(HETSCHED_SOURCE_DIR "/data/real/pollux/workloads").ok());  // no folders
}

}  // namespace
}  // namespace hetsched
