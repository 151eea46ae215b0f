#include "hetsched/policies/pollux/pollux_problem.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hetsched::pollux_internal {

namespace {
constexpr double kRowProb = 0.1;    // pollux.py:358-361: rows reset, rows thinned
constexpr double kEntryProb = 0.1;  // pollux.py:361: entries of a thinned row zeroed
constexpr double kMeanEps = 1e-3;   // pollux.py:333: speedups + 1e-3 in the power mean
}  // namespace

PolluxProblem::PolluxProblem(std::vector<PolluxJobRow> jobs, std::vector<int> capacity, double share)
    : jobs_(std::move(jobs)), capacity_(std::move(capacity)), share_(share) {
  memo_.resize(jobs_.size());
  for (size_t j = 0; j < jobs_.size(); ++j) {
    for (size_t n = 0; n < capacity_.size(); ++n) node_limited_ |= jobs_[j].node_limit[n] < capacity_[n];
    memo_[j].assign(static_cast<size_t>((num_nodes() + 1) * (jobs_[j].max_replicas + 1)), -1.0);
  }
  fit_.assign(capacity_.size(), 0);
  fit_limit_.assign(jobs_.size() * capacity_.size(), 0);
  for (size_t j = 0; j < jobs_.size(); ++j) {
    for (size_t n = 0; n < capacity_.size(); ++n) {
      const int may = jobs_[j].node_limit[n] >= 1 ? 1 : 0;
      fit_limit_[j * capacity_.size() + n] = may;
      fit_[n] += may;
    }
  }
}

Genome PolluxProblem::BaseState() const {
  Genome x;
  x.reserve(jobs_.size() * capacity_.size());
  for (const PolluxJobRow& job : jobs_) x.insert(x.end(), job.current.begin(), job.current.end());
  return x;
}

double PolluxProblem::Speedup(int j, int nodes, int replicas) const {
  if (replicas == 0) return 0.0;
  const PolluxJobRow& job = jobs_[static_cast<size_t>(j)];
  if (replicas > job.max_replicas || nodes > num_nodes()) return job.speedup(nodes, replicas);
  double& slot = memo_[static_cast<size_t>(j)][static_cast<size_t>(nodes * (job.max_replicas + 1) + replicas)];
  if (slot < 0) slot = job.speedup(nodes, replicas);
  return slot;
}

std::vector<double> PolluxProblem::Evaluate(const Genome& x) const {
  const int nj = num_jobs(), nn = num_nodes();
  double inverse_sum = 0, speedup_sum = 0;
  // GPUs per node over all jobs (a node is in use where it is above 0). The loops below read rows
  // through restrict pointers so that the compiler vectorises them (a row never aliases the sums).
  std::vector<int>& column = scratch_column_;
  column.assign(static_cast<size_t>(nn), 0);
  int* __restrict on = column.data();
  for (int j = 0; j < nj; ++j) {
    const PolluxJobRow& job = jobs_[static_cast<size_t>(j)];
    const int* __restrict r = x.data() + static_cast<ptrdiff_t>(j) * nn;
    const int* __restrict cur = job.current.data();
    int replicas = 0, nodes = 0, differs = 0;
    for (int n = 0; n < nn; ++n) {
      replicas += r[n];
      nodes += r[n] > 0 ? 1 : 0;
      differs |= r[n] ^ cur[n];
    }
    for (int n = 0; n < nn; ++n) on[n] += r[n];
    const double speedup = Speedup(j, nodes, replicas);
    speedup_sum += speedup;
    double scaled = speedup * share_ * nn;
    if (differs != 0) scaled *= job.restart_factor;
    inverse_sum += 1.0 / (scaled + kMeanEps);  // (s + 1e-3)^p, p = -1
  }
  const double mean = nj / inverse_sum;  // (sum / jobs)^(1/p)
  int used_gpus = 0;
  for (int n = 0; n < nn; ++n) used_gpus += on[n] > 0 ? capacity_[static_cast<size_t>(n)] : 0;
  const double utility = used_gpus > 0 ? speedup_sum / used_gpus : 0.0;
  return {-mean, -utility};
}

