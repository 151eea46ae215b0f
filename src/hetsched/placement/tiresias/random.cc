// `tiresias-random`: Tiresias' simulator's `random` placement scheme (SymbioticLab/Tiresias
// @ 959f9b0, simulator/cluster.py:907-1124 random_placement; --scheme=random). Each worker in turn
// draws a start node, randint(0, nodes - 1), and takes 1 GPU and 2 cores of the first node from
// there on (wrapping) with a free GPU and 2 free cores; then each parameter server (one a worker
// for a multi-GPU job, none for a one-GPU job, jobs.py:138-153) draws a start node the same way
// and takes 4 cores of the first node with 4 free. When one finds no node, what the job took is
// given back and it waits. Nothing is consolidated: a job's workers land wherever the draws say.
// Draws, counts and the release rules are the peer's (ledger_placer.h, node_ledger.h).
// Cost: O(GPUs x nodes) a call.
#include <memory>

#include "hetsched/placement/tiresias/ledger_placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class TiresiasRandomPlacer : public TiresiasLedgerPlacer {
 public:
  using TiresiasLedgerPlacer::TiresiasLedgerPlacer;
  std::string_view name() const override { return "tiresias-random"; }

 protected:
  bool PlaceOnNodes(int n, DeviceTypeId type, const ClusterState& state, std::vector<NodeId>* workers,
                    std::vector<TiresiasNodeLedger::Entry>* entries) override {
    const std::vector<NodeId>& nodes = state.nodes_of_type(type);
    if (nodes.empty()) return false;
    const int num_servers = n == 1 ? 0 : n;
    servers_.clear();
    for (int w = 0; w < n; ++w) {  // cluster.py:958-977
      const NodeId node = FirstFrom(nodes, 1, 2);
      if (node < 0) {
        GiveBackAll(*workers);
        return false;
      }
      ledger_.Take(node, 1, 2);
      workers->push_back(node);
    }
    for (int p = 0; p < num_servers; ++p) {  // cluster.py:1022-1046
      const NodeId node = FirstFrom(nodes, 0, 4);
      if (node < 0) {
        GiveBackAll(*workers);
        for (NodeId s : servers_) ledger_.GiveBack(s, 0, 4);
        return false;
      }
      ledger_.Take(node, 0, 4);
      servers_.push_back(node);
    }
    for (NodeId node : *workers) entries->push_back({node, 1, 2});  // cluster.py:1074-1122
    for (NodeId node : servers_) entries->push_back({node, 0, 4});
    return true;
  }

 private:
  // randint(0, N - 1), then the first node from there (wrapping) with the GPUs and cores free.
  NodeId FirstFrom(const std::vector<NodeId>& nodes, int gpus, int cores) {
    const size_t count = nodes.size();
    const size_t start = rng_.RandBelow(static_cast<uint32_t>(count));
    for (size_t i = 0; i < count; ++i) {
      const NodeId node = nodes[(start + i) % count];
      if (ledger_.free_gpus(node) >= gpus && ledger_.free_cores(node) >= cores) return node;
    }
    return -1;
  }
  void GiveBackAll(const std::vector<NodeId>& workers) {
    for (NodeId node : workers) ledger_.GiveBack(node, 1, 2);
  }

  std::vector<NodeId> servers_;  // scratch
};

Result<std::unique_ptr<Placer>> MakeTiresiasRandom(const Options& options) {
  return MakeLedgerPlacer<TiresiasRandomPlacer>(options, "tiresias-random");
}

const MethodInfo kTiresiasRandomInfo{
    "tiresias-random",
    "each worker on the first node with room after a random start, then each parameter server the same way "
    "(options seed: the peer's random.seed, default 1; cores per node, default 40)",
    "[SRC] Tiresias' simulator, --scheme=random (SymbioticLab/Tiresias cluster.py random_placement)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kTiresiasRandomRegistered, kTiresiasRandomInfo, MakeTiresiasRandom)

}  // namespace hetsched
