// Hand-made catalogs, clusters and model profiles with round numbers, so that the perf tests
// can state their expected values as arithmetic in comments.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/device.h"
#include "hetsched/model/link.h"
#include "hetsched/model/model_zoo.h"

namespace hetsched::perf_test {

// "gpu-a": F = 10 TFLOP/s x 0.5 = 5e12 FLOP/s, W = 1e12 B/s, 16e9 B, kappa = 2 ms.
// "gpu-b": F = 5 TFLOP/s x 0.4 = 2e12 FLOP/s, W = 0.5e12 B/s, 12e9 B, kappa = 2 ms.
// "nvl":   120e9 B/s effective (150 GB/s x 0.8), 2 us.   (NVLink 2 figures)
// "e25":   2.1875e9 B/s effective (3.125 GB/s x 0.7), 20 us.  (25 GbE figures)
// "e100":  8.75e9 B/s effective (12.5 GB/s x 0.7), 10 us.  (100 GbE, used as a rack uplink)
struct World {
  DeviceCatalog devices;
  LinkCatalog links;
  Cluster cluster;
  DeviceTypeId gpu_a = kNoDeviceType;
  DeviceTypeId gpu_b = kNoDeviceType;
  LinkClassId nvl = kNoLinkClass;
  LinkClassId e25 = kNoLinkClass;
  LinkClassId e100 = kNoLinkClass;

  World() {
    DeviceType a;
    a.name = "gpu-a";
    a.fp32_flops = 10e12;
    a.efficiency = 0.5;
    a.memory_bandwidth_Bps = 1e12;
    a.memory_bytes = 16e9;
    a.iteration_overhead_s = 0.002;
    gpu_a = devices.Add(a);
    DeviceType b = a;
    b.name = "gpu-b";
    b.fp32_flops = 5e12;
    b.efficiency = 0.4;
    b.memory_bandwidth_Bps = 0.5e12;
    b.memory_bytes = 12e9;
    gpu_b = devices.Add(b);
    nvl = links.Add(LinkClass{"nvl", "NVLink-like", 150e9, 2e-6, 0.8, "test"});
    e25 = links.Add(LinkClass{"e25", "25 GbE-like", 3.125e9, 20e-6, 0.7, "test"});
    e100 = links.Add(LinkClass{"e100", "100 GbE-like", 12.5e9, 10e-6, 0.7, "test"});
    cluster = Cluster(&devices, &links);
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  RackId AddRack(LinkClassId uplink = kNoLinkClass, double oversubscription = 1.0) {
    Rack r;
    r.name = "rack" + std::to_string(cluster.racks().size());
    r.uplink = uplink;
    r.oversubscription = oversubscription;
    return cluster.AddRack(r);
  }
  NodeId AddNode(RackId rack, DeviceTypeId type, int num_devices) {
    Node n;
    n.name = "node" + std::to_string(cluster.num_nodes());
    n.rack = rack;
    n.device_type = type;
    n.num_devices = num_devices;
    n.intra_link = nvl;
    n.nic = e25;
    return cluster.AddNode(n);
  }
  // Two racks with "e100" uplinks: nodes a and b in the first, c in the second, each holding
  // `num_devices` gpu-a devices.
  struct TwoRacks {
    RackId r0, r1;
    NodeId a, b, c;
  };
  TwoRacks AddTwoRacks(int num_devices) {
    TwoRacks t{};
    t.r0 = AddRack(e100);
    t.r1 = AddRack(e100);
    t.a = AddNode(t.r0, gpu_a, num_devices);
    t.b = AddNode(t.r0, gpu_a, num_devices);
    t.c = AddNode(t.r1, gpu_a, num_devices);
    return t;
  }
  // Devices [first, first + count) of node `node`.
  std::vector<DeviceId> DevicesOf(NodeId node, int count) const {
    std::vector<DeviceId> out;
    for (int i = 0; i < count; ++i) out.push_back(cluster.node(node).first_device + i);
    return out;
  }
};

inline std::unique_ptr<World> MakeWorld() { return std::make_unique<World>(); }

inline LayerProfile Layer(std::string name, double fwd_flops, double param_bytes,
                          double activation_bytes) {
  LayerProfile l;
  l.name = std::move(name);
  l.kind = LayerKind::kDense;
  l.fwd_flops_per_sample = fwd_flops;
  l.bwd_flops_per_sample = 2 * fwd_flops;
  l.param_bytes = param_bytes;
  l.activation_bytes_per_sample = activation_bytes;
  return l;
}

// One dense layer: 1e9 FLOP forward (3e9 with backward) per sample, 100 MB of parameters,
// 1 MB of activations per sample.
inline ModelProfile OneLayerModel() {
  ModelProfile m;
  m.name = "one-layer";
  m.layers.push_back(Layer("dense", 1e9, 1e8, 1e6));
  return m;
}

}  // namespace hetsched::perf_test
