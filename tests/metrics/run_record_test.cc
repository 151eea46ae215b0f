// What a run segment adds to a job's record (metrics/run_record.h): device time, energy above
// idle and price, each device at its own type's.
#include "hetsched/metrics/run_record.h"

#include <gtest/gtest.h>

#include <vector>

#include "hetsched/model/device.h"
#include "hetsched/model/link.h"

namespace hetsched {
namespace {

// Two V100s and two T4s held for 1,800 s by a job split over both types (docs/goodput.md, "Split
// jobs"): each pair at its own price and power, by hand; where every device is of the first type,
// exactly Holding's figures.
TEST(RunRecordTest, ASegmentOnTwoTypesPaysEachTypesPrice) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  auto cluster = MakeShorthandCluster({{"v100", 2}, {"t4", 2}}, 2, devices, LinkCatalog::BuiltIn());
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  std::vector<DeviceId> v100, t4;
  for (DeviceId d = 0; d < cluster->num_devices(); ++d) {
    (cluster->device(d).type == cluster->device(0).type ? v100 : t4).push_back(d);
  }
  ASSERT_EQ(v100.size(), 2u);
  ASSERT_EQ(t4.size(), 2u);
  const DeviceType& tv = devices.type(cluster->device(v100[0]).type);
  const DeviceType& tt = devices.type(cluster->device(t4[0]).type);
  ASSERT_NE(tv.price_per_hour, tt.price_per_hour);  // else the test could not tell them apart

  const std::vector<DeviceId> split{v100[0], v100[1], t4[0], t4[1]};
  const SegmentTotals seg = SegmentTotals::HoldingDevices(*cluster, split, cluster->device(v100[0]).type, 1800);
  EXPECT_DOUBLE_EQ(seg.gpu_seconds, 4 * 1800.0);
  EXPECT_NEAR(seg.cost_usd, 0.5 * 2 * tv.price_per_hour + 0.5 * 2 * tt.price_per_hour, 1e-12);
  EXPECT_NEAR(seg.busy_energy_joules,
              1800.0 * 2 * (tv.tdp_watts - tv.idle_watts) + 1800.0 * 2 * (tt.tdp_watts - tt.idle_watts), 1e-6);

  const SegmentTotals one = SegmentTotals::HoldingDevices(*cluster, v100, cluster->device(v100[0]).type, 1800);
  const SegmentTotals want = SegmentTotals::Holding(tv, 2, 1800);
  EXPECT_EQ(one.cost_usd, want.cost_usd);
  EXPECT_EQ(one.busy_energy_joules, want.busy_energy_joules);
  EXPECT_EQ(one.gpu_seconds, want.gpu_seconds);
}

}  // namespace
}  // namespace hetsched
