// GADGET benchmark (docs/PERFORMANCE.md, "GADGET"). Prints figures; asserts nothing.
//   gadget_bench
// 1. The gadget-ring placer placing one 32-GPU ring on a 10,000-GPU cluster (1,250 servers of 8
//    V100s, about half of the devices busy at random, so no server holds 32 and the ring spans
//    servers): p50/p99 over 2,000 placements (target: < 5 ms).
// 2. The same with 8 free GPUs on a server (best fit on one server).
// 3. GreedyAllocate for 100 jobs x 32 workers (one GADGET decision's step 1).
// 4. The whole E4 experiment (`hetsched experiment gadget`, 2 workloads x 8 methods x 1,000 jobs),
//    one thread (target: < 30 s).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "hetsched/experiments/experiment.h"
#include "hetsched/model/cluster.h"
#include "hetsched/policies/gadget/core.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/rng.h"

using namespace hetsched;

namespace {

using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

void PlaceBench(const Cluster& cluster, double busy_fraction, const char* what) {
  ClusterState state(cluster);
  Rng rng(5);
  std::vector<DeviceId> busy;
  for (DeviceId d = 0; d < cluster.num_devices(); ++d) {
    if (rng.Uniform() < busy_fraction) busy.push_back(d);
  }
  if (!state.Allocate(1, busy).ok()) return;
  auto placer = Registry<Placer>::Instance().Create("gadget-ring", Options());
  if (!placer.ok()) return;
  std::vector<double> ms;
  std::vector<DeviceId> out;
  size_t placed = 0;
  for (int i = 0; i < 2000; ++i) {
    out.clear();
    const auto t0 = Clock::now();
    placed += (*placer)->Place(PlacementRequest{nullptr, 32, kNoDeviceType}, state, &out) ? out.size() : 0;
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::vector<NodeId> nodes;
  for (DeviceId d : out) nodes.push_back(cluster.device(d).node);
  std::sort(nodes.begin(), nodes.end());
  const long span = std::unique(nodes.begin(), nodes.end()) - nodes.begin();
  std::printf("gadget-ring, 32 GPUs on %d GPUs (%s; %zu devices placed per call, %ld servers): p50 %.4f ms, "
              "p99 %.4f ms, max %.4f ms\n",
              cluster.num_devices(), what, placed / 2000, span, Percentile(ms, 0.5), Percentile(ms, 0.99),
              Percentile(ms, 1.0));
}

}  // namespace

int main() {
  auto cluster = MakeShorthandCluster({{"v100", 10000}}, 8, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
  if (!cluster.ok()) {
    std::printf("%s\n", cluster.status().message().c_str());
    return 1;
  }
  PlaceBench(*cluster, 0.6, "60% busy at random: spans servers");
  PlaceBench(*cluster, 0.0, "idle: four whole servers");

  Rng rng(9);
  std::vector<gadget::AllocItem> items(100);
  for (auto& item : items) {
    item.value.assign(33, 0.0);
    double step = rng.Uniform(1.0, 10.0);
    for (size_t w = 1; w < item.value.size(); ++w) {
      item.value[w] = item.value[w - 1] + step;
      step *= rng.Uniform(0.5, 1.0);
    }
  }
  std::vector<double> us;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = Clock::now();
    const gadget::Allocation a = gadget::GreedyAllocate(items, 216);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (a.objective < 0) std::printf("?");
  }
  std::printf("GreedyAllocate, 100 jobs x 32 workers, 216 GPUs: p50 %.1f us, p99 %.1f us\n", Percentile(us, 0.5),
              Percentile(us, 0.99));

  auto experiment = Registry<Experiment>::Instance().Create("gadget", Options());
  if (!experiment.ok()) return 1;
  ExperimentContext ctx;
  ctx.out_dir = "/tmp";
  ctx.threads = 1;
  ctx.print = [](const std::string&) {};
  const auto t0 = Clock::now();
  const Status st = (*experiment)->Run(ctx);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("experiment gadget (E4, 16 runs of 1,000 jobs, one thread): %.2f s%s\n", s,
              st.ok() ? "" : (" FAILED: " + st.message()).c_str());
  return st.ok() ? 0 : 1;
}
