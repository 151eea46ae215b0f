// DLTAP benchmark (docs/PERFORMANCE.md, "DLTAP"). Prints figures; asserts nothing.
//   dltap_bench [placements]
// Placing one parameter-server job of 8 servers + 64 one-GPU workers on a 2,000-node cluster
// (8 V100s, 64 cores, 512 GiB per node), target < 5 ms per placement, p50/p99 over
// `placements` (default 500) placements, wall and thread CPU time, for every container placer
// except ps-optimal:
//   empty:  the empty cluster (the job fits nowhere whole: servers spread, workers follow);
//   loaded: about 60% of every resource held by other jobs' containers (random sizes), so the
//           index's bounds differ from node to node.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/rng.h"

using namespace hetsched;

namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kGiB = 1073741824;

// This thread's CPU time: on a shared machine, wall time includes waiting for a core.
double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

Cluster MakeCluster(int nodes) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  Cluster cluster(&devices, &links);
  Rack rack;
  rack.name = "r";
  rack.uplink = *links.Lookup("eth100");
  cluster.AddRack(rack);
  for (int i = 0; i < nodes; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    node.device_type = *devices.Lookup("v100-32gb");
    node.num_devices = 8;
    node.intra_link = *links.Lookup("nvlink2");
    node.nic = *links.Lookup("eth25");
    node.cpu_cores = 64;
    node.host_memory_bytes = 512.0 * kGiB;
    cluster.AddNode(node);
  }
  return cluster;
}

JobSpec BenchJob() {
  JobSpec s;
  s.id = 0;
  s.model = "resnet50";
  s.num_ps = 8;
  s.num_workers = 64;
  s.ps_request = ContainerRequest{4000, 16 * kGiB, 0};
  s.worker_request = ContainerRequest{6000, 48 * kGiB, 1};
  s.num_gpus = 64;
  s.parallelism = Parallelism::kDataPS;
  return s;
}

void Load(ClusterState* state, const Cluster& cluster) {
  Rng rng(7);
  JobId job = 1000;
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    // 1-5 containers per node of random size, about 60% of each resource in all.
    std::vector<ContainerPlacement> here;
    int gpu = 0;
    const int count = 1 + static_cast<int>(rng.Below(5));
    for (int k = 0; k < count; ++k) {
      ContainerPlacement c;
      c.node = n;
      c.request.cpu_millicores = static_cast<int64_t>(rng.Uniform(0.3, 0.9) * 64000 / count);
      c.request.memory_bytes = static_cast<int64_t>(rng.Uniform(0.3, 0.9) * 512.0 * kGiB / count);
      c.request.gpus = std::min(static_cast<int>(rng.Below(3)), 8 - gpu);
      for (int g = 0; g < c.request.gpus; ++g) c.devices.push_back(cluster.node(n).first_device + gpu++);
      here.push_back(std::move(c));
    }
    if (!state->AllocateContainers(job++, here).ok()) std::abort();
  }
}

void Bench(const char* placer_name, const ClusterState& state, const char* what, int placements) {
  auto placer = Registry<Placer>::Instance().Create(placer_name, Options{});
  if (!placer.ok()) std::abort();
  const JobSpec job = BenchJob();
  std::vector<double> ms, cpu_ms;
  int spanned = 0;
  for (int i = 0; i < placements; ++i) {
    std::vector<ContainerPlacement> out;
    std::string reason;
    const auto t0 = Clock::now();
    const double c0 = ThreadCpuMs();
    const bool ok = (*placer)->PlaceContainers(PlacementRequest{&job, job.num_gpus, kNoDeviceType}, state, &out, &reason);
    cpu_ms.push_back(ThreadCpuMs() - c0);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (!ok) {
      std::printf("%s: %s\n", placer_name, reason.c_str());
      return;
    }
    std::vector<NodeId> nodes;
    for (const auto& c : out) nodes.push_back(c.node);
    std::sort(nodes.begin(), nodes.end());
    spanned = static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
  }
  std::printf("%-12s %-7s wall p50 %7.3f ms  p99 %7.3f ms | cpu p50 %7.3f ms  p99 %7.3f ms  (%d nodes used)\n",
              placer_name, what, Percentile(ms, 0.5), Percentile(ms, 0.99), Percentile(cpu_ms, 0.5),
              Percentile(cpu_ms, 0.99), spanned);
}

}  // namespace

int main(int argc, char** argv) {
  const int placements = argc > 1 ? std::max(1, std::atoi(argv[1])) : 500;
  const Cluster cluster = MakeCluster(2000);
  std::printf("one job of 8 servers + 64 workers on %s; %d placements each\n", cluster.Summary().c_str(), placements);
  ClusterState empty(cluster);
  ClusterState loaded(cluster);
  Load(&loaded, cluster);
  for (const char* placer : {"dltap", "k8s-spread", "k8s-binpack", "k8s-random"}) {
    Bench(placer, empty, "empty", placements);
    Bench(placer, loaded, "loaded", placements);
  }
  return 0;
}
