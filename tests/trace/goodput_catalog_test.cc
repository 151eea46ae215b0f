// GoodputCatalog (trace/goodput_catalog.h) on the project's copy of Pollux's profiles
// (data/real/pollux/traces, Apache-2.0).
#include "hetsched/trace/goodput_catalog.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace hetsched {
namespace {

// One application's truth on the catalog's first (here: only) type.
Result<std::shared_ptr<const GoodputApplication>> AppOf(GoodputCatalog& catalog, const std::string& name) {
  HETSCHED_ASSIGN_OR_RETURN(GoodputTruth truth, catalog.Get(name));
  return truth.by_type.front().app;
}

TEST(GoodputCatalogTest, LoadsPolluxsApplicationsWithItsSettings) {
  auto catalog = GoodputCatalog::Open(HETSCHED_SOURCE_DIR "/data/real/pollux/traces");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  EXPECT_EQ(catalog->Available(),
            (std::vector<std::string>{"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}));
  // cifar10: 6 validated sizes 128-4096, 100 epochs each; Pollux runs it for 100 epochs.
  auto app = AppOf(*catalog, "cifar10");
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
  auto yolo = AppOf(*catalog, "yolov3");
  ASSERT_TRUE(yolo.ok());
  EXPECT_EQ((*yolo)->max_local_bsz(), 8);
  EXPECT_EQ((*yolo)->max_epochs(), 50);
  EXPECT_EQ(AppOf(*catalog, "yolov3")->get(), yolo->get());
}

// Pollux's own Application (simulator/applications.py) evaluated with scipy 1.10.1 (Qhull 2019.1)
// and pandas 1.5.3 on this machine (Debian bookworm's), printed with repr(): hetsched's values for
// the same calls (Qhull 2020.2). A placement measured as such goes through interp1d, others
// through the Delaunay triangulation; where scipy has no value (outside the hull, or above a
// measured placement's largest local batch) hetsched has none either.
TEST(GoodputCatalogTest, StepTimesAreScipysForPolluxsProfiles) {
  auto catalog = GoodputCatalog::Open(HETSCHED_SOURCE_DIR "/data/real/pollux/traces");
  ASSERT_TRUE(catalog.ok());
  struct Case {
    const char* app;
    std::vector<int> placement;
    double local_bsz;
    double step, sync;  // NaN: scipy has none
  };
  const double none = std::nan("");
  const Case cases[] = {
      {"cifar10", {1}, 32, 0.0427886962890625, 0.0004995360016822},
      {"cifar10", {4}, 1024, 0.7898811340332031, 0.0918037765502929},
      {"cifar10", {2, 2}, 528, 0.42740835153831624, 0.04096899447261157},
      {"cifar10", {4, 4, 4, 4, 4}, 32, 0.1647380352020263, 0.1210676921844482},
      {"cifar10", {4, 4, 4, 4, 4, 4, 4, 4}, 528, 0.5146474814273256, 0.08378293525371366},
      {"cifar10", std::vector<int>(16, 4), 1024, none, none},
      {"cifar10", {3, 1, 2}, 528, 0.43846187771491285, 0.06468755230093896},
      {"cifar10", {1, 1, 1, 1, 1, 1}, 528, 0.3885439596086178, 0.00471633274690152},
      {"imagenet", {2, 2}, 110, 0.6278720876749824, 0.08659009196337525},
      {"imagenet", {4, 4, 4, 4, 4}, 20, 0.43295387029647825, 0.27135184020996095},
      {"imagenet", {4, 4, 4, 4, 4, 4, 4, 4}, 110, 0.7069247940007377, 0.13588015195061173},
      {"imagenet", std::vector<int>(16, 4), 200, 1.0868985652923584, 0.1076296264648437},
      {"imagenet", {3, 1, 2}, 110, 0.572868092621074, 0.02995698728841889},
      {"imagenet", {1, 1, 1, 1, 1, 1}, 110, 0.584635250007405, 0.0444307877007652},
      {"bert", {2, 2}, 7, 2.038148820400238, 1.4532889289855957},
      {"bert", {4, 4, 4, 4, 4}, 4, 1.8201112821698189, 1.4160878524780274},
      {"bert", {4, 4, 4, 4, 4, 4, 4, 4}, 7, 1.8784380406141286, 1.26313116645813},
      {"bert", std::vector<int>(16, 4), 12, 2.231521874666214, 1.3427189025878905},
      {"bert", {3, 1, 2}, 7, 1.3818926215171814, 0.7897367210388184},
      {"deepspeech2", {4, 4, 4, 4, 4, 4, 4, 4}, 45, 2.0793780858824857, 0.49833801259151117},
      {"deepspeech2", std::vector<int>(16, 4), 80, none, none},
      {"deepspeech2", {3, 1, 2}, 45, 1.5898604463128483, 0.2965966011870141},
      {"yolov3", {2, 2}, 5, 1.2402832061052322, 0.8879225444793701},
      {"yolov3", {4, 4, 4, 4, 4, 4, 4, 4}, 5, 1.574385866522789, 1.1409497318267823},
      {"yolov3", std::vector<int>(16, 4), 8, 1.4827728122472765, 1.1415224685668945},
      {"yolov3", {1, 1, 1, 1, 1, 1}, 5, 0.9046992436051369, 0.570050630569458},
      {"ncf", {1}, 32, 0.0073058915138244, 0.0002932374387979},
      {"ncf", {4}, 32768, none, none},
      {"ncf", {4, 4, 4, 4, 4}, 32, 0.0329750431908501, 0.02587522602081295},
      {"ncf", {4, 4, 4, 4, 4, 4, 4, 4}, 16400, none, none},
      {"ncf", {1, 1, 1, 1, 1, 1}, 16400, 0.023049475423687373, 0.008638656152192635},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.app) + " " + std::to_string(c.placement.size()) + " nodes, local batch " +
                 std::to_string(c.local_bsz));
    auto app = AppOf(*catalog, c.app);
    ASSERT_TRUE(app.ok());
    auto t = (*app)->StepTime(c.placement, c.local_bsz);
    if (std::isnan(c.step)) {
      EXPECT_FALSE(t.ok());
      continue;
    }
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_NEAR(t->step_s, c.step, 1e-12 * c.step);
    EXPECT_NEAR(t->sync_s, c.sync, 1e-12 * c.sync);
  }
}

TEST(GoodputCatalogTest, RefusesWhatIsNotAnApplicationFolder) {
  auto catalog = GoodputCatalog::Open(HETSCHED_SOURCE_DIR "/data/real/pollux/traces");
  ASSERT_TRUE(catalog.ok());
  for (const char* bad : {"", "resnet", "../traces", ".", "cifar10/"}) {
    auto app = AppOf(*catalog, bad);
    ASSERT_FALSE(app.ok()) << bad;
    EXPECT_NE(app.status().message().find("unknown application"), std::string::npos) << app.status().message();
  }
  EXPECT_FALSE(GoodputCatalog::Open("/nonexistent/profiles").ok());
  EXPECT_FALSE(GoodputCatalog::Open(HETSCHED_SOURCE_DIR "/data/real/pollux/workloads").ok());  // no folders
}

// Sia's type suffixes asked of the built-in profiles (Pollux's, unsuffixed): the error says where
// Sia's are to come from.
TEST(GoodputCatalogTest, SiasSuffixesOnTheBuiltInProfilesSayWhereSiasAre) {
  auto catalog = GoodputCatalog::Open(GoodputCatalog::kBuiltInDir, {{"aws", DeviceCatalog::BuiltIn().Lookup("t4").value()}},
                                      GoodputSettings::kSia);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto app = catalog->Get("cifar10");
  ASSERT_FALSE(app.ok());
  EXPECT_NE(app.status().message().find("placements-aws.csv"), std::string::npos) << app.status().message();
  EXPECT_NE(app.status().message().find("--profiles SIA/sia-simulator/traces"), std::string::npos) << app.status().message();
}

}  // namespace
}  // namespace hetsched
