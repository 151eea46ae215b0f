// What a running data-parallel job pays when its set of workers changes (docs/elastic.md).
//
// Elastic frameworks change a job's workers without a checkpoint and a requeue: Horovod Elastic
// polls its host discovery (every DISCOVER_HOSTS_FREQUENCY_SECS = 1 s,
// horovod/runner/elastic/driver.py), interrupts the workers at their next state commit, re-forms
// the communicator (a new rendezvous) and calls `state.sync()`, which broadcasts the model and
// optimiser state from rank 0 to every worker (Horovod docs, "Elastic Horovod"); TorchElastic
// (torch.distributed.elastic) stops the worker group on a membership change, re-runs its
// rendezvous barrier and lets the new workers receive the up-to-date state from a surviving
// worker through the user's `State.sync()` (torchelastic 0.1 usage docs, "Implement state").
// Both: a re-rendezvous, then a broadcast of the state from a survivor.
//
// Our model [REC]: pause = rendezvous_s + broadcast, broadcast = P / B + (w - 1) alpha, with P the
// model's parameter bytes (dense parameters and embedding tables, fp32; optimiser state is not
// counted), and B, alpha the bandwidth and latency of the new ring's slowest hop with no other
// traffic (a pipelined ring broadcast moves P over each hop once). rendezvous_s is our own figure
// (default 10 s: process start-up and communicator re-initialisation; the frameworks publish no
// figure). It applies when the job declares itself elastic (JobSpec::elastic), stays on one device
// type (or, with ElasticResizeModel::two_types, keeps workers of its first type) and keeps at
// least one of its workers (a survivor holds the state); a move to devices it
// does not hold may be a hand-over instead (HandOverCostOf, asked for apart). Any other change is a
// checkpoint and restart, charged `restart_s` (the simulator's --restart-cost) and counted as a
// preemption.
// Pure functions: no state, no randomness.
#pragma once

#include <span>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"

namespace hetsched {

struct ElasticResizeModel {
  double rendezvous_s = 10;  // [REC] our figure for a re-rendezvous (see above)
  double restart_s = 30;     // checkpoint + restart of a change that cannot be elastic
  // A change that keeps workers of the job's first type (that of from.front()) and adds or drops
  // workers of other types is elastic too: a job split over two GPU types (docs/goodput.md,
  // "Split jobs") keeps its state on the survivors of its first type.
  bool two_types = false;
};

enum class ResizeKind { kNone, kElastic, kRestart };

struct ResizeCost {
  ResizeKind kind = ResizeKind::kNone;
  double pause_s = 0;       // seconds without progress after the change
  double broadcast_s = 0;   // the state broadcast part of an elastic pause
  double release_s = 0;     // a hand-over: seconds after the change at which its old devices are free
};

// The cost of moving a running job from `from` to `to` (device sets; order is the ring order of
// `to`). Same set: kNone, 0 s. REQUIRES: both non-empty.
ResizeCost ResizeCostOf(const ModelProfile& model, const Cluster& cluster, std::span<const DeviceId> from,
                        std::span<const DeviceId> to, bool job_elastic, const ElasticResizeModel& params);

// A hand-over [REC]: an elastic job moves to devices it does not hold (another node, another GPU
// type) without a checkpoint, as an elastic framework lets it (Horovod Elastic: the host
// discovery adds the new hosts; the workers re-rendezvous, old and new together, and
// `state.sync()` broadcasts the state from rank 0, an old worker; the discovery then drops the
// old hosts and the survivors re-rendezvous). Two rendezvous and one broadcast over the joint
// ring (old then new devices, its slowest hop):
//   pause = 2 rendezvous_s + P / B + (w_old + w_new - 1) alpha;
// the old devices are held until the broadcast ends (release_s = rendezvous_s + broadcast); a job
// started on them waits for that. The joint group trains on no batch (the old workers leave
// before the next step): no step runs on two GPU types. kind kElastic.
// REQUIRES: both non-empty and disjoint.
ResizeCost HandOverCostOf(const ModelProfile& model, const Cluster& cluster, std::span<const DeviceId> from,
                          std::span<const DeviceId> to, const ElasticResizeModel& params);

}  // namespace hetsched
