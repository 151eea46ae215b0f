// Whole-simulation benchmark (issue targets: 1,000,000 synthetic jobs on a 10,000-GPU
// heterogeneous cluster under 60 s and 2 GB per policy; one scheduling decision with >= 1,000
// pending jobs on 10,000 GPUs under 1 ms p99). Prints figures; asserts nothing.
//
//   sim_bench [--jobs N] [--gpus G] [--policy NAME] [--placer NAME] [--load L]
//
// The cluster: G GPUs split 40% v100-16gb, 30% p100, 20% k80, 10% a100-40gb, 8 per server
// (4 for k80/p100), 16 servers per rack, 25 GbE NICs. Arrival rate chosen so the offered load is
// about L (default 0.8) of the cluster's capacity in V100 equivalents (by sustained FLOP/s).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fmt/core.h>
#include <string>

#include "hetsched/metrics/latency_histogram.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/model/cluster.h"
#include "hetsched/sim/runner.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/memory.h"

using namespace hetsched;

namespace {

Result<Cluster> BenchCluster(int gpus) {
  const auto& devices = DeviceCatalog::BuiltIn();
  const auto& links = LinkCatalog::BuiltIn();
  Cluster c(&devices, &links);
  struct Share { const char* type; double frac; int per_node; const char* intra; };
  const Share shares[] = {{"v100", 0.4, 8, "nvlink2"}, {"p100", 0.3, 4, "pcie3"}, {"k80", 0.2, 4, "pcie3"},
                          {"a100", 0.1, 8, "nvlink3"}};
  const LinkClassId eth = links.Find("eth25");
  int rack_nodes = 16;
  RackId rack = -1;
  int in_rack = rack_nodes;
  for (const Share& s : shares) {
    const DeviceTypeId t = devices.Find(s.type);
    int remaining = static_cast<int>(gpus * s.frac);
    while (remaining > 0) {
      if (in_rack == rack_nodes) {
        Rack r;
        r.name = "rack" + std::to_string(c.racks().size());
        r.uplink = links.Find("eth100");
        r.uplink_count = 4;
        rack = c.AddRack(r);
        in_rack = 0;
      }
      Node n;
      n.name = fmt::format("{}-{}", s.type, c.num_nodes());
      n.rack = rack;
      n.device_type = t;
      n.num_devices = std::min(s.per_node, remaining);
      n.intra_link = links.Find(s.intra);
      n.nic = eth;
      n.cpu_cores = 64;
      n.host_memory_bytes = 512e9;
      c.AddNode(n);
      remaining -= n.num_devices;
      ++in_rack;
    }
  }
  HETSCHED_RETURN_IF_ERROR(c.Validate());
  return c;
}

// FNV-1a over every per-job outcome and every timeline sample: two runs with the same digest
// made the same decisions. Used to check that a speed-up changed no result.
uint64_t ResultDigest(const RunRecord& run) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ULL;
    }
  };
  auto mix_value = [&mix](const auto& v) { mix(&v, sizeof(v)); };
  for (const JobRecord& j : run.jobs) {
    mix_value(j.id);
    mix_value(j.device_type);
    mix_value(j.first_start_s);
    mix_value(j.finish_s);
    mix_value(j.gpu_seconds);
    mix_value(j.cross_node_bytes);
    mix_value(j.preemptions);
    mix_value(j.max_span_nodes);
  }
  for (size_t i = 0; i < run.timeline.size(); ++i) {
    const TimelineSample& s = run.timeline[i];
    mix_value(s.time_s);
    mix_value(s.busy_devices);
    mix_value(s.running_jobs);
    mix_value(s.pending_jobs);
    for (int b : run.BusyByType(i)) mix_value(b);
  }
  mix_value(run.events);
  mix_value(run.scheduler_calls);
  return h;
}

