// Tiresias' `gandiva` scheduler as Tiresias' own simulator runs it (`--schedule=gandiva
// --scheme=gandiva`), registered as `tiresias-gandiva`. SymbioticLab/Tiresias @ 959f9b0,
// simulator/run_sim.py:211-266 (gandiva_sim_jobs) over cluster.py:156-495 (the node sets:
// policies/tiresias/gandiva_node_sets.h); docs/policies.md, "tiresias-gandiva". It is the peer's
// reading of Gandiva (Xiao et al., OSDI 2018): node sets per GPU count re-sized to demand, and
// time slicing inside a node set; not Gandiva's own system, nor Gavel's `gandiva` policy.
//
// The peer steps time by 10 s (to an arrival's time when one comes sooner, run_sim.py:254-266;
// `step`). Each step, in order: re-size the node sets (Adjust), then in each node set its running
// jobs (the first floor(devices / g)) are credited the time since the last step, those that reached
// their duration end now, and when int(now % 60) == 0 (`slice`) the running jobs move behind the
// waiting ones; a node set left empty frees its nodes (time_slicing_execute); then the step's
// arrivals are placed (Place) or join the pending list; and when a node set was freed, the pending
// jobs are tried in order, Python's loop skipping the job after each one placed (243-250).
//
// Here: nothing changes between one step and the next, so the Adjust that opens the peer's next
// step is done at the end of this one, and the jobs it leaves running are the ones the next step
// credits: they are started (on a slot of g devices of their node set, keeping a running job where
// it is) and every other job stops (Preempt; free under --compat tiresias). Each running job's
// finish is held to the next step (HoldFinishUntil), so that it ends, as in the peer, at the first
// step at which its work is done: at an arrival's step a held job is ended at once. A Schedule call
// that is neither a step nor brings arrivals (a completion at the step's own time, a stale
// wake-up) only starts what a finishing job kept from starting. With nothing in node sets and
// nothing pending no wake-up is asked: the peer's steps then change nothing until the next
// arrival, whose time is a step in both. A job asking more devices than a node set of a type it may
// use can hold is never placeable (the peer keeps it pending and never ends).
// [REC] beyond the peer: a pending job is also tried when no node set is left (the peer cannot
// reach that state with jobs pending; here a job a shrink orphaned may, gandiva_node_sets.h); a job
// the back end requeues (a node down) is placed again as an arrival.
// Cost: O(jobs in the system) per step, every `step` seconds while any job is in the system.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/policies/tiresias/gandiva_node_sets.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/flat_set.h"
#include "hetsched/util/job_table.h"

namespace hetsched {
namespace {

// A set of job ids walked in ascending order (util/flat_set.h) with an O(1) membership test (a
// record per id in a JobTable), a mark per member for Apply's sweep and a record of type `Extra`
// per member: Apply asks these of every job its node sets run, at every step.
struct NoExtra {};
template <typename Extra = NoExtra>
class JobSet {
 public:
  struct Member {
    bool marked = false;  // kept by the next Sweep
    Extra extra{};
  };

  bool contains(JobId id) const { return member_.Find(id) != nullptr; }
  // Member `id`, or nullptr when it is none.
  Member* Find(JobId id) { return member_.Find(id); }
  void insert(JobId id) {
    if (ids_.insert(id)) member_[id] = Member{};
  }
  size_t erase(JobId id) {
    if (ids_.erase(id) == 0) return 0;
    member_.Erase(id);
    return 1;
  }
  // Adds each (id, record) of `items`, the ids in one merge. REQUIRES: no id is a member, no two
  // equal.
  void InsertMany(const std::vector<std::pair<JobId, Extra>>& items) {
    added_.clear();
    for (const auto& [id, extra] : items) {
      member_[id] = Member{false, extra};
      added_.push_back(id);
    }
    std::sort(added_.begin(), added_.end());
    ids_.InsertSorted(added_);
  }
  // Removes every member not marked, in ascending order, calling `removed(id)` for each; clears
  // the marks.
  template <typename Removed>
  void Sweep(Removed&& removed) {
    ids_.RemoveIf([&](JobId id) {
      Member* in = member_.Find(id);
      if (in->marked) {
        in->marked = false;
        return false;
      }
      member_.Erase(id);
      removed(id);
      return true;
    });
  }
  std::span<const JobId> ids() const { return ids_; }
  auto begin() const { return ids_.begin(); }
  auto end() const { return ids_.end(); }

