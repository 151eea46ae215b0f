// Hand-built catalogs, models and device sets for the planners' tests: round numbers (efficiency
// 1, no kappa, unlimited memory bandwidth so the roofline is FLOPs / rate) so that the expected
// plans can be worked out by hand in the tests.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/util/rng.h"

namespace hetsched::test {

inline DeviceType ToyType(const std::string& name, double flops, double price) {
  DeviceType t;
  t.name = name;
  t.fp32_flops = flops;
  t.efficiency = 1.0;
  t.iteration_overhead_s = 0;
  t.memory_bytes = 1e12;
  t.memory_bandwidth_Bps = std::numeric_limits<double>::infinity();
  t.price_per_hour = price;
  t.tdp_watts = 100;
  return t;
}

inline LinkClass ToyLink(const std::string& name, double bandwidth_Bps) {
  LinkClass l;
  l.name = name;
  l.bandwidth_Bps = bandwidth_Bps;
  l.latency_s = 0;
  l.efficiency = 1.0;
  return l;
}

inline LayerProfile ToyLayer(const std::string& name, double fwd_flops, double params, double act) {
  LayerProfile l;
  l.name = name;
  l.kind = LayerKind::kDense;
  l.fwd_flops_per_sample = fwd_flops;
  l.bwd_flops_per_sample = 2 * fwd_flops;
  l.param_bytes = params;
  l.activation_bytes_per_sample = act;
  return l;
}

// A random model of `layers` layers with a mix of heavy-compute, heavy-parameter and
// heavy-activation layers (orders of magnitude apart), for DP == brute force properties.
inline ModelProfile RandomModel(Rng& rng, int layers) {
  ModelProfile m;
  m.name = "random";
  m.default_batch_size = 16;
  for (int i = 0; i < layers; ++i) {
    LayerProfile l = ToyLayer("l" + std::to_string(i), std::pow(10.0, rng.Uniform(7, 10)),
                              std::pow(10.0, rng.Uniform(4, 8)), std::pow(10.0, rng.Uniform(3, 6)));
    if (rng.Uniform() < 0.3) l.sparse_bytes_per_sample = std::pow(10.0, rng.Uniform(3, 5));
    m.layers.push_back(l);
  }
  return m;
}

// A cluster of `types` (one node per entry, `count` devices each), one rack, nodes joined by
// `nic`, devices inside a node by `intra`.
struct ToyDevices {
  DeviceCatalog catalog;
  LinkCatalog links;
  std::unique_ptr<Cluster> cluster;
};
inline std::unique_ptr<ToyDevices> MakeToyDevices(const std::vector<std::pair<DeviceType, int>>& nodes,
                                                  double intra_Bps, double nic_Bps) {
  auto w = std::make_unique<ToyDevices>();
  const LinkClassId intra = w->links.Add(ToyLink("intra", intra_Bps));
  const LinkClassId nic = w->links.Add(ToyLink("nic", nic_Bps));
  w->cluster = std::make_unique<Cluster>(&w->catalog, &w->links);
  Rack rack;
  rack.name = "r0";
  const RackId r = w->cluster->AddRack(rack);
  for (size_t i = 0; i < nodes.size(); ++i) {
    DeviceTypeId t = w->catalog.Find(nodes[i].first.name);
    if (t == kNoDeviceType) t = w->catalog.Add(nodes[i].first);
    Node n;
    n.name = "n" + std::to_string(i);
    n.rack = r;
    n.device_type = t;
    n.num_devices = nodes[i].second;
    n.intra_link = intra;
    n.nic = nic;
    n.cpu_cores = 8;
    n.host_memory_bytes = 1e11;
    w->cluster->AddNode(n);
  }
  return w;
}

// The two-layer model of the hand-worked step-time tests (step_time_planners_test.cc): 3e9
// FLOP/sample per layer, 1e6 B of activations after layer 0, 1e8 B of parameters in layer 1.
inline ModelProfile ToyPipelineModel() {
  ModelProfile model;
  model.name = "toy";
  model.default_batch_size = 4;
  model.layers = {ToyLayer("l0", 1e9, 0, 1e6), ToyLayer("l1", 1e9, 1e8, 1e3)};
  return model;
}
// Two 1 TFLOP/s devices on two nodes joined by a NIC of `nic_Bps`.
inline std::unique_ptr<ToyDevices> ToyPipelineDevices(double nic_Bps = 1e10) {
  return MakeToyDevices({{ToyType("a", 1e12, 1), 1}, {ToyType("a", 1e12, 1), 1}}, 1e11, nic_Bps);
}

// The two-layer, two-type cost problem of cost_planners_test.cc (optimum A|B at 8 $/h).
struct ToyCostWorld {
  DeviceCatalog catalog;
  DeviceTypeId a = 0, b = 0;
  LinkClass net = ToyLink("net", 1e9);
  ModelProfile model;
  PlanningProblem problem;
};
inline std::unique_ptr<ToyCostWorld> MakeToyCostWorld() {
  auto w = std::make_unique<ToyCostWorld>();
  w->a = w->catalog.Add(ToyType("a", 1e12, 1.0));
  w->b = w->catalog.Add(ToyType("b", 4e12, 3.0));
  w->model.name = "toy";
  w->model.default_batch_size = 10;
  w->model.layers = {ToyLayer("embed", 1e9, 0, 1e6), ToyLayer("dense", 1e9, 4e7, 1e3)};
  w->problem.model = &w->model;
  w->problem.catalog = &w->catalog;
  w->problem.network = &w->net;
  w->problem.pool = {{w->a, 0}, {w->b, 0}};
  w->problem.throughput_limit = 1000;
  return w;
}

}  // namespace hetsched::test
