// Shared by the placement tests: a placer from the registry, a state with some devices busy.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../policies/fake_backend.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched::test {

inline std::unique_ptr<Placer> MakePlacer(const std::string& name, const std::vector<std::string>& options = {}) {
  auto parsed = Options::Parse(options);
  EXPECT_TRUE(parsed.ok());
  auto made = Registry<Placer>::Instance().Create(name, *parsed);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::move(made).value() : nullptr;
}

// Three nodes of 4 fast GPUs: node0 = devices 0..3, node1 = 4..7, node2 = 8..11. Busy: 0, 1, 2
// (job 100) and 4, 5 (job 101), so node0 has 1 free (3), node1 2 (6, 7), node2 4 (8..11).
class ThreeNodeFixture : public ::testing::Test {
 protected:
  ThreeNodeFixture() : cluster_({{kFast, 4}, {kFast, 4}, {kFast, 4}}), state_(cluster_.cluster()) {
    const std::vector<DeviceId> a{0, 1, 2}, b{4, 5};
    EXPECT_TRUE(state_.Allocate(100, a).ok());
    EXPECT_TRUE(state_.Allocate(101, b).ok());
  }
  // Devices placed for `n`, or {-1} when the placer declines.
  std::vector<DeviceId> PlaceN(Placer& placer, int n, const JobSpec* job = nullptr) {
    std::vector<DeviceId> out;
    if (!placer.Place(PlacementRequest{job, n, kNoDeviceType}, state_, &out)) return {-1};
    return out;
  }
  TestCluster cluster_;
  ClusterState state_;
};

}  // namespace hetsched::test
