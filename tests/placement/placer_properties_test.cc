// Properties every placer must keep, checked on random clusters, busy sets and requests:
// exactly n distinct devices, all free, all of one type the job allows (and the requested type
// when one is given), `out`'s earlier content kept, and success exactly when some usable type has
// n free devices (these placers never fail for fragmentation). Plus the registry contract.
#include <set>

#include <gtest/gtest.h>

#include "hetsched/util/rng.h"
#include "placer_test_util.h"

namespace hetsched::test {
namespace {

const char* const kPlacers[] = {"first-fit", "pack", "random", "spread"};

TEST(PlacerPropertiesTest, RandomRequestsKeepTheInvariants) {
  Rng rng(2024);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::pair<DeviceTypeId, int>> nodes;
    const int num_nodes = 1 + static_cast<int>(rng.Below(12));
    for (int i = 0; i < num_nodes; ++i) {
      nodes.push_back({rng.Below(2) == 0 ? kFast : kSlow, 1 + static_cast<int>(rng.Below(8))});
    }
    TestCluster cluster(nodes);
    ClusterState state(cluster.cluster());
    std::vector<DeviceId> busy;
    for (DeviceId d = 0; d < cluster.cluster().num_devices(); ++d) {
      if (rng.Uniform() < 0.5) busy.push_back(d);
    }
    ASSERT_TRUE(state.Allocate(1, busy).ok());
    for (const char* name : kPlacers) {
      auto placer = MakePlacer(name);
      for (int r = 0; r < 30; ++r) {
        JobSpec job;
        const int mode = static_cast<int>(rng.Below(3));
        if (mode == 1) job.allowed_types = {kSlow};
        const DeviceTypeId requested = mode == 2 ? (rng.Below(2) == 0 ? kFast : kSlow) : kNoDeviceType;
        const int n = 1 + static_cast<int>(rng.Below(12));
        bool feasible = false;
        for (DeviceTypeId t : {kFast, kSlow}) {
          if (job.AllowsType(t, state.cluster().device_catalog()) && (requested == kNoDeviceType || requested == t) && state.free_of_type(t) >= n) {
            feasible = true;
          }
        }
        std::vector<DeviceId> out{-7};
        const bool placed = placer->Place({&job, n, requested}, state, &out);
        ASSERT_EQ(placed, feasible) << name << " n=" << n << " trial " << trial;
        ASSERT_EQ(out.front(), -7) << name;
        if (!placed) {
          EXPECT_EQ(out.size(), 1u) << name;
          continue;
        }
        ASSERT_EQ(out.size(), static_cast<size_t>(n) + 1) << name;
        std::set<DeviceId> distinct(out.begin() + 1, out.end());
        EXPECT_EQ(distinct.size(), static_cast<size_t>(n)) << name;
        const DeviceTypeId type = cluster.cluster().device(out[1]).type;
        EXPECT_TRUE(job.AllowsType(type, state.cluster().device_catalog())) << name;
        if (requested != kNoDeviceType) {
          EXPECT_EQ(type, requested) << name;
        }
        for (size_t i = 1; i < out.size(); ++i) {
          EXPECT_TRUE(state.is_free(out[i])) << name << " gave busy device " << out[i];
          EXPECT_EQ(cluster.cluster().device(out[i]).type, type) << name << " mixed types";
        }
      }
    }
  }
}

TEST(PlacerRegistryTest, EveryNameCreatesAndUnknownsAreRejected) {
  for (const char* name : kPlacers) {
    auto made = Registry<Placer>::Instance().Create(name, Options{});
    ASSERT_TRUE(made.ok()) << name;
    EXPECT_EQ((*made)->name(), name);
    Options typo;
    typo.Set("sede", "1");
    EXPECT_FALSE(Registry<Placer>::Instance().Create(name, typo).ok()) << name;
  }
  for (const MethodInfo& info : Registry<Placer>::Instance().List()) {
    EXPECT_EQ(info.provenance.rfind("[", 0), 0u) << info.name;
  }
  auto unknown = Registry<Placer>::Instance().Create("best-effort", Options{});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("first-fit"), std::string::npos);
}

}  // namespace
}  // namespace hetsched::test
