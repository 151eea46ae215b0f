// Gavel's round-based scheduling mechanism (Narayanan et al., OSDI 2020, section 5): turns an
// allocation X[j][t] (the fraction of time job j should run on device type t) into the set of
// jobs that run in the next round. Reusable by any allocation policy; it knows nothing of LPs.
//
// Each round, every (job, type) pair with X[j][t] > 0 gets the priority
//     X[j][t] / (time j has received on t / time j has been active),
// infinite when the job has received nothing on t yet (then larger X first). Pairs are taken in
// decreasing priority; a job gets at most one type per round, and only if that type still has
// num_gpus free devices this round. A job already running on a type wins ties on that type, so a
// job whose share is met by staying put keeps its devices (and pays no restart cost).
// Over many rounds the realised time fractions converge to X (tests/sched/round_mechanism_test.cc).
#pragma once

#include <span>
#include <unordered_map>
#include <vector>

#include "hetsched/model/job.h"

namespace hetsched {

struct RoundJob {
  JobId id = 0;
  int num_gpus = 1;
  std::span<const double> share;  // X[j][k] for k = 0..types-1 (type index, not catalog id)
  int current_type = -1;          // type index the job runs on now, -1 if none
};

class RoundMechanism {
 public:
  // capacity[k]: devices of the k-th type.
  explicit RoundMechanism(std::vector<int> capacity);

  int num_types() const { return static_cast<int>(capacity_.size()); }
  const std::vector<int>& capacity() const { return capacity_; }

  // The job was active (pending or running) for `seconds`, running on type index `type_index`
  // for all of them, or on none (-1).
  void Account(JobId id, int type_index, double seconds);
  // Drops a finished job's history.
  void Forget(JobId id) { history_.erase(id); }

  // Fraction of its active time `id` has run on type index k (0 if never active).
  double ReceivedFraction(JobId id, int k) const;
  double ActiveSeconds(JobId id) const;

  // The type index each job gets in the next round (-1: it does not run), in the order of
  // `jobs`. Deterministic: ties go to the current type, then the larger share, then the lower id.
  // Cost: O(P + T log P) for P pairs with a positive share, T of them taken before the devices
  // run out (all P when they never do).
  std::vector<int> PlanRound(std::span<const RoundJob> jobs) const;

 private:
  struct History {
    double active_s = 0;
    std::vector<double> received_s;  // by type index
  };
  std::vector<int> capacity_;
  std::unordered_map<JobId, History> history_;  // looked up by id only, never walked
};

}  // namespace hetsched
