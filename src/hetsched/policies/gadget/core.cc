// GADGET's allocation and embedding steps on abstract instances: see gadget_core.h.
//
// Step 1 is the classic greedy for the multiple-choice knapsack problem (Sinha & Zoltners,
// Operations Research 27(3), 1979; Kellerer, Pferschy & Pisinger, "Knapsack Problems", Springer
// 2004, ch. 11): each job's value table is replaced by its upper concave envelope, whose
// segments are taken in decreasing slope (utility per GPU) while they fit. With the best single
// job as an alternative this is a 1/2-approximation; the proof is in docs/gadget.md.
#include "hetsched/policies/gadget/core.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>

namespace hetsched::gadget {

namespace {

// Running maximum of a value table (free disposal), and for each w the smallest w' <= w that
// attains it, so a job never holds workers that add nothing.
struct Envelope {
  std::vector<double> best;  // best[w] = max_{w' <= w} value[w']
  std::vector<int> argbest;  // smallest w' attaining best[w]
  std::vector<int> hull;     // vertices (worker counts) of the upper concave envelope of best
};

Envelope MakeEnvelope(const std::vector<double>& value, int capacity) {
  Envelope e;
  const int top = std::min(static_cast<int>(value.size()) - 1, capacity);
  if (top < 0) return e;
  e.best.resize(static_cast<size_t>(top) + 1);
  e.argbest.resize(static_cast<size_t>(top) + 1);
  for (int w = 0; w <= top; ++w) {
    const double v = w == 0 ? 0.0 : value[static_cast<size_t>(w)];
    if (w == 0 || v > e.best[static_cast<size_t>(w) - 1]) {
      e.best[static_cast<size_t>(w)] = v;
      e.argbest[static_cast<size_t>(w)] = w;
    } else {
      e.best[static_cast<size_t>(w)] = e.best[static_cast<size_t>(w) - 1];
      e.argbest[static_cast<size_t>(w)] = e.argbest[static_cast<size_t>(w) - 1];
    }
  }
  // Upper hull (monotone chain) of the points (w, best[w]) from (0, 0).
  for (int w = 0; w <= top; ++w) {
    while (e.hull.size() >= 2) {
      const int a = e.hull[e.hull.size() - 2], b = e.hull.back();
      const double ya = e.best[static_cast<size_t>(a)], yb = e.best[static_cast<size_t>(b)];
      const double yw = e.best[static_cast<size_t>(w)];
      // b lies on or below the chord a -> w: drop it.
      if ((yb - ya) * (w - a) <= (yw - ya) * (b - a)) {
        e.hull.pop_back();
      } else {
        break;
      }
    }
    e.hull.push_back(w);
  }
  return e;
}

// The best single job (the other half of the 1/2 bound) replaces the greedy allocation when it
// is worth more.
void KeepBetterSingleJob(const std::vector<Envelope>& env, Allocation* out) {
  double single = 0;
  size_t single_job = 0;
  int single_w = 0;
  for (size_t j = 0; j < env.size(); ++j) {
    if (env[j].best.empty()) continue;
    const int top = static_cast<int>(env[j].best.size()) - 1;
    if (env[j].best[static_cast<size_t>(top)] > single) {
      single = env[j].best[static_cast<size_t>(top)];
      single_job = j;
      single_w = env[j].argbest[static_cast<size_t>(top)];
    }
  }
  if (single > out->objective) {
    std::fill(out->workers.begin(), out->workers.end(), 0);
    out->workers[single_job] = single_w;
    out->objective = single;
    out->single_job = true;
  }
}

}  // namespace

Allocation GreedyAllocate(std::span<const AllocItem> items, int capacity) {
  Allocation out;
  out.workers.assign(items.size(), 0);
  capacity = std::max(capacity, 0);
  std::vector<Envelope> env;
  env.reserve(items.size());
  for (const AllocItem& item : items) env.push_back(MakeEnvelope(item.value, capacity));

  // Max-heap of each job's next hull segment: (slope, -job, vertex index of the segment's end).
  using Entry = std::tuple<double, long long, size_t>;
  std::priority_queue<Entry> heap;
  auto push_next = [&](size_t j, size_t next_vertex) {
    const Envelope& e = env[j];
    if (next_vertex >= e.hull.size()) return;
    const int a = e.hull[next_vertex - 1], b = e.hull[next_vertex];
    const double slope = (e.best[static_cast<size_t>(b)] - e.best[static_cast<size_t>(a)]) / (b - a);
    if (slope > 0) heap.emplace(slope, -static_cast<long long>(j), next_vertex);
  };
  for (size_t j = 0; j < items.size(); ++j) push_next(j, 1);

  int left = capacity;
  std::vector<int> at(items.size(), 0);  // current worker count on the envelope
  while (!heap.empty() && left > 0) {
    const auto [slope, neg_job, vertex] = heap.top();
    heap.pop();
    const size_t j = static_cast<size_t>(-neg_job);
    const Envelope& e = env[j];
    const int target = e.hull[vertex];
    const int need = target - at[j];
    if (need <= left) {
      left -= need;
      at[j] = target;
      push_next(j, vertex + 1);
      continue;
    }
    // The segment does not fit: the job stops here, taking the best point within what is left
    // (only adds value; its later segments are flatter and come after this one).
    const int reach = at[j] + left;
    if (e.best[static_cast<size_t>(reach)] > e.best[static_cast<size_t>(at[j])]) {
      left -= reach - at[j];
      at[j] = reach;
    }
  }
  for (size_t j = 0; j < items.size(); ++j) {
    if (env[j].best.empty()) continue;
    out.workers[j] = env[j].argbest[static_cast<size_t>(at[j])];
    out.objective += env[j].best[static_cast<size_t>(at[j])];
  }

  KeepBetterSingleJob(env, &out);
  return out;
}

int MinSpan(std::span<const int> free_per_server, int workers) {
  if (workers <= 0) return 0;
  std::vector<int> sorted(free_per_server.begin(), free_per_server.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<int>());
  int sum = 0;
  for (size_t k = 0; k < sorted.size(); ++k) {
    sum += sorted[k];
    if (sum >= workers) return static_cast<int>(k) + 1;
  }
  return -1;
}

bool EmbedOnServers(std::vector<int>* free_per_server, int workers, std::vector<ServerShare>* out) {
  std::vector<int>& free = *free_per_server;
  if (workers <= 0) return true;
  if (std::accumulate(free.begin(), free.end(), 0) < workers) return false;
  auto best_fit = [&](int need, const std::vector<bool>* taken) {
    int best = -1;
    for (size_t h = 0; h < free.size(); ++h) {
      if (free[h] < need || (taken != nullptr && (*taken)[h])) continue;
      if (best < 0 || free[h] < free[static_cast<size_t>(best)]) best = static_cast<int>(h);
    }
    return best;
  };
  const int single = best_fit(workers, nullptr);
  if (single >= 0) {
    free[static_cast<size_t>(single)] -= workers;
    out->push_back(ServerShare{single, workers});
    return true;
  }
  std::vector<int> order(free.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return free[static_cast<size_t>(a)] > free[static_cast<size_t>(b)];
  });
  const int k = MinSpan(free, workers);
  std::vector<bool> taken(free.size(), false);
  int left = workers;
  for (int i = 0; i + 1 < k; ++i) {
    const size_t h = static_cast<size_t>(order[static_cast<size_t>(i)]);
    taken[h] = true;
    out->push_back(ServerShare{static_cast<int>(h), free[h]});
    left -= free[h];
    free[h] = 0;
  }
  const int last = best_fit(left, &taken);  // exists: the k-th most-free server holds `left`
  free[static_cast<size_t>(last)] -= left;
  out->push_back(ServerShare{last, left});
  return true;
}

