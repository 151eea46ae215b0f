// `tiresias-crandom`: Tiresias' simulator's `crandom` placement scheme (SymbioticLab/Tiresias
// @ 959f9b0, simulator/cluster.py:1127-1371 consolidate_random_placement; --scheme=crandom).
// A job of n GPUs on nodes of g is cut into floor(n / g) whole nodes and one part of n mod g. For
// each part: a random switch (randint over switches; a rack here), then within it a random start
// node (one draw per switch tried) and the first node from there with the part's GPUs and its
// cores free (2 a GPU for a one-GPU job, 6 otherwise); switches are tried in turn from the drawn
// one. If a part finds no node and more than one GPU is still missing, the rest is spread: from
// a random switch and, in each switch, a random start node, every node with a free GPU and 6 free
// cores takes as many workers as its GPUs and cores allow (cluster.py:1217-1262); a one-GPU
// remainder, or a spread that does not place everything, gives back what was taken (1 GPU and 6
// cores a worker) and the job waits. Its parameter servers go, in an order shuffled by
// random.shuffle, onto its workers' nodes without taking more cores. What the job records, and
// gives back at its end, is 2 cores a worker and 4 a server on the server's node
// (cluster.py:1296-1369): since the servers' nodes are a permutation of the workers', 6 a worker
// on each node, what it took (node_ledger.h). Cost: O(GPUs x nodes) a call.
//
// The peer's switches have the same number of nodes, its nodes the same number of GPUs; here a
// rack is a switch (nodes of the chosen type, racks in id order, nodes in id order within each),
// and g is the GPU count of the type's first node.
#include <memory>

#include "hetsched/placement/tiresias/ledger_placer.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class TiresiasCrandomPlacer : public TiresiasLedgerPlacer {
 public:
  using TiresiasLedgerPlacer::TiresiasLedgerPlacer;
  std::string_view name() const override { return "tiresias-crandom"; }

 protected:
  bool PlaceOnNodes(int n, DeviceTypeId type, const ClusterState& state, std::vector<NodeId>* workers,
                    std::vector<TiresiasNodeLedger::Entry>* entries) override {
    GroupBySwitch(state, type);
    if (switches_.empty()) return false;
    const int g = state.cluster().node(switches_.front().front()).num_devices;
    parts_.assign(static_cast<size_t>(n / g), g);
    if (n % g != 0) parts_.push_back(n % g);
    size_t failed = parts_.size();
    for (size_t i = 0; i < parts_.size(); ++i) {  // cluster.py:1158-1204
      if (!TakeConsolidated(parts_[i], n == 1 ? 2 * parts_[i] : 6 * parts_[i], workers)) {
        failed = i;
        break;
      }
    }
    if (failed < parts_.size()) {
      int remain = 0;
      for (size_t j = failed; j < parts_.size(); ++j) remain += parts_[j];
      if (remain == 1 || !Spread(remain, workers)) {  // cluster.py:1207-1270
        for (NodeId node : *workers) ledger_.GiveBack(node, 1, 6);
        return false;
      }
    }
    // cluster.py:1273-1280: servers on the workers' nodes, in a shuffled order.
    order_.clear();
    for (int p = 0; p < (n == 1 ? 0 : n); ++p) order_.push_back(p);
    rng_.Shuffle(order_);
    for (NodeId node : *workers) entries->push_back({node, 1, 2});
    for (int p : order_) entries->push_back({(*workers)[static_cast<size_t>(p)], 0, 4});
    return true;
  }

 private:
  void GroupBySwitch(const ClusterState& state, DeviceTypeId type) {
    switches_.clear();
    RackId rack = -1;
    for (NodeId node : state.nodes_of_type(type)) {
      const RackId r = state.cluster().node(node).rack;
      if (switches_.empty() || r != rack) switches_.emplace_back();
      rack = r;
      switches_.back().push_back(node);
    }
  }

  size_t Draw(size_t count) { return rng_.RandBelow(static_cast<uint32_t>(count)); }

  // One part on one node: switches from a random one, nodes from a random one in each.
  bool TakeConsolidated(int gpus, int cores, std::vector<NodeId>* workers) {
    const size_t first_switch = Draw(switches_.size());
    size_t s = first_switch;
    do {
      const std::vector<NodeId>& nodes = switches_[s];
      const size_t first_node = Draw(nodes.size());
      size_t k = first_node;
      do {
        const NodeId node = nodes[k];
        if (ledger_.free_gpus(node) >= gpus && ledger_.free_cores(node) >= cores) {
          ledger_.Take(node, gpus, cores);
          workers->insert(workers->end(), static_cast<size_t>(gpus), node);
          return true;
        }
        k = (k + 1) % nodes.size();
      } while (k != first_node);
      s = (s + 1) % switches_.size();
    } while (s != first_switch);
    return false;
  }

  // The rest spread over every node with a free GPU and 6 free cores, from random starts.
  bool Spread(int remain, std::vector<NodeId>* workers) {
    const size_t first_switch = Draw(switches_.size());
    size_t s = first_switch;
    while (remain > 0) {
      const std::vector<NodeId>& nodes = switches_[s];
      const size_t first_node = Draw(nodes.size());
      size_t k = first_node;
      while (remain > 0) {
        const NodeId node = nodes[k];
        const int free_gpus = ledger_.free_gpus(node);
        const int free_cores = ledger_.free_cores(node);
        if (free_gpus >= 1 && free_cores >= 6) {
          // free_gpu >= free_cpu / 6 (a float in Python 3) then int(free_cpu / 6).
          int take = 6 * free_gpus >= free_cores ? free_cores / 6 : free_gpus;
          if (take >= remain) take = remain;
          remain -= take;
          workers->insert(workers->end(), static_cast<size_t>(take), node);
          ledger_.Take(node, take, 6 * take);
        }
        k = (k + 1) % nodes.size();
        if (k == first_node) break;
      }
      s = (s + 1) % switches_.size();
      if (s == first_switch) break;
    }
    return remain == 0;
  }

  std::vector<std::vector<NodeId>> switches_;  // scratch below, reused between calls
  std::vector<int> parts_;
  std::vector<int> order_;
};

Result<std::unique_ptr<Placer>> MakeTiresiasCrandom(const Options& options) {
  return MakeLedgerPlacer<TiresiasCrandomPlacer>(options, "tiresias-crandom");
}

const MethodInfo kTiresiasCrandomInfo{
    "tiresias-crandom",
    "whole nodes and one part, each on a random switch's first node with room after a random start; "
    "else spread from random starts (options seed: the peer's random.seed, default 1; cores per node, "
    "default 40)",
    "[SRC] Tiresias' simulator, --scheme=crandom (SymbioticLab/Tiresias cluster.py "
    "consolidate_random_placement)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kTiresiasCrandomRegistered, kTiresiasCrandomInfo, MakeTiresiasCrandom)

}  // namespace hetsched
