// Goodput profiles derived for GPU types nobody measured (trace/derived_profiles.h): the measured
// files copied as they are, each derived row's compute part scaled by the roofline ratio of the
// application's zoo model at the row's local batch, its synchronisation kept; the derived folder
// reads back as Sia's layout does.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hetsched/model/device.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/trace/derived_profiles.h"
#include "hetsched/trace/goodput_catalog.h"
#include "hetsched/trace/pollux_profile.h"
#include "hetsched/util/file_io.h"

namespace hetsched {
namespace {

namespace fs = std::filesystem;

const std::string kPollux = HETSCHED_SOURCE_DIR "/data/real/pollux/traces";

std::string Fresh(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / "hetsched_derived_profiles" / name;
  fs::remove_all(dir);
  return dir.string();
}

TEST(DerivedProfilesTest, ComputeScaledSyncKept) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const DeviceType& t4 = devices.type(devices.Find("t4"));
  const DeviceType& a100 = devices.type(devices.Find("a100-40gb"));
  const std::string dir = Fresh("cifar10");
  ASSERT_TRUE(DeriveGoodputProfiles(kPollux, dir, {"cifar10"}, t4, {{"a100", &a100}, {"same", &t4}}, ModelZoo::BuiltIn()).ok());
  // The measured files, unchanged.
  for (const char* name : {"placements.csv", "scalability.csv", "validation-128.csv"}) {
    auto a = ReadFile(kPollux + "/cifar10/" + name), b = ReadFile(dir + "/cifar10/" + name);
    ASSERT_TRUE(a.ok() && b.ok()) << name;
    EXPECT_EQ(*a, *b) << name;
  }
  auto measured = LoadPolluxModelProfile(kPollux, "cifar10");
  auto derived = LoadPolluxModelProfile(dir, "cifar10", "a100");
  auto same = LoadPolluxModelProfile(dir, "cifar10", "same");
  ASSERT_TRUE(measured.ok() && derived.ok() && same.ok()) << derived.status().ToString();
  ASSERT_EQ(derived->placements.size(), measured->placements.size());
  const ModelProfile& resnet18 = *ModelZoo::BuiltIn().Find("resnet18-cifar");
  for (size_t i = 0; i < measured->placements.size(); ++i) {
    const PolluxPlacementRow& m = measured->placements[i];
    const PolluxPlacementRow& d = derived->placements[i];
    const double ratio = ComputeRatio(resnet18, m.local_bsz, t4, a100);
    EXPECT_GT(ratio, 0);
    EXPECT_LT(ratio, 1);  // an A100 computes faster than a T4
    EXPECT_EQ(d.placement, m.placement);
    EXPECT_EQ(d.sync_time_s, m.sync_time_s);
    EXPECT_DOUBLE_EQ(d.step_time_s, m.sync_time_s + (m.step_time_s - m.sync_time_s) * ratio);
    EXPECT_DOUBLE_EQ(same->placements[i].step_time_s, m.step_time_s);  // ratio 1 on the measured type
  }
  ASSERT_EQ(derived->scalability.size(), measured->scalability.size());
  EXPECT_LT(derived->scalability[0].step_time_s, measured->scalability[0].step_time_s);
  EXPECT_EQ(derived->scalability[0].sync_time_s, measured->scalability[0].sync_time_s);
  // The folder reads as Sia's does: the measured type unsuffixed, the derived one by its suffix.
  auto catalog = GoodputCatalog::OpenNamed(dir, {{"", "t4"}, {"a100", "a100-40gb"}}, "pollux", devices);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto truth = catalog->Get("cifar10");
  ASSERT_TRUE(truth.ok()) << truth.status().ToString();
  EXPECT_EQ(truth->types().size(), 2u);
}

TEST(DerivedProfilesTest, BadInputNamesWhatFailed) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const DeviceType& t4 = devices.type(devices.Find("t4"));
  const std::string dir = Fresh("bad");
  Status s = DeriveGoodputProfiles(kPollux, dir, {"no-such-app"}, t4, {{"x", &t4}}, ModelZoo::BuiltIn());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no-such-app"), std::string::npos) << s.ToString();
  // A folder without the application's files: the missing file is named, nothing written.
  s = DeriveGoodputProfiles(dir + "/empty", dir + "/out", {"cifar10"}, t4, {{"x", &t4}}, ModelZoo::BuiltIn());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cifar10"), std::string::npos) << s.ToString();
  EXPECT_FALSE(fs::exists(dir + "/out/cifar10"));
}

}  // namespace
}  // namespace hetsched
