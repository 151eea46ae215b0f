// LinkTrafficMeter: loads add up per link and direction, replacing a job's contribution or
// removing it lowers the load, and the peak keeps the highest load seen (worked by hand).
#include "hetsched/sim/link_traffic.h"

#include <gtest/gtest.h>

#include "sim_world.h"

namespace hetsched {
namespace {

TEST(LinkTrafficMeterTest, PeaksOfSummedLoads) {
  auto w = testing_util::MakeSimWorld(3, 4);  // NICs "fast": 100e9 B/s x efficiency
  LinkTrafficMeter meter(*w->cluster);
  PlanTraffic a;
  a.nics = {LinkBytes{0, 2e8, 1e8}, LinkBytes{1, 1e8, 2e8}};
  PlanTraffic b;
  b.nics = {LinkBytes{1, 3e8, 0}};
  meter.Set(7, a, 0.5);  // node 1: out 2e8 B/s, in 4e8 B/s
  meter.Set(8, b, 1.0);  // node 1: out 2e8 + 3e8 = 5e8 B/s: the peak
  meter.Settle();
  meter.Remove(8);
  meter.Set(7, a, 1.0);  // halves job 7's load; the peaks stay
  meter.Set(9, b, 0.1);  // 3e9 B/s on node 1, but gone before the next Settle: never a peak
  meter.Remove(9);
  meter.Settle();
  std::vector<LinkPeak> peaks;
  meter.Report(&peaks);
  ASSERT_EQ(peaks.size(), 2u);
  EXPECT_EQ(peaks[0].link, "nic:n0");
  EXPECT_DOUBLE_EQ(peaks[0].peak_Bps, 4e8);  // 2e8 B per 0.5 s
  EXPECT_EQ(peaks[1].link, "nic:n1");
  EXPECT_DOUBLE_EQ(peaks[1].peak_Bps, 5e8);
  EXPECT_DOUBLE_EQ(peaks[1].capacity_Bps, w->links.link(w->cluster->node(1).nic).effective_bandwidth_Bps());
}

}  // namespace
}  // namespace hetsched