 private:
  FlatSet<JobId> ids_;
  std::vector<JobId> added_;  // scratch of InsertMany
  JobTable<Member> member_;
};

// Where Apply started a running job: its node set, as it was then (NodeSet::generation), and its
// slot. A job it did not start (a restarted agent's, OnJobRunning) has none (set nullptr).
struct Started {
  const GandivaNodeSets::NodeSet* set = nullptr;
  uint64_t generation = 0;
  int slot = -1;
};

class TiresiasGandivaScheduler : public JobScheduler {
 public:
  TiresiasGandivaScheduler(double step_s, double slice_s) : step_s_(step_s), slice_s_(slice_s) {}

  std::string_view name() const override { return "tiresias-gandiva"; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    arrivals_.push_back(job.spec->id);
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    running_.erase(id);
    allowed_.Erase(id);
    if (ending_.erase(id) == 0) finished_.insert(id);  // still in its node set until the next step
  }
  // [REC] (the peer's jobs never fail): the back end took its devices (a node down), so the job
  // leaves its node set and is placed again at the next step, as an arrival.
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    running_.erase(id);
    ending_.erase(id);
    if (sets_) sets_->Remove(id);
    const auto listed = [id](const std::vector<JobId>& list) {
      return std::find(list.begin(), list.end(), id) != list.end();
    };
    if (!listed(pending_) && !listed(arrivals_)) arrivals_.push_back(id);
  }
  // A job running already (a restarted Slurm agent) is placed as an arrival; Apply moves or stops it.
  void OnJobRunning(const JobStatus& job, SchedContext& /*ctx*/) override {
    running_.insert(job.spec->id);
    running_.Find(job.spec->id)->extra = Started{};  // not on a slot Apply chose: SlotOf compares
    arrivals_.push_back(job.spec->id);
  }

  void Schedule(SchedContext& ctx) override {
    if (!sets_) sets_.emplace(ctx.cluster());
    if (!arrivals_.empty() || (ctx.now() >= next_step_s_ && !Idle())) Step(ctx);
    if (ctx.failed()) return;
    Apply(ctx);
    if (!Idle() && asked_s_ != next_step_s_) {
      ctx.WakeUpAt(next_step_s_);
      asked_s_ = next_step_s_;
    }
  }

 private:
  bool Idle() const { return pending_.empty() && !sets_->has_node_sets(); }

