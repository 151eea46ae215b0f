// Small hand-built clusters for sched/ tests (no dependency on the built-in catalog's numbers).
#pragma once

#include <memory>

#include "hetsched/model/cluster.h"

namespace hetsched::testing_util {

struct TinyWorld {
  DeviceCatalog devices;
  LinkCatalog links;
  std::unique_ptr<Cluster> cluster;
  DeviceTypeId gpu_a = kNoDeviceType;
  DeviceTypeId gpu_b = kNoDeviceType;
};

// `nodes_a` nodes of 4 "gpu-a" devices followed by `nodes_b` nodes of 2 "gpu-b", one rack.
inline std::unique_ptr<TinyWorld> MakeTinyWorld(int nodes_a, int nodes_b) {
  auto w = std::make_unique<TinyWorld>();
  DeviceType a;
  a.name = "gpu-a";
  a.fp32_flops = 10e12;
  a.memory_bytes = 16e9;
  a.memory_bandwidth_Bps = 900e9;
  a.tdp_watts = 300;
  a.idle_watts = 90;
  a.price_per_hour = 2;
  DeviceType b = a;
  b.name = "gpu-b";
  b.fp32_flops = 5e12;
  w->gpu_a = w->devices.Add(a);
  w->gpu_b = w->devices.Add(b);
  LinkClass nv;
  nv.name = "nv";
  nv.bandwidth_Bps = 100e9;
  nv.latency_s = 2e-6;
  LinkClass eth = nv;
  eth.name = "eth";
  eth.bandwidth_Bps = 3e9;
  const LinkClassId nv_id = w->links.Add(nv);
  const LinkClassId eth_id = w->links.Add(eth);
  w->cluster = std::make_unique<Cluster>(&w->devices, &w->links);
  Rack rack;
  rack.name = "r0";
  rack.uplink = eth_id;
  const RackId r = w->cluster->AddRack(rack);
  for (int i = 0; i < nodes_a + nodes_b; ++i) {
    Node n;
    n.name = "n" + std::to_string(i);
    n.rack = r;
    n.device_type = i < nodes_a ? w->gpu_a : w->gpu_b;
    n.num_devices = i < nodes_a ? 4 : 2;
    n.intra_link = nv_id;
    n.nic = eth_id;
    n.cpu_cores = 32;
    n.host_memory_bytes = 256e9;
    w->cluster->AddNode(n);
  }
  return w;
}

}  // namespace hetsched::testing_util
