// gavel-fifo and gavel-fifo-perf: Gavel's `fifo` and `fifo_perf` policies
// (stanford-futuredata/gavel @ c4fa400, scheduler/policies/fifo.py, FIFOPolicy.get_allocation),
// run under Gavel's simulator's round mechanism (sched/round_mechanism_gavel.h), which recomputes
// the allocation only at a reset (at most every 1,920 s) and never runs a job of priority 0.
//
// The allocation maps each job to one type (X = 1 there), jobs in arrival order:
// - perf mode (`fifo_perf`): rebuilt from scratch at every call: each job in turn gets, among the
//   types with room for its GPU count, the one with the highest throughput (ties: the first by
//   name); the first job that fits nowhere stops the pass (fifo.py:133-165).
// - base mode (`fifo`): kept between calls (a job never moves). A finished job's type goes first
//   to the head of the queue if it fits there (fifo.py:94-119); then each queued job in turn, as
//   long as some type has room for it, draws an index from Python's Random(seed) over the types
//   with room, but is given the *last* type (by name) in the list of types still marked
//   available, because the draw is never used to pick the type, only to drop a full type from
//   that list (fifo.py:139-165). That list can then name a type with too little room, and the
//   type given can be over-committed; the round mechanism runs what fits. This is Gavel's code
//   as it runs, reproduced because its figures come from it (docs/compat.md).
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/python_random.h"

namespace hetsched::gavel {
namespace {

class GavelFifo final : public RoundPolicy {
 public:
  GavelFifo(std::string name, double round_s, bool perf, uint64_t seed)
      // Both modes see the real throughputs: fifo.py tests them (> 0, :111, :157) whatever the
      // mode; only perf mode compares them. (Blind rows would read 1 on a type where the
      // profile measured 0, and a job given that type would never run.)
      : RoundPolicy(std::move(name), round_s, /*heterogeneity_blind=*/false), perf_(perf), rng_(seed) {}

 protected:
  Result<Allocation> ComputeAllocation(const AllocationProblem& problem) override {
    std::vector<int> available = problem.capacity;
    if (perf_) allocation_.clear();
    std::map<JobId, size_t> position;  // active jobs, arrival (= id) order
    for (size_t j = 0; j < problem.jobs.size(); ++j) position[problem.jobs[j].id] = j;
    auto gpus = [&](JobId id) { return problem.jobs[position.at(id)].num_gpus; };
    auto throughput = [&](JobId id, size_t k) { return ThroughputOn(problem.jobs[position.at(id)].throughput, k); };
    std::vector<JobId> queue;
    for (const auto& [id, j] : position) {
      if (!allocation_.contains(id)) queue.push_back(id);
    }
    // Finished jobs hand their type to the head of the queue; running ones hold their devices.
    const std::map<JobId, size_t> held = allocation_;
    for (const auto& [id, k] : held) {
      if (position.contains(id)) {
        available[k] -= gpus(id);
        continue;
      }
      if (!queue.empty()) {
        const JobId head = queue.front();
        if (gpus(head) <= available[k] && throughput(head, k) > 0) {
          queue.erase(queue.begin());
          allocation_[head] = k;
          available[k] -= gpus(head);
        }
      }
      allocation_.erase(id);
    }
    // Types with free devices, by name (fifo.py:121-126).
    const std::vector<size_t> by_name = TypesByName(problem);
    std::vector<size_t> open;
    for (size_t k : by_name) {
      if (available[k] > 0) open.push_back(k);
    }
    size_t next = 0;
    std::vector<JobId> skipped;  // given a type where it cannot run: left out of this allocation
    while (next < queue.size() && !open.empty()) {
      const JobId id = queue[next++];
      const int g = gpus(id);
      std::vector<size_t> with_room;  // positions in `open`
      for (size_t i = 0; i < open.size(); ++i) {
        if (available[open[i]] >= g) with_room.push_back(i);
      }
      if (with_room.empty()) break;
      size_t pick = 0;  // position in with_room
      size_t type = open.back();
      if (perf_) {
        double best = -1;
        for (size_t i = 0; i < with_room.size(); ++i) {
          const double t = throughput(id, open[with_room[i]]);
          if (t > best) {
            best = t;
            pick = i;
            type = open[with_room[i]];
          }
        }
      } else {
        pick = rng_.RandBelow(static_cast<uint32_t>(with_room.size()));
      }
      if (throughput(id, type) <= 0) {
        skipped.push_back(id);
        continue;
      }
      allocation_[id] = type;
      available[type] -= g;
      if (available[type] == 0) open.erase(open.begin() + static_cast<std::ptrdiff_t>(with_room[pick]));
    }
    // Gavel leaves a skipped job for the next allocation, which it computes only when a job
    // arrives or finishes (scheduler.py:2375-2383). With no job allocated none will finish, so
    // with no arrival left its simulator loops forever at one time stamp (simulate(),
    // :1273-1295). Here (a deviation only where Gavel never ends) the first skipped job then takes
    // the first type by name where it can run; every type is free, since nothing is allocated.
    if (allocation_.empty() && !skipped.empty()) {
      for (size_t k : by_name) {
        if (throughput(skipped.front(), k) > 0 && gpus(skipped.front()) <= problem.capacity[k]) {
          allocation_[skipped.front()] = k;
          break;
        }
      }
    }
    Allocation out = ZeroAllocation(problem);
    for (const auto& [id, k] : allocation_) out.share[position.at(id)][k] = 1.0;
    return out;
  }

 private:
  bool perf_;
  PythonRandom rng_;
  std::map<JobId, size_t> allocation_;  // job -> type index; base mode keeps it between calls
};

Result<std::unique_ptr<JobScheduler>> MakeGavelFifo(const Options& options, const std::string& name, bool perf) {
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, RoundOption(options));
  HETSCHED_ASSIGN_OR_RETURN(GavelMechanismOptions mechanism, MechanismOption(options, "gavel"));
  if (!mechanism.enabled) {
    return Status::InvalidArgument("policy '" + name + "' runs only under Gavel's mechanism (mechanism=gavel)");
  }
  mechanism.shuffle_types = !perf;  // "FIFO" has no "Perf" in its name (scheduler.py:879)
  mechanism.skip_zero_priority = true;
  // Gavel's FIFOPolicy is seeded with the run's seed (utils.py:443).
  auto policy = std::make_unique<GavelFifo>(name, round_s, perf, mechanism.seed);
  HETSCHED_RETURN_IF_ERROR(ProfileOption(options, *policy));
  policy->SetGavelMechanism(mechanism);
  return std::unique_ptr<JobScheduler>(std::move(policy));
}

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kGavelFifoRegistered,
                       (MethodInfo{"gavel-fifo",
                                   "Gavel's fifo: arrival order, one type per job kept for its life, Gavel's rounds",
                                   "[SRC] Gavel simulator (stanford-futuredata/gavel, policies/fifo.py, base mode) "
                                   "under its round mechanism"}),
                       [](const Options& o) { return MakeGavelFifo(o, "gavel-fifo", false); })
HETSCHED_REGISTER_IMPL(JobScheduler, kGavelFifoPerfRegistered,
                       (MethodInfo{"gavel-fifo-perf",
                                   "Gavel's fifo_perf: arrival order, fastest type with room, re-picked at each reset",
                                   "[SRC] Gavel simulator (stanford-futuredata/gavel, policies/fifo.py, perf mode) "
                                   "under its round mechanism"}),
                       [](const Options& o) { return MakeGavelFifo(o, "gavel-fifo-perf", true); })

}  // namespace hetsched::gavel
