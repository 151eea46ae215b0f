// Gavel's fifo_packed (packed.h): the non-packed FIFO's singles, then the rest of the queue paired
// with them while each head gains (fifo.py's _pack). No LP. Formulation: docs/space_sharing.md.
#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "hetsched/policies/gavel/packed.h"

namespace hetsched::gavel {

namespace {

std::pair<size_t, size_t> UnorderedJobs(size_t a, size_t b) { return {std::min(a, b), std::max(a, b)}; }

}  // namespace

Allocation SolveFifoPacked(const AllocationProblem& problem, const FifoPackedOptions& options) {
  const size_t types = problem.capacity.size();
  const size_t n = problem.jobs.size();
  Allocation out = ZeroAllocation(problem);
  for (size_t j = 0; j < n; ++j) {
    if (!Placeable(problem, j)) out.unplaceable.push_back(problem.jobs[j].id);
  }
  if (n == 0 || types == 0) return out;
  std::vector<size_t> queue(n);  // arrival order = job id order (fifo.py:88-90)
  std::iota(queue.begin(), queue.end(), size_t{0});
  std::stable_sort(queue.begin(), queue.end(),
                   [&](size_t a, size_t b) { return problem.jobs[a].id < problem.jobs[b].id; });
  const std::vector<size_t> by_name = TypesByName(problem);
  std::vector<int> available = problem.capacity;
  auto any_free = [&] {
    for (int a : available) {
      if (a > 0) return true;
    }
    return false;
  };
  // Allocated singles in allocation order (fifo.py's dict order), -1 once packed.
  std::vector<std::pair<size_t, size_t>> allocated;  // (job, type)
  size_t next = 0;
  while (next < queue.size() && any_free()) {  // fifo.py:129-165
    const size_t j = queue[next++];
    const AllocationJob& job = problem.jobs[j];
    double best = -1;
    std::optional<size_t> type;
    for (size_t k : by_name) {
      if (available[k] <= 0 || available[k] < job.num_gpus) continue;
      const double t = ThroughputOn(job.throughput, k);
      if (t > best) {
        best = t;
        type = k;
      }
    }
    if (!type) break;  // the head fits nowhere: lost for this call (fifo.py:141-142)
    if (!(best > 0)) continue;  // passed over (fifo.py:157)
    available[*type] -= job.num_gpus;
    allocated.emplace_back(j, *type);
    out.share[j][*type] = 1.0;
  }
  if (next >= queue.size() || allocated.empty()) return out;
  // _pack (fifo.py:23-71): the rest of the queue, in order, while each head finds a partner. The
  // pair of an allocated single and another job: the first of problem.pairs with the two, found
  // through per-job lists of the pairs with an allocated single (one pass over the pairs, not a
  // table of all O(jobs^2) of them).
  std::vector<int> allocated_at(n, -1);  // job -> index into allocated
  for (size_t i = 0; i < allocated.size(); ++i) allocated_at[allocated[i].first] = static_cast<int>(i);
  std::vector<std::vector<std::pair<int, size_t>>> with_allocated(n);  // job -> (allocated index, pair)
  for (size_t p = 0; p < problem.pairs.size(); ++p) {
    const std::pair<size_t, size_t> key = UnorderedJobs(problem.pairs[p].a, problem.pairs[p].b);
    if (key.first == key.second || key.second >= n) continue;
    if (allocated_at[key.first] >= 0) with_allocated[key.second].emplace_back(allocated_at[key.first], p);
    if (allocated_at[key.second] >= 0) with_allocated[key.first].emplace_back(allocated_at[key.second], p);
  }
  std::vector<long> pair_with(allocated.size(), -1);  // the head's pair with each allocated single
  std::vector<bool> in_pair(n, false);
  for (; next < queue.size(); ++next) {
    const size_t h = queue[next];
    for (const auto& [i, p] : with_allocated[h]) {
      if (pair_with[static_cast<size_t>(i)] < 0) pair_with[static_cast<size_t>(i)] = static_cast<long>(p);
    }
    double best_gain = options.threshold;
    std::optional<size_t> partner;  // index into allocated
    for (size_t i = 0; i < allocated.size(); ++i) {
      const auto [s, k] = allocated[i];
      if (in_pair[s] || problem.jobs[s].num_gpus != problem.jobs[h].num_gpus) continue;
      if (pair_with[i] < 0) continue;
      const AllocationPair& pair = problem.pairs[static_cast<size_t>(pair_with[i])];
      const double ts = ThroughputOn(pair.a == s ? pair.throughput_a : pair.throughput_b, k);
      const double th = ThroughputOn(pair.a == h ? pair.throughput_a : pair.throughput_b, k);
      if (!(ts > 0) || !(th > 0)) continue;  // a pair its mechanism never runs [REC]
      const double is = ThroughputOn(problem.jobs[s].throughput, k), ih = ThroughputOn(problem.jobs[h].throughput, k);
      const double gain = ts / is + (ih > 0 ? th / ih : 0.0);  // s runs on k alone: is > 0
      if (gain > best_gain) {
        best_gain = gain;
        partner = i;
      }
    }
    if (!partner) break;  // nobody jumps the queue
    const auto [s, k] = allocated[*partner];
    out.share[s][k] = 0.0;
    in_pair[s] = in_pair[h] = true;
    out.pair_share[static_cast<size_t>(pair_with[*partner])][k] = 1.0;
    for (const auto& [i, p] : with_allocated[h]) pair_with[static_cast<size_t>(i)] = -1;
  }
  return out;
}


}  // namespace hetsched::gavel