double PeakRssMiB() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  hetsched::KeepFreedHeapMemory();  // as the CLI's process does
  long long jobs = 1000000;
  int gpus = 10000;
  std::string policy = "fifo", placer = "pack";
  double load = 0.8;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") {
      fmt::print("usage: sim_bench [--jobs N] [--gpus G] [--policy NAME] [--placer NAME] [--load L]\n"
                 "defaults: --jobs 1000000 --gpus 10000 --policy fifo --placer pack --load 0.8\n");
      return 0;
    }
    if (i + 1 >= argc) { fmt::print(stderr, "option {} needs a value\n", k); return 2; }
    if (k == "--jobs") jobs = std::stoll(argv[i + 1]);
    else if (k == "--gpus") gpus = std::stoi(argv[i + 1]);
    else if (k == "--policy") policy = argv[i + 1];
    else if (k == "--placer") placer = argv[i + 1];
    else if (k == "--load") load = std::stod(argv[i + 1]);
    else { fmt::print(stderr, "unknown option {}\n", k); return 2; }
  }
  auto cluster = BenchCluster(gpus);
  if (!cluster.ok()) { fmt::print(stderr, "{}\n", cluster.status().ToString()); return 1; }

  SyntheticOptions so;
  so.num_jobs = jobs;
  so.seed = 7;
  // Offered load: rate x mean GPU-seconds per job / GPUs. The generator's default mix has a mean
  // of about 2.3 GPUs and a median runtime of 1,200 s (log-normal sigma 1.6 -> mean ~4,300 s)
  // on V100; measured below from the generated workload and reported.
  so.arrival_rate_per_hour = 1.0;
  const auto g0 = std::chrono::steady_clock::now();
  SyntheticOptions probe_options = so;
  probe_options.num_jobs = 20000;
  auto probe = GenerateSynthetic(probe_options, cluster->device_catalog(), ModelZoo::BuiltIn());
  if (!probe.ok()) { fmt::print(stderr, "{}\n", probe.status().ToString()); return 1; }
  double gpu_s = 0;
  for (const Job& j : probe->jobs) gpu_s += j.spec.estimated_runtime_s * j.spec.num_gpus;
  const double mean_gpu_s = gpu_s / static_cast<double>(probe->jobs.size());
  // Capacity in reference-device (V100) equivalents: job runtimes are calibrated on V100, and a K80
  // runs the same job several times slower, so counting every GPU as one V100 would offer more work
  // than the cluster can do and the queue would grow without bound.
  const DeviceType& ref = cluster->device_catalog().type(cluster->device_catalog().Find("v100"));
  double capacity_eq = 0;
  for (DeviceTypeId t : cluster->present_types()) {
    const DeviceType& d = cluster->device_catalog().type(t);
    capacity_eq += cluster->devices_per_type()[static_cast<size_t>(t)] * (d.fp32_flops * d.efficiency) /
                   (ref.fp32_flops * ref.efficiency);
  }
  so.arrival_rate_per_hour = load * capacity_eq * 3600.0 / mean_gpu_s;
  auto workload = GenerateSynthetic(so, cluster->device_catalog(), ModelZoo::BuiltIn());
  if (!workload.ok()) { fmt::print(stderr, "{}\n", workload.status().ToString()); return 1; }
  const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();

  MethodChoice choice;
  choice.policy = policy;
  choice.placer = placer;
  SimOptions opt;
  opt.seed = 7;
  opt.skip_unfit_jobs = true;
  // Decision times in fixed memory: a 1M-job run makes millions of calls (17M for Tiresias-LAS
  // at load 0.8), and a vector of them outgrew the simulation's own memory.
  LatencyHistogram all, loaded;
  opt.decision_timing = [&](double s, long long pending) {
    all.Add(s);
    if (pending >= 1000) loaded.Add(s);
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto run = RunSimulation(*cluster, ModelZoo::BuiltIn(), *workload, choice, opt);
  const double sim_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.ok()) { fmt::print(stderr, "{}\n", run.status().ToString()); return 1; }

  long long finished = 0;
  for (const auto& j : run->jobs) finished += j.finished() ? 1 : 0;
  fmt::print("cluster            : {}\n", cluster->Summary());
  fmt::print("workload           : {} jobs, arrival rate {:.0f}/h (offered load {:.2f} of {:.0f} V100-equivalents), "
             "generated in {:.2f} s\n",
             workload->jobs.size(), so.arrival_rate_per_hour, load, capacity_eq, gen_s);
  fmt::print("policy / placer    : {} / {}\n", policy, placer);
  fmt::print("simulation wall    : {:.2f} s  ({} events, {} scheduler calls, {} finished, {} rejected)\n", sim_s,
             run->events, run->scheduler_calls, finished, run->jobs_rejected);
  fmt::print("events per second  : {:.0f}\n", static_cast<double>(run->events) / sim_s);
  const Summary summary = Summarize(*run);
  fmt::print("outcome            : utilisation {:.1f}%, avg JCT {:.2f} h, avg queueing {:.2f} h, {} preemptions\n",
             100 * summary.utilisation, summary.jct_s.mean / 3600, summary.queueing_delay_s.mean / 3600,
             summary.preemptions);
  // Is the run in a steady state? Busy devices and queue length at each quarter of the arrival
  // period (the last sample at or before that time): a queue that keeps growing means the policy
  // cannot keep up at this load, and events per job then grow with the run's length.
  if (!workload->jobs.empty() && !run->timeline.empty()) {
    const double last_arrival = workload->jobs.back().spec.submit_time_s;
    std::string quarters;
    size_t k = 0;
    for (int q = 1; q <= 4; ++q) {
      const double t = last_arrival * q / 4.0;
      while (k + 1 < run->timeline.size() && run->timeline[k + 1].time_s <= t) ++k;
      const TimelineSample& s = run->timeline[k];
      quarters += fmt::format("{}{}% busy {}, pending {}", q == 1 ? "" : "; ", q * 25, s.busy_devices,
                              s.pending_jobs);
    }
    int max_pending = 0;
    for (const TimelineSample& s : run->timeline) max_pending = std::max(max_pending, s.pending_jobs);
    fmt::print("arrival period     : {} (max pending {})\n", quarters, max_pending);
  }
  fmt::print("peak memory (RSS)  : {:.0f} MiB ({} timeline samples)\n", PeakRssMiB(), run->timeline.size());
  fmt::print("result digest      : {:016x}\n", ResultDigest(*run));
  fmt::print("decision time      : p50 {:.1f} us, p99 {:.1f} us, max {:.1f} us over {} calls (p50/p99 to 0.8%)\n",
             all.Quantile(0.5) * 1e6, all.Quantile(0.99) * 1e6, all.max_s() * 1e6, all.count());
  fmt::print("  with >=1000 pending: p50 {:.1f} us, p99 {:.1f} us over {} calls\n", loaded.Quantile(0.5) * 1e6,
             loaded.Quantile(0.99) * 1e6, loaded.count());
  return 0;
}
