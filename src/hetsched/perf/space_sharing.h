// Space sharing [REC] (docs/space_sharing.md): two data-parallel jobs co-located on the same
// devices, each at a fraction of its speed alone. Gavel measured pairs on real GPUs (its
// simulation_throughputs.json); where no measurement is at hand this model stands in: a device
// has two roofline resources, its arithmetic and its memory bandwidth, each shared between the
// jobs in proportion to their use (a fluid model); the rest of a step (the per-iteration
// overhead, host-side input, communication not overlapped) leaves the device to the other job.
// Both jobs are slowed by the same factor, 1 / max(1, Fa + Fb, Ma + Mb), where F and M are the
// fractions of a job's step alone that its device spends on arithmetic and on memory traffic.
#pragma once

#include <span>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/iteration_model.h"

namespace hetsched {

// What one iteration of a job asks of each of its devices, as fractions of its step alone.
struct DeviceDemand {
  double flop_share = 0;    // arithmetic time / step time, in [0, 1]
  double memory_share = 0;  // memory-traffic time / step time, in [0, 1]
  double memory_bytes = 0;  // held on its fullest device (parameters, optimiser state, activations)
};

// The demand of `model` run at `batch_per_device` samples on each of `devices` (the slowest
// type's roofline sums, as the compute model takes the slowest device), for a step of
// `alone.iteration_s` (its estimate alone, contention-free). REQUIRES: alone.iteration_s > 0.
DeviceDemand DemandOf(const ModelProfile& model, int batch_per_device, const Cluster& cluster,
                      std::span<const DeviceId> devices, const IterationEstimate& alone);

// The factor by which each job's speed is multiplied while both run on the devices: in (0, 1].
double CoLocationFactor(const DeviceDemand& a, const DeviceDemand& b);

// Whether the two jobs fit the memory of every device of `devices` together.
bool FitsTogether(const DeviceDemand& a, const DeviceDemand& b, const Cluster& cluster,
                  std::span<const DeviceId> devices);

}  // namespace hetsched
