// A tiny, fully hand-specified world for golden simulator scenarios: one 4-device node of a GPU
// that sustains exactly 5 TFLOP/s (10 TFLOP/s peak x efficiency 0.5, no per-iteration overhead)
// and a one-layer model of 3 GFLOP per sample (1 forward + 2 backward) with no parameters, so
// that one iteration of batch 5 takes 5 x 3e9 / 5e12 = 3 ms on any number of devices (nothing to
// all-reduce). A job of I iterations therefore runs for exactly I x 3 ms.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/trace/trace.h"

namespace hetsched::testing_util {

struct SimWorld {
  DeviceCatalog devices;
  LinkCatalog links;
  std::unique_ptr<Cluster> cluster;
  ModelZoo zoo;
};

inline std::unique_ptr<SimWorld> MakeSimWorld(int nodes = 1, int per_node = 4) {
  auto w = std::make_unique<SimWorld>();
  DeviceType gpu;
  gpu.name = "gpu";
  gpu.fp32_flops = 10e12;
  gpu.efficiency = 0.5;
  gpu.iteration_overhead_s = 0;
  gpu.memory_bytes = 16e9;
  gpu.memory_bandwidth_Bps = 1e15;
  gpu.tdp_watts = 300;
  gpu.idle_watts = 100;
  gpu.price_per_hour = 3.6;  // $0.001 per device-second
  w->devices.Add(gpu);
  LinkClass fast;
  fast.name = "fast";
  fast.bandwidth_Bps = 100e9;
  fast.latency_s = 0;
  const LinkClassId link = w->links.Add(fast);
  w->cluster = std::make_unique<Cluster>(&w->devices, &w->links);
  Rack rack;
  rack.name = "r0";
  rack.uplink = link;
  const RackId r = w->cluster->AddRack(rack);
  for (int i = 0; i < nodes; ++i) {
    Node n;
    n.name = "n" + std::to_string(i);
    n.rack = r;
    n.device_type = 0;
    n.num_devices = per_node;
    n.intra_link = link;
    n.nic = link;
    n.cpu_cores = 8;
    n.host_memory_bytes = 64e9;
    w->cluster->AddNode(n);
  }
  ModelProfile unit;
  unit.name = "unit";
  unit.display_name = "one 1-GFLOP layer";
  unit.default_batch_size = 5;
  LayerProfile layer;
  layer.name = "dense";
  layer.kind = LayerKind::kDense;
  layer.fwd_flops_per_sample = 1e9;
  layer.bwd_flops_per_sample = 2e9;
  unit.layers.push_back(layer);
  w->zoo.Add(unit);
  return w;
}

// A job of the "unit" model; runtime_s must be a multiple of 3 ms.
inline Job UnitJob(JobId id, double submit_s, int gpus, double runtime_s) {
  Job j;
  j.spec.id = id;
  j.spec.name = "job" + std::to_string(id);
  j.spec.user = "u";
  j.spec.model = "unit";
  j.spec.batch_size = 5;
  j.spec.num_gpus = gpus;
  j.spec.submit_time_s = submit_s;
  j.spec.iterations = static_cast<int64_t>(runtime_s / 0.003 + 0.5);
  j.spec.estimated_runtime_s = runtime_s;
  j.truth.total_iterations = static_cast<double>(j.spec.iterations);
  return j;
}

inline Workload MakeWorkload(std::vector<Job> jobs) {
  Workload w;
  w.jobs = std::move(jobs);
  w.source = "golden";
  return w;
}

}  // namespace hetsched::testing_util
