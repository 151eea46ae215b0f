// Exact solvers for small GADGET instances: see gadget_exact.h.
#include "hetsched/policies/gadget/exact.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace hetsched::gadget {

Allocation ExactAllocate(std::span<const AllocItem> items, int capacity) {
  capacity = std::max(capacity, 0);
  const size_t cap = static_cast<size_t>(capacity);
  const double kNone = -std::numeric_limits<double>::infinity();
  // best[j][c]: the best value of items [0, j) using at most c workers; pick[j][c]: item j-1's count.
  std::vector<std::vector<double>> best(items.size() + 1, std::vector<double>(cap + 1, 0.0));
  std::vector<std::vector<int>> pick(items.size() + 1, std::vector<int>(cap + 1, 0));
  for (size_t j = 1; j <= items.size(); ++j) {
    const std::vector<double>& value = items[j - 1].value;
    for (size_t c = 0; c <= cap; ++c) {
      double top = kNone;
      int arg = 0;
      for (size_t w = 0; w <= c && w < value.size(); ++w) {
        const double v = best[j - 1][c - w] + (w == 0 ? 0.0 : value[w]);
        if (v > top) {
          top = v;
          arg = static_cast<int>(w);
        }
      }
      best[j][c] = top;
      pick[j][c] = arg;
    }
  }
  Allocation out;
  out.workers.assign(items.size(), 0);
  out.objective = best[items.size()][cap];
  size_t c = cap;
  for (size_t j = items.size(); j >= 1; --j) {
    out.workers[j - 1] = pick[j][c];
    c -= static_cast<size_t>(pick[j][c]);
  }
  return out;
}

namespace {

struct Search {
  const JointInstance& in;
  std::vector<int> free;
  std::vector<std::vector<ServerShare>> current;
  JointDecision best;
  double value_so_far = 0;

  // Job `j`, server `h`: choose y_jh, then recurse.
  void Job(size_t j) {
    if (j == in.max_workers.size()) {
      if (value_so_far > best.objective) {
        best.objective = value_so_far;
        best.shares = current;
        for (size_t k = 0; k < current.size(); ++k) {
          int w = 0;
          for (const ServerShare& s : current[k]) w += s.workers;
          best.workers[k] = w;
        }
      }
      return;
    }
    Server(j, 0, 0);
  }
  void Server(size_t j, size_t h, int taken) {
    if (h == free.size()) {
      const int span = static_cast<int>(current[j].size());
      const double v = taken > 0 ? in.value(static_cast<int>(j), taken, span) : 0.0;
      value_so_far += v;
      Job(j + 1);
      value_so_far -= v;
      return;
    }
    const int room = std::min(free[h], in.max_workers[j] - taken);
    for (int y = 0; y <= room; ++y) {
      if (y > 0) {
        current[j].push_back(ServerShare{static_cast<int>(h), y});
        free[h] -= y;
      }
      Server(j, h + 1, taken + y);
      if (y > 0) {
        current[j].pop_back();
        free[h] += y;
      }
    }
  }
};

}  // namespace

JointDecision ExactJoint(const JointInstance& instance) {
  Search s{instance, instance.free_per_server, {}, {}, 0.0};
  s.current.assign(instance.max_workers.size(), {});
  s.best.workers.assign(instance.max_workers.size(), 0);
  s.best.shares.assign(instance.max_workers.size(), {});
  s.best.objective = 0;  // giving nobody anything is always feasible
  s.Job(0);
  s.best.assumed = s.best.objective;
  return s.best;
}

}  // namespace hetsched::gadget