JointDecision GadgetDecide(const JointInstance& instance) {
  JointDecision d;
  const size_t jobs = instance.max_workers.size();
  const int capacity = std::accumulate(instance.free_per_server.begin(), instance.free_per_server.end(), 0);
  std::vector<AllocItem> items(jobs);
  for (size_t j = 0; j < jobs; ++j) {
    const int top = std::min(instance.max_workers[j], capacity);
    items[j].value.assign(static_cast<size_t>(std::max(top, 0)) + 1, 0.0);
    for (int w = 1; w <= top; ++w) {
      items[j].value[static_cast<size_t>(w)] =
          instance.value(static_cast<int>(j), w, MinSpan(instance.free_per_server, w));
    }
  }
  const Allocation alloc = GreedyAllocate(items, capacity);
  d.workers = alloc.workers;
  d.assumed = alloc.objective;
  d.shares.assign(jobs, {});
  std::vector<size_t> order(jobs);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return d.workers[a] > d.workers[b]; });
  std::vector<int> free = instance.free_per_server;
  const std::vector<int> before = instance.free_per_server;
  for (size_t j : order) {
    const int w = d.workers[j];
    if (w <= 0) continue;
    // Earlier (larger) rings may have taken the servers this one assumed: shrink it to the worker
    // count worth most with the spans the free servers now allow (never a wider ring than needed).
    const int assumed_span = MinSpan(before, w);
    const double assumed_value = instance.value(static_cast<int>(j), w, assumed_span);
    int best_w = w;
    double best_value = instance.value(static_cast<int>(j), w, MinSpan(free, w));
    if (MinSpan(free, w) > assumed_span) {
      for (int v = w - 1; v >= 1; --v) {
        const double value = instance.value(static_cast<int>(j), v, MinSpan(free, v));
        if (value > best_value) {
          best_value = value;
          best_w = v;
        }
      }
    }
    d.workers[j] = best_w;
    EmbedOnServers(&free, best_w, &d.shares[j]);  // always room: the allocation fits the capacity
    if (best_value < assumed_value) ++d.span_misses;
    d.objective += best_value;
  }
  return d;
}

}  // namespace hetsched::gadget
