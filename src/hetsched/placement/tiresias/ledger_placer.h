// What Tiresias' `random` and `crandom` placement schemes share: the peer's node counts
// (TiresiasNodeLedger), CPython's generator for the peer's draws, and the way a scheme's choice of
// nodes becomes devices. The peer calls `random` from Python's global generator, never seeded
// (cluster.py:958, 1022, 1163, 1175, 1225, 1229, 1275: its draws come from os.urandom and no two
// runs repeat); option `seed` is the seed that `random.seed(seed)` would give the peer before its
// main() runs, and with it every draw is the peer's (util/python_random.h).
//
// The peer's placement is called, and draws, also for a job that cannot fit, so these placers are
// asked for every attempt (Placer::asked_when_short). Nodes are those of one type: the requested
// one, else the first of the job's types with enough free devices, else its first type (the peer
// has one type). Options: `seed` (>= 0, default 1), `cores` per node (>= 1, default 40: the
// peer's cluster files n4g4.csv and n32g4.csv).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hetsched/placement/tiresias/node_ledger.h"
#include "hetsched/sched/options.h"
#include "hetsched/sched/placer.h"
#include "hetsched/util/python_random.h"

namespace hetsched {

class TiresiasLedgerPlacer : public Placer {
 public:
  TiresiasLedgerPlacer(uint64_t seed, int cores_per_node) : ledger_(cores_per_node), rng_(seed) {}

  bool asked_when_short() const override { return true; }
  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) final;

  struct Settings {
    uint64_t seed = 1;
    int cores_per_node = 40;
  };
  // Reads `seed` and `cores`; InvalidArgument naming `placer` for a value out of range.
  static Result<Settings> ReadSettings(const Options& options, const char* placer);

 protected:
  // The scheme for `n` workers on the nodes of `type`: on success takes what the job needs from
  // ledger_, appends one node per worker to `workers` (in worker order) and the job's ledger
  // entries in the peer's release order to `entries`, and returns true; else leaves ledger_ as the
  // peer leaves its nodes and returns false. Draws from rng_ as the peer draws.
  virtual bool PlaceOnNodes(int n, DeviceTypeId type, const ClusterState& state, std::vector<NodeId>* workers,
                            std::vector<TiresiasNodeLedger::Entry>* entries) = 0;

  TiresiasNodeLedger ledger_;
  PythonRandom rng_;

 private:
  std::vector<NodeId> workers_;  // scratch of Place
  std::vector<TiresiasNodeLedger::Entry> entries_;
};

// The factory of ledger placer P (built from a seed and cores per node), registered as `name`.
template <typename P>
Result<std::unique_ptr<Placer>> MakeLedgerPlacer(const Options& options, const char* name) {
  HETSCHED_ASSIGN_OR_RETURN(const auto settings, TiresiasLedgerPlacer::ReadSettings(options, name));
  return std::unique_ptr<Placer>(std::make_unique<P>(settings.seed, settings.cores_per_node));
}

}  // namespace hetsched
