// Internal to policies/pollux/: one round of Pollux's optimisation as its simulator poses it
// [SRC: petuum/adaptdl @ osdi21-artifact, simulator/pollux.py:112-420 (Apache-2.0); Qiao et al.,
// OSDI 2021, sec. 4.2]. A state is a jobs x nodes matrix of GPU counts (row-major in a Genome), the
// jobs in Pollux's order (least attained service first, then earliest submitted), the nodes in
// the cluster's order. Two objectives, both minimised:
//  - minus the power mean (p = -1) over the jobs of speedup(nodes, replicas) x share x N (share:
//    one GPU's fraction of the cluster's, N: its node count), each speedup relative to the job's
//    goodput at its fair share (ceil(1 / share / jobs) GPUs on ceil(N x share) nodes), multiplied,
//    for a job whose row differs from its current one, by the restart factor
//    max(age - restarts x delay, 0) / (age + delay);
//  - minus the cluster utility: the sum of speedups over the GPUs of the nodes in use.
// The operators (pollux.py:339-420): crossover swaps the rows above a random job between two
// states; mutation resets a row to the current one (probability 0.1 a row), zeroes entries of a
// row (0.1 a row, then 0.1 an entry), and raises entries on nodes with a free GPU to a random count
// up to the node's limit (each job with probability 1/(jobs), more for the jobs already on the
// node: 1/(jobs there)); repair keeps at most one distributed job on a node as pollux.py:376-379
// does (from the second distributed job in job order with GPUs on a node, every job loses its GPUs
// there, distributed or not), the job's replica limit and at most 16 nodes (over nodes in a random order), the nodes' capacity
// (to jobs in job order), and zeroes a row below the job's least replicas.
// Beyond Pollux's one-type clusters [REC]: a job's count on a node of a type it may not use is 0
// (its limit there), and mutation only raises it where its limit is above 0.
#pragma once

#include <functional>
#include <vector>

#include "hetsched/policies/pollux/nsga2.h"
#include "hetsched/util/rng.h"

namespace hetsched::pollux_internal {

struct PolluxJobRow {
  // speedup(nodes, replicas) relative to the fair share; called with replicas > 0 only.
  std::function<double(int nodes, int replicas)> speedup;
  std::vector<int> current;     // its GPUs on each node now (the base state's row)
  std::vector<int> node_limit;  // the most GPUs it may have on each node
  int min_replicas = 0, max_replicas = 0;
  double restart_factor = 1;    // applied when its row changes
};

class PolluxProblem {
 public:
  static constexpr int kMaxNodesPerJob = 16;  // pollux.py:384
  // The power mean's exponent is pollux.py:326's p = -1: Evaluate computes it as a harmonic mean.

  // `share`: one GPU's fraction of the cluster's GPUs; `capacity`: each node's GPUs.
  PolluxProblem(std::vector<PolluxJobRow> jobs, std::vector<int> capacity, double share);

  int num_jobs() const { return static_cast<int>(jobs_.size()); }
  int num_nodes() const { return static_cast<int>(capacity_.size()); }
  Genome BaseState() const;

  std::vector<double> Evaluate(const Genome& x) const;
  void Crossover(Genome& a, Genome& b, Rng& rng) const;
  void Mutate(Genome& x, Rng& rng) const;
  void Repair(Genome& x, Rng& rng) const;
  Nsga2Operators Operators() const;

 private:
  int& at(Genome& x, int j, int n) const { return x[static_cast<size_t>(j * num_nodes() + n)]; }
  int at(const Genome& x, int j, int n) const { return x[static_cast<size_t>(j * num_nodes() + n)]; }
  double Speedup(int j, int nodes, int replicas) const;

  std::vector<PolluxJobRow> jobs_;
  std::vector<int> capacity_;
  double share_;
  // speedup memo per job: [nodes * (max_replicas + 1) + replicas]; < 0 not yet computed.
  mutable std::vector<std::vector<double>> memo_;
  mutable std::vector<char> scratch_used_;  // Evaluate's nodes in use, Repair's distributed jobs
  mutable std::vector<int> scratch_free_;   // Mutate's free GPUs, Repair's node order
  mutable std::vector<int> scratch_replicas_, scratch_nodes_;  // Repair's row counts
  mutable std::vector<int> scratch_order_;                    // Repair's node order
  mutable std::vector<int> scratch_second_;  // Repair's second distributed job on each node
  mutable std::vector<int> scratch_column_;  // Evaluate's GPUs per node, Mutate's jobs on each node
  std::vector<int> fit_;        // per node: the jobs that may use it (node_limit >= 1)
  std::vector<int> fit_limit_;  // [job][node]: 1 where the job may use the node
  bool node_limited_ = false;  // some job may have fewer GPUs on some node than the node holds
};

}  // namespace hetsched::pollux_internal