void PolluxProblem::Crossover(Genome& a, Genome& b, Rng& rng) const {
  // Single point over jobs: the rows above it are swapped (pollux.py:339-343).
  const size_t point = static_cast<size_t>(rng.Below(static_cast<uint64_t>(num_jobs())));
  std::swap_ranges(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(point * capacity_.size()), b.begin());
}

void PolluxProblem::Mutate(Genome& x, Rng& rng) const {
  const int nj = num_jobs(), nn = num_nodes();
  for (int j = 0; j < nj; ++j) {  // (1) rows back to the current allocation
    if (rng.Uniform() < kRowProb) {
      const std::vector<int>& cur = jobs_[static_cast<size_t>(j)].current;
      std::copy(cur.begin(), cur.end(), x.begin() + static_cast<std::ptrdiff_t>(j * nn));
    }
  }
  for (int j = 0; j < nj; ++j) {  // (2) some entries of some rows zeroed
    if (!(rng.Uniform() < kRowProb)) continue;
    for (int n = 0; n < nn; ++n) {
      if (rng.Uniform() < kEntryProb) at(x, j, n) = 0;
    }
  }
  // (3) entries raised on nodes with a free GPU (as the state was before any is raised), and the
  // jobs already on each node.
  std::vector<int>& free = scratch_free_;
  std::vector<int>& here = scratch_column_;
  free.assign(capacity_.begin(), capacity_.end());
  here.assign(static_cast<size_t>(nn), 0);
  {
    int* __restrict f = free.data();
    int* __restrict h = here.data();
    const int* __restrict limited = fit_limit_.data();  // [j][n]: 1 where the job may use the node
    for (int j = 0; j < nj; ++j) {
      const int* __restrict r = x.data() + static_cast<ptrdiff_t>(j) * nn;
      const int* __restrict l = limited + static_cast<ptrdiff_t>(j) * nn;
      for (int n = 0; n < nn; ++n) {
        f[n] -= r[n];
        h[n] += (r[n] > 0 ? 1 : 0) & l[n];
      }
    }
  }
  // Per node with a free GPU, over the jobs that may use it: each with probability 1/(such jobs),
  // more for the jobs already there (1/(such jobs there)): pollux.py:366-369 normalise over the
  // jobs axis.
  for (int n = 0; n < nn; ++n) {
    if (free[static_cast<size_t>(n)] < 1) continue;
    const int fit = fit_[static_cast<size_t>(n)], fit_here = here[static_cast<size_t>(n)];
    if (fit == 0) continue;
    const double p1 = 1.0 / fit;
    for (int j = 0; j < nj; ++j) {
      const int limit = jobs_[static_cast<size_t>(j)].node_limit[static_cast<size_t>(n)];
      if (limit < 1) continue;
      int& c = at(x, j, n);
      const double p2 = c > 0 ? 1.0 / fit_here : 0.0;
      if (!(rng.Uniform() < p1 + p2 - p1 * p2)) continue;
      if (c < limit) c += static_cast<int>(rng.Below(static_cast<uint64_t>(limit - c + 1)));  // randint(c, limit + 1)
    }
  }
}