  // One of the peer's steps at ctx.now(): its execute, arrivals and pending retry, then the next
  // step's Adjust.
  void Step(SchedContext& ctx) {
    const double now = ctx.now();
    // A re-arrangement asks this of every job in a list at most steps: the answer is kept per job
    // and type (a bit each, for the catalog's first 64 types), not read from its spec each time.
    const auto can_use = [&](JobId id, DeviceTypeId type) {
      if (type < 0 || type >= 64) return ctx.job(id).spec->AllowsType(type, ctx.cluster().device_catalog());
      AllowedTypes& allowed = allowed_[id];
      const uint64_t bit = uint64_t{1} << type;
      if ((allowed.known & bit) == 0) {
        allowed.known |= bit;
        if (ctx.job(id).spec->AllowsType(type, ctx.cluster().device_catalog())) allowed.yes |= bit;
      }
      return (allowed.yes & bit) != 0;
    };
    // [REC] A free node is in service unless a device of it is held by something this policy does
    // not run (a node down, another user's job): its own jobs leave it at this step (ended, or
    // moved by Adjust, stopped by Apply), as in the peer, where a free node is wholly free.
    const auto node_ok = [&](NodeId n) {
      const Node& node = ctx.cluster().node(n);
      for (DeviceId d = node.first_device; d < node.first_device + node.num_devices; ++d) {
        const JobId owner = ctx.state().owner(d);
        if (owner != kNoJob && !running_.contains(owner) && !ending_.contains(owner)) return false;
      }
      return true;
    };
    // Ended: finished, or its work done and held to its finish (idle) since an arrival came first.
    // (A running job in a node set is one this policy runs: in running_.)
    // EndStep asks it of the jobs the node sets run, most of them in running_ (which a finished
    // job has left): that test first.
    const auto ended = [&](JobId id) {
      if (!running_.contains(id)) return finished_.contains(id);
      const JobStatus& job = ctx.job(id);
      return job.state == JobState::kRunning && job.idle;
    };
    const bool switch_slices = static_cast<long long>(std::fmod(now, slice_s_)) == 0;  // int(now % 60) == 0
    ended_.clear();
    bool released = sets_->EndStep(switch_slices, ended, &ended_);
    for (JobId id : ended_) {
      if (finished_.erase(id) > 0) continue;
      running_.erase(id);
      ending_.insert(id);
      ctx.HoldFinishUntil(id, now);  // it finishes now, at the peer's second
    }
    for (JobId id : arrivals_) {
      const int g = ctx.job(id).spec->num_gpus;
      if (g < 1 || g > sets_->MostDevicesFor(id, can_use)) {
        ctx.NoteNeverPlaceable(
            id, "tiresias-gandiva: no node set of a type it may use holds " + std::to_string(g) + " GPU(s)");
        continue;
      }
      if (!sets_->Place(id, g, can_use, node_ok)) pending_.push_back(id);
    }
    arrivals_.clear();
    if (released || (!pending_.empty() && !sets_->has_node_sets())) {
      for (size_t i = 0; i < pending_.size(); ++i) {  // ++i after an erase: the peer's skip
        const JobId id = pending_[i];
        if (sets_->Place(id, ctx.job(id).spec->num_gpus, can_use, node_ok))
          pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    sets_->Adjust(can_use, node_ok, &pending_);
    next_step_s_ = now + step_s_;
  }

  // Runs each node set's first min(jobs, capacity) jobs, each on a slot of g devices (slot k: its
  // devices [k g, (k + 1) g)), and stops every other job it runs. Cost: O(jobs in node sets +
  // running jobs) and no allocation once warm, but for the starts and stops themselves (a record
  // per id and sorted vectors, not node-based sets and maps: this runs at every 10 s step).
  void Apply(SchedContext& ctx) {
    // The running jobs that stay: wanted by their node set and on one of its slots already. The
    // slot of each wanted job (-1: it does not stay), in list order, for the starts below; per
    // node set, whether any wanted job does not stay (only those node sets start jobs).
    slots_.clear();
    to_start_.clear();
    for (const auto& [g, list] : sets_->lists()) {
      for (const auto& set_ptr : list) {
        const GandivaNodeSets::NodeSet& set = *set_ptr;
        const size_t n = std::min(set.jobs.size(), static_cast<size_t>(set.capacity));
        bool starts = false;
        for (size_t k = 0; k < n; ++k) {
          const JobId id = set.jobs[k];
          int slot = -1;
          if (auto* member = running_.Find(id)) {
            slot = SlotOf(ctx, set, id, member->extra);
            if (slot >= 0) member->marked = true;
          }
          slots_.push_back(slot);
          starts = starts || slot < 0;
        }
        to_start_.push_back(starts);
      }
    }
    // The others stop, in id order.
    running_.Sweep([&](JobId id) {
      if (ctx.job(id).state == JobState::kRunning) ctx.Preempt(id);
    });
    if (ctx.failed()) return;
    // The others start on free slots, in list order.
    started_.clear();
    size_t at = 0;
    size_t set_index = 0;
    for (const auto& [g, list] : sets_->lists()) {
      for (const auto& set_ptr : list) {
        const GandivaNodeSets::NodeSet& set = *set_ptr;
        const size_t n = std::min(set.jobs.size(), static_cast<size_t>(set.capacity));
        if (!to_start_[set_index++]) {
          at += n;
          continue;
        }
        used_.assign(static_cast<size_t>(set.capacity), 0);
        for (size_t k = 0; k < n; ++k) {
          if (slots_[at + k] >= 0) used_[static_cast<size_t>(slots_[at + k])] = 1;
        }
        for (size_t k = 0; k < n; ++k) {
          const JobId id = set.jobs[k];
          if (slots_[at + k] >= 0 || ctx.job(id).state != JobState::kPending) continue;
          if (const int slot = StartOnFreeSlot(ctx, set, g, id); slot >= 0) {
            started_.emplace_back(id, Started{&set, set.generation, slot});
          }
          if (ctx.failed()) break;
        }
        at += n;
        if (ctx.failed()) break;
      }
      if (ctx.failed()) break;
    }
    running_.InsertMany(started_);
    if (ctx.failed()) return;
    ctx.HoldFinishesUntil(running_.ids(), next_step_s_);
  }

  // The slot of `set` that running job `id` holds exactly, or -1. Where Apply started it, that is
  // its slot while the node set is as it was then (the job keeps its devices while it runs; a node
  // set's devices change only with its generation, and a node set holding the job's nodes since
  // then would have had to take them after they were freed); else its devices are compared.
  static int SlotOf(SchedContext& ctx, const GandivaNodeSets::NodeSet& set, JobId id, const Started& started) {
    if (started.set != nullptr) {
      return started.set == &set && started.generation == set.generation ? started.slot : -1;
    }
    const JobStatus& job = ctx.job(id);
    if (job.state != JobState::kRunning) return -1;
    const int g = job.num_devices();
    if (g == 0 || job.spec->num_gpus != g) return -1;
    const auto first = std::find(set.devices.begin(), set.devices.end(), job.devices.front());
    const auto offset = first - set.devices.begin();
    if (first == set.devices.end() || offset % g != 0 || offset / g >= set.capacity) return -1;
    return std::equal(job.devices.begin(), job.devices.end(), first) ? static_cast<int>(offset / g) : -1;
  }

  // Starts `id` on the lowest free slot of `set` whose devices are all free (a job ending at this
  // second may still hold one: it is tried again at the call after that job's completion); the
  // slot, or -1.
  int StartOnFreeSlot(SchedContext& ctx, const GandivaNodeSets::NodeSet& set, int g, JobId id) {
    for (int slot = 0; slot < set.capacity; ++slot) {
      if (used_[static_cast<size_t>(slot)]) continue;
      const auto begin = set.devices.begin() + static_cast<std::ptrdiff_t>(slot) * g;
      if (!std::all_of(begin, begin + g, [&](DeviceId d) { return ctx.state().is_free(d); })) continue;
      devices_.assign(begin, begin + g);
      if (!ctx.StartOn(id, devices_)) return -1;  // the planner rejects them: it waits
      used_[static_cast<size_t>(slot)] = 1;
      return slot;
    }
    return -1;
  }

  double step_s_;
  double slice_s_;
  std::optional<GandivaNodeSets> sets_;  // made at the first call, on the context's cluster
  std::vector<JobId> arrivals_;          // submitted since the last step, in submission order
  std::vector<JobId> pending_;           // the peer's pending list (no node set took them)
  // Which device types a job may use (Step's can_use): `yes` of the types in `known`.
  struct AllowedTypes {
    uint64_t known = 0;
    uint64_t yes = 0;
  };
  JobTable<AllowedTypes> allowed_;
  JobSet<Started> running_;              // jobs this policy runs
  JobSet<> finished_;                    // finished since the last step (still in their node sets)
  JobSet<> ending_;                      // ended by a step, finishing at its second
  double next_step_s_ = 0;
  double asked_s_ = -1;
  std::vector<JobId> ended_;  // scratch of Step
  std::vector<int> slots_;    // scratch of Apply
  std::vector<char> to_start_;
  std::vector<std::pair<JobId, Started>> started_;
  std::vector<char> used_;
  std::vector<DeviceId> devices_;
};

Result<std::unique_ptr<JobScheduler>> MakeGandiva(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const double step, options.GetDouble("step", 10));
  HETSCHED_ASSIGN_OR_RETURN(const double slice, options.GetDouble("slice", 60));
  for (const auto& [key, value] : {std::pair<const char*, double>{"step", step}, {"slice", slice}}) {
    if (!(value > 0) || !std::isfinite(value)) {
      return Status::InvalidArgument(std::string("policy 'tiresias-gandiva': option '") + key +
                                     "' must be a number of seconds > 0");
    }
  }
  return std::unique_ptr<JobScheduler>(std::make_unique<TiresiasGandivaScheduler>(step, slice));
}

const MethodInfo kGandivaInfo{
    "tiresias-gandiva",
    "Tiresias' gandiva as its simulator runs it: node sets per GPU count re-sized to demand, 10 s steps, "
    "time slicing every 60 s (step=10, slice=60)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py gandiva_sim_jobs, cluster.py gandiva_*)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kGandivaRegistered, kGandivaInfo, MakeGandiva)

}  // namespace hetsched
