#include "hetsched/sched/node_resource_index.h"

#include <algorithm>
#include <limits>

namespace hetsched {

uint64_t DeviceTypeBit(DeviceTypeId t) { return uint64_t{1} << std::clamp(t, 0, 63); }

NodeResourceIndex::NodeResourceIndex(int num_nodes) : num_nodes_(num_nodes) {
  leaves_ = 1;
  while (leaves_ < static_cast<size_t>(std::max(num_nodes, 1))) leaves_ <<= 1;
  // Padding leaves must not widen any minimum: they hold the neutral elements.
  NodeSummary pad;
  pad.min_inv_cpu = pad.min_inv_memory = std::numeric_limits<double>::infinity();
  pad.min_used_diff = std::numeric_limits<double>::infinity();
  pad.max_used_diff = -std::numeric_limits<double>::infinity();
  tree_.assign(2 * leaves_, pad);
}

NodeSummary NodeResourceIndex::Merge(const NodeSummary& a, const NodeSummary& b) {
  NodeSummary m;
  m.max_free_cpu = std::max(a.max_free_cpu, b.max_free_cpu);
  m.max_free_memory = std::max(a.max_free_memory, b.max_free_memory);
  m.max_free_gpus = std::max(a.max_free_gpus, b.max_free_gpus);
  m.max_free_cpu_frac = std::max(a.max_free_cpu_frac, b.max_free_cpu_frac);
  m.max_free_memory_frac = std::max(a.max_free_memory_frac, b.max_free_memory_frac);
  m.max_used_cpu_frac = std::max(a.max_used_cpu_frac, b.max_used_cpu_frac);
  m.max_used_memory_frac = std::max(a.max_used_memory_frac, b.max_used_memory_frac);
  m.max_inv_cpu = std::max(a.max_inv_cpu, b.max_inv_cpu);
  m.max_inv_memory = std::max(a.max_inv_memory, b.max_inv_memory);
  m.min_inv_cpu = std::min(a.min_inv_cpu, b.min_inv_cpu);
  m.min_inv_memory = std::min(a.min_inv_memory, b.min_inv_memory);
  m.min_used_diff = std::min(a.min_used_diff, b.min_used_diff);
  m.max_used_diff = std::max(a.max_used_diff, b.max_used_diff);
  m.type_mask = a.type_mask | b.type_mask;
  return m;
}

void NodeResourceIndex::Set(NodeId n, const NodeSummary& leaf) {
  size_t v = leaves_ + static_cast<size_t>(n);
  tree_[v] = leaf;
  for (v >>= 1; v >= 1; v >>= 1) tree_[v] = Merge(tree_[2 * v], tree_[2 * v + 1]);
}

bool NodeResourceIndex::MayHold(const NodeSummary& s, const ContainerRequest& request, uint64_t gpu_types) {
  if (s.max_free_cpu < request.cpu_millicores || s.max_free_memory < request.memory_bytes ||
      s.max_free_gpus < request.gpus) {
    return false;
  }
  return request.gpus == 0 || (s.type_mask & gpu_types) != 0;
}

NodeId NodeResourceIndex::Best(const ContainerRequest& request, uint64_t gpu_types, const NodeScorer& scorer) const {
  double best_score = -std::numeric_limits<double>::infinity();
  NodeId best = -1;
  // Left-first depth-first search: a later subtree lies to the right, so it must beat the best
  // strictly (ties stay with the lower id) and a bound that does not exceed the best prunes it.
  auto visit = [&](auto&& self, size_t v, size_t lo, size_t hi) -> void {
    if (lo >= static_cast<size_t>(num_nodes_)) return;
    const NodeSummary& s = tree_[v];
    if (!MayHold(s, request, gpu_types)) return;
    if (hi - lo == 1) {
      const double score = scorer.Score(static_cast<NodeId>(lo));
      if (score > best_score) {
        best_score = score;
        best = static_cast<NodeId>(lo);
      }
      return;
    }
    if (best >= 0 && scorer.Bound(s) <= best_score + 1e-12) return;
    const size_t mid = (lo + hi) / 2;
    self(self, 2 * v, lo, mid);
    self(self, 2 * v + 1, mid, hi);
  };
  visit(visit, 1, 0, leaves_);
  return best;
}

}  // namespace hetsched