void PolluxProblem::Repair(Genome& x, Rng& rng) const {
  const int nj = num_jobs(), nn = num_nodes();
  auto row = [&](int j) { return x.data() + static_cast<ptrdiff_t>(j) * nn; };
  // Each row's GPUs and nodes, kept up to date through the steps.
  std::vector<int>& replicas = scratch_replicas_;
  std::vector<int>& nodes = scratch_nodes_;
  replicas.assign(static_cast<size_t>(nj), 0);
  nodes.assign(static_cast<size_t>(nj), 0);
  std::vector<int>& on_node = scratch_free_;  // each node's GPUs before the steps (they only lower)
  on_node.assign(static_cast<size_t>(nn), 0);
  int distributed = 0;
  int* __restrict on = on_node.data();
  for (int j = 0; j < nj; ++j) {
    const int* __restrict r = row(j);
    int sum = 0, count = 0;
    for (int n = 0; n < nn; ++n) {
      sum += r[n];
      count += r[n] > 0 ? 1 : 0;
    }
    for (int n = 0; n < nn; ++n) on[n] += r[n];
    replicas[static_cast<size_t>(j)] = sum;
    nodes[static_cast<size_t>(j)] = count;
    distributed += count > 1 ? 1 : 0;
  }
  auto drop = [&](int j, int* c, int keep) {  // an entry lowered to `keep`
    replicas[static_cast<size_t>(j)] -= *c - keep;
    if (keep == 0 && *c > 0) --nodes[static_cast<size_t>(j)];
    *c = keep;
  };
  // At most one distributed job on a node, as pollux.py:376-379 computes it: on a node where a
  // second distributed job (in job order) has GPUs, that job and every job after it, distributed
  // or not, lose their GPUs there (the running count of distributed jobs stays above 1). The jobs
  // that count are those distributed before this step.
  if (distributed > 1) {
    // Per node, the second distributed job (in job order) with GPUs there (nj: none); from it on,
    // every job's GPUs there go.
    std::vector<int>& second = scratch_second_;
    std::vector<char>& seen = scratch_used_;
    second.assign(static_cast<size_t>(nn), nj);
    seen.assign(static_cast<size_t>(nn), 0);
    for (int j = 0; j < nj; ++j) {
      if (nodes[static_cast<size_t>(j)] <= 1) continue;
      const int* r = row(j);
      for (int n = 0; n < nn; ++n) {
        if (r[n] <= 0) continue;
        char& c = seen[static_cast<size_t>(n)];
        if (c == 1) second[static_cast<size_t>(n)] = j;
        if (c < 2) ++c;
      }
    }
    for (int n = 0; n < nn; ++n) {
      for (int j = second[static_cast<size_t>(n)]; j < nj; ++j) {
        int* c = row(j) + n;
        if (*c > 0) drop(j, c, 0);
      }
    }
  }
  // The job's replica limit and at most 16 nodes, counted over its nodes in a random order (only
  // where a limit binds: elsewhere the order changes nothing).
  std::vector<int>& order = scratch_order_;
  for (int j = 0; j < nj; ++j) {
    const int max_replicas = jobs_[static_cast<size_t>(j)].max_replicas;
    if (replicas[static_cast<size_t>(j)] <= max_replicas && nodes[static_cast<size_t>(j)] <= kMaxNodesPerJob) continue;
    order.resize(static_cast<size_t>(nn));
    std::iota(order.begin(), order.end(), 0);
    rng.Shuffle(order);
    int left = max_replicas, nodes_left = kMaxNodesPerJob;
    int* r = row(j);
    for (int n : order) {
      int keep = std::min(r[n], left);
      left -= keep;
      if (keep > 0 && nodes_left-- <= 0) keep = 0;
      drop(j, &r[n], keep);
    }
  }
  // Each job's limit on each node [REC: 0 on a type it may not use], then each node's capacity,
  // to jobs in job order.
  for (int n = 0; n < nn; ++n) {
    int left = capacity_[static_cast<size_t>(n)];
    if (!node_limited_ && on_node[static_cast<size_t>(n)] <= left) continue;  // nothing to cut
    for (int j = 0; j < nj; ++j) {
      int* c = row(j) + n;
      if (*c == 0) continue;
      const int keep = std::min({*c, jobs_[static_cast<size_t>(j)].node_limit[static_cast<size_t>(n)], left});
      if (keep < *c) drop(j, c, keep);
      left -= keep;
    }
  }
  // Rows below the job's least replicas are emptied.
  for (int j = 0; j < nj; ++j) {
    if (replicas[static_cast<size_t>(j)] < jobs_[static_cast<size_t>(j)].min_replicas) std::fill(row(j), row(j) + nn, 0);
  }
}

Nsga2Operators PolluxProblem::Operators() const {
  Nsga2Operators ops;
  ops.evaluate = [this](const Genome& x) { return Evaluate(x); };
  ops.crossover = [this](Genome& a, Genome& b, Rng& rng) { Crossover(a, b, rng); };
  ops.mutate = [this](Genome& x, Rng& rng) { Mutate(x, rng); };
  ops.repair = [this](Genome& x, Rng& rng) { Repair(x, rng); };
  return ops;
}

}  // namespace hetsched::pollux_internal
