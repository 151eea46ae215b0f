// LinkTrafficMeter: loads add up per link and direction, replacing a job's contribution or
// removing it lowers the load, and the peak keeps the highest load seen (worked by hand); the sums
// are exact, so the order of updates does not matter.
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

// Three jobs on node 0 at 0.1, 0.2 and 0.3 B/s (bytes over 1 s): summed in floating point,
// (0.1 + 0.2) + 0.3 and (0.3 + 0.2) + 0.1 differ in the last bit. The simulator re-times the
// jobs of a scheduling call in an order of its own, so the meter must give the same figures
// whatever the order.
TEST(LinkTrafficMeterTest, LoadsDoNotDependOnTheOrderOfUpdates) {
  auto w = testing_util::MakeSimWorld(3, 4);
  const auto on_node0 = [](double bytes) {
    PlanTraffic t;
    t.nics = {LinkBytes{0, bytes, 0}};
    return t;
  };
  const auto peak_after = [&](std::initializer_list<std::pair<int, double>> order) {
    LinkTrafficMeter meter(*w->cluster);
    for (const auto& [key, bytes] : order) meter.Set(key, on_node0(bytes), 1.0);
    meter.Settle();
    std::vector<LinkPeak> peaks;
    meter.Report(&peaks);
    EXPECT_EQ(peaks.size(), 1u);
    return peaks.empty() ? -1.0 : peaks[0].peak_Bps;
  };
  const double one_order = peak_after({{1, 0.1}, {2, 0.2}, {3, 0.3}});
  EXPECT_EQ(one_order, peak_after({{1, 0.1}, {3, 0.3}, {2, 0.2}}));
  EXPECT_EQ(one_order, peak_after({{3, 0.3}, {2, 0.2}, {1, 0.1}}));
  EXPECT_NEAR(one_order, 0.6, 1.0 / 256);  // to the meter's unit, 1/256 B/s
}

}  // namespace
}  // namespace hetsched
