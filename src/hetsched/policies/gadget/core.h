// The two steps of one GADGET decision (ALGORITHMS.md 5.3; docs/gadget.md), on an abstract
// instance so that they can be checked against the exact solvers of gadget_exact.h:
//   1. worker allocation: greedy by marginal utility per GPU, on each job's upper concave
//      envelope (the multiple-choice-knapsack greedy), with the best single job as a fallback;
//   2. ring embedding at server level: best fit, else the fewest servers (most free first, the
//      last one best fit for the remainder), the ring visiting each server's GPUs consecutively.
// The policy (gadget.cc) runs step 1 on the ring model's utilities and step 2 through the
// `gadget-ring` placer (placement/gadget_ring.cc), which applies the same rule on ClusterState.
#pragma once

#include <functional>
#include <span>
#include <vector>

namespace hetsched::gadget {

// One job of an allocation problem: value[w] = its utility with w workers, w = 0..W_max, with
// value[0] = 0. Values may dip (an energy penalty); a job may always use fewer workers than it
// is given, so the allocation works on the running maximum.
struct AllocItem {
  std::vector<double> value;
};

struct Allocation {
  std::vector<int> workers;  // per item
  double objective = 0;      // sum of value[workers]
  bool single_job = false;   // the best-single-job fallback won
};

// Guarantee [REC, proved in docs/gadget.md]: objective >= OPT / 2, OPT being the best
// allocation of at most `capacity` workers in total; objective = OPT when every value table is
// concave and non-decreasing. Cost: O(sum of table sizes x log items).
Allocation GreedyAllocate(std::span<const AllocItem> items, int capacity);

// The fewest servers whose free GPUs hold `workers` (free counts in any order); 0 for
// workers <= 0, -1 when even all servers are too few.
int MinSpan(std::span<const int> free_per_server, int workers);

// Step 2 on free counts: appends (server, workers) pairs to `out` and subtracts them from
// `free_per_server`; false (nothing changed) when the servers hold fewer than `workers`.
// One server with room: the one with the fewest free GPUs that holds the job (ties: lowest
// index). Otherwise k = MinSpan servers: the k - 1 with the most free GPUs (ties: lowest index)
// taken whole, then the remainder on the best-fitting other server.
struct ServerShare {
  int server = 0;
  int workers = 0;
};
bool EmbedOnServers(std::vector<int>* free_per_server, int workers, std::vector<ServerShare>* out);

// A joint decision instance: servers' free GPUs (one device type) and jobs whose utility depends
// on their worker count and on how many servers their ring spans: value(job, w, span).
struct JointInstance {
  std::vector<int> free_per_server;
  std::vector<int> max_workers;  // per job
  std::function<double(int job, int workers, int span)> value;
};

struct JointDecision {
  std::vector<int> workers;                      // per job
  std::vector<std::vector<ServerShare>> shares;  // per job
  double objective = 0;  // sum of value(job, workers, realised span)
  double assumed = 0;    // sum of value(job, workers, MinSpan on the free counts before step 2)
  int span_misses = 0;   // jobs whose realised value is below the assumed one (span taken by others)
};

// GADGET on the instance: step 1 with value(job, w, MinSpan(free, w)) (a job's best possible
// span now, so value >= what any embedding realises), then step 2 in decreasing worker count
// (ties: job index). A job whose assumed span is no longer free when its turn comes is shrunk to
// the worker count worth most with the spans still possible (ALGORITHMS.md 5.3, "shrink w_j to
// what fits"); its realised value can then fall short of the assumed one (a span miss).
JointDecision GadgetDecide(const JointInstance& instance);

}  // namespace hetsched::gadget
