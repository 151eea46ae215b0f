// RoundPolicy under Gavel's simulator's mechanism (option mechanism=gavel; `--compat gavel`):
// the round timing, resets and placement of stanford-futuredata/gavel @ c4fa400,
// scheduler/scheduler.py, as cited per step. The priorities and the per-type queues are in
// sched/round_mechanism_gavel.h.
//
// Round timing (simulate(), :1283-1296): a round ends when the last job scheduled in it finishes
// its micro-task (at most one round length), so a round whose jobs all finish early ends early;
// a round that placed no job is followed by the next arrival, or, with no job left to arrive, at
// once by a pass with a forced reset (:1273-1279). A job that finishes mid-round
// leaves its devices idle until the round ends. Arrivals join at the next round.
//
// Placement: Gavel's simulator counts devices per type only (a job's speed is its consolidated
// measured throughput wherever its workers are, :959-990), keeps a job that stays on its type on
// its workers (lease extension, :914-932) and places the others widest first (:888-890, :908-944). Here a
// job that stays keeps its devices; the others start widest first, consolidated; when one cannot
// be consolidated the type is re-packed widest first (a move is free: Gavel charges no
// preemption), so every job runs at its consolidated speed as in Gavel.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "hetsched/policies/gavel/policy.h"

namespace hetsched::gavel {

namespace {

constexpr double kGavelRoundSlackS = 1e-6;
// MAX_FAILED_ATTEMPTS (scheduler.py:44): a job whose micro-task fails this many times in a row is
// dropped unfinished.
constexpr int kMaxFailedAttempts = 5;

// Gavel fills the types in the fixed order v100, p100, k80 (scheduler.py:875). Other types
// (Gavel has none) come after them in catalog order.
int GavelTypeRank(const std::string& name) {
  if (name.rfind("v100", 0) == 0) return 0;
  if (name.rfind("p100", 0) == 0) return 1;
  if (name.rfind("k80", 0) == 0) return 2;
  return 3;
}

// Whether `n` devices of `type` can be had on as few nodes as they need.
bool FitsConsolidated(const ClusterState& state, DeviceTypeId type, int n, int per_node) {
  if (per_node <= 0 || n <= per_node) return state.BestFitNode(type, n) >= 0;
  const int nodes = (n + per_node - 1) / per_node;
  std::vector<NodeId> most_free;
  state.AppendNodesByMostFree(type, nodes, &most_free);
  int free = 0;
  for (NodeId node : most_free) free += state.free_on_node(node);
  return free >= n;
}

}  // namespace

std::vector<int> RoundPolicy::GavelTypeOrder(const Cluster& cluster) const {
  std::vector<int> order(types_.size());
  for (size_t k = 0; k < types_.size(); ++k) order[k] = static_cast<int>(k);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return GavelTypeRank(cluster.device_catalog().type(types_[static_cast<size_t>(a)]).name) <
           GavelTypeRank(cluster.device_catalog().type(types_[static_cast<size_t>(b)]).name);
  });
  return order;
}

void RoundPolicy::ScheduleGavel(SchedContext& ctx) {
  const double now = ctx.now();
  bool any_running = false;
  for (const JobId id : active_ids_) {
    if (ctx.job(id).state == JobState::kRunning) {
      any_running = true;
      break;
    }
  }
  if (round_started_) {
    const bool due = now + kGavelRoundSlackS >= next_round_s_;
    if (any_running && !due) return;  // the round goes on
    // Nothing ran this round and nothing arrived: Gavel jumps to the next arrival (:1293-1295);
    // with none left it resets at once (below). A back end that cannot know whether more jobs
    // will arrive (a live one) ticks instead: the round starts once a reset is due by time.
    if (!any_running && !placed_last_round_ && !arrived_since_round_ &&
        (ctx.arrivals_left() != ArrivalsLeft::kUnknown || !gavel_->ResetDue(now, dirty_))) {
      return;
    }
  }
  // Idle since the empty round below: nothing until the next arrival.
  if (active_.empty() && !round_started_) return;
  GavelPass(ctx);
  // A pass that placed nothing, with no job left to arrive: Gavel's next loop finds no micro-task
  // running and none queued, sets last_reset_time = 0 (:1273-1279) and runs the pass again at the
  // same time, resetting if the allocation is stale (when it is not, Gavel never ends; here the
  // simulator's stall check stops the run).
  if (round_started_ && !placed_last_round_ && ctx.arrivals_left() == ArrivalsLeft::kNone) {
    gavel_->ForceNextReset();
    if (gavel_->ResetDue(now, dirty_)) GavelPass(ctx);
  }
}

// The micro-tasks of the round that ends now (_done_callback): each is charged its own end
// minus the end of the last round that ran any (Gavel's current_round_start_time).
// A failed micro-task (below) is charged nothing and progressed nothing; it marks the
// allocation stale, and the fifth in a row drops the job (_done_callback, :2987-3008;
// _remove_job, :536-545: its JCT is left out of Gavel's average).
void RoundPolicy::EndMicroTasks(SchedContext& ctx) {
  std::vector<JobId> dropped;
  // Only the round's pairs can have a micro-task (running_pairs_), charged in Gavel's order.
  std::sort(running_pairs_.begin(), running_pairs_.end(),
            [this](GavelRoundMechanism::Combo a, GavelRoundMechanism::Combo b) { return PairBefore(a, b); });
  for (const GavelRoundMechanism::Combo c : running_pairs_) {
    ActivePair& p = pairs_[static_cast<size_t>(c)];
    if (p.micro_type >= 0) {
      gavel_->Account(c, p.micro_type, MicroTaskCharge(p.micro_end_s));
      for (JobId member : {p.high, p.low}) active_.at(member).failures = 0;
    }
    p.micro_type = -1;
  }
  running_pairs_.clear();
  for (auto& [id, a] : active_) {
    if (a.micro_type >= 0) {
      gavel_->Account(a.combo, a.micro_type, MicroTaskCharge(a.micro_end_s));
      a.failures = 0;
    }
    a.micro_type = -1;
    if (a.micro_failed) {
      a.micro_failed = false;
      dirty_ = true;
      if (++a.failures >= kMaxFailedAttempts) dropped.push_back(id);
    }
  }
  busy_round_end_s_ = ctx.now();
  for (JobId id : dropped) {
    if (ctx.DropJob(id)) ForgetJob(id);  // a back end that cannot drop keeps it (a fault ends the run)
  }
}

void RoundPolicy::GavelPass(SchedContext& ctx) {
  const double now = ctx.now();
  round_started_ = true;
  arrived_since_round_ = false;

  if (micro_tasks_last_round_) EndMicroTasks(ctx);
  // 2. Reset and re-solve only when due (_update_priorities, :2368-2381).
  if (gavel_->ResetDue(now, dirty_)) {
    gavel_->Reset(now);
    Resolve(ctx);
    // Every active job and pair is now in the allocation, with its new share (a pair's 0 unless
    // listed).
    gavel_->BeginAllocation();
    for (auto& [id, a] : active_) gavel_->SetAllocation(a.combo, a.share);
    for (const auto& [combo, share] : pair_shares_) gavel_->SetAllocation(combo, share);
  }

  // 3. Plan the round over the types in Gavel's order (shuffled for the "non-Perf" policies).
  std::vector<int> order = gavel_type_order_;
  if (gavel_options_.shuffle_types) type_shuffler_->Shuffle(order);
  // The round in which the last active job finished ran nothing more, but Gavel's simulate() still
  // ends it (current_round_end_time, :1283-1290), resets and recomputes the allocation with no
  // jobs when due (_update_priorities, :2368-2389: gavel-fifo then drops the finished job's type,
  // fifo.py:94-117, and the next arrival draws from Random(seed)) and shuffles the types
  // (:879-881). Then it waits for the next arrival.
  if (active_.empty()) {
    micro_tasks_last_round_ = false;
    placed_last_round_ = false;
    round_started_ = false;
    return;
  }
  const std::vector<GavelPlannedCombo> plan = gavel_->PlanRound(order, gavel_options_.skip_zero_priority);
  placed_last_round_ = !plan.empty();
  StartRoundGavel(ctx, plan);
  const double round_end = DispatchMicroTasks(ctx, plan);
  micro_tasks_last_round_ = round_end >= 0;
  next_round_s_ = micro_tasks_last_round_ ? round_end : now + round_s_;
  ctx.WakeUpAt(next_round_s_);
}

double RoundPolicy::DispatchMicroTasks(SchedContext& ctx, const std::vector<GavelPlannedCombo>& plan) {
  // Each job runs int(T x round) whole steps, or what it has left if fewer (_get_num_steps,
  // scheduler.py:959-993), T being the throughput the scheduler knows on its type; its
  // micro-task lasts steps / T (:1034-1036) and then its devices idle until the round ends
  // (simulate(), :1283-1290), which is when the longest micro-task ends.
  const double now = ctx.now();
  double round_end = -1;
  for (const GavelPlannedCombo& combo : plan) {
    if (combo.partner >= 0) {
      round_end = std::max(round_end, DispatchPair(ctx, combo));
      continue;
    }
    const JobStatus& st = ctx.job(combo.id);
    if (st.state != JobState::kRunning) continue;  // not placed after all
    ActiveJob& a = active_.at(combo.id);
    const int k = combo.type;
    const double speed = a.runnable[static_cast<size_t>(k)];
    // Whole steps left, as Gavel counts; a residue runs its last micro-task (ReportedProgressOf: a
    // job was dropped after 1,286 preemptions before it did).
    const ReportedProgress progress = ReportedProgressOf(st, now);
    const double done = progress.done;
    const double per_round = std::floor(speed * round_s_);
    const bool last = per_round >= progress.left;
    const double steps = last ? progress.left : per_round;
    // Gavel splits a micro-task's steps over its workers, steps // workers each and the rest to
    // the last (simulate(), :1322-1331), and a worker with 0 steps fails the micro-task
    // (:2960-2962): with fewer steps than GPUs (the last steps of a multi-GPU job, or a job
    // slower than one step per round) it runs, makes no progress and is charged nothing.
    if (progress.Fails(steps, combo.num_gpus)) {
      ctx.RunUntil(combo.id, done);  // held at once: no progress
      a.micro_failed = true;
      round_end = std::max(round_end, now + steps / speed);
      continue;
    }
    // Its last micro-task runs it to completion (even if its true work is more than it reports).
    ctx.RunUntil(combo.id, last ? std::numeric_limits<double>::infinity() : done + steps);
    a.micro_type = k;
    a.micro_end_s = now + progress.RunS(steps, speed, round_s_);
    round_end = std::max(round_end, a.micro_end_s);
  }
  return round_end;
}

// Jobs that move or pause give their devices back first; jobs that stay keep them: a running job
// stays where it is when its type is planned for it and it runs alone or with its planned partner
// (packing); a guest whose pair is not planned again leaves (its host stays); of a planned pair whose
// two jobs run alone on the type, the higher id leaves and joins the other. Then each type's new
// units start widest first, consolidated: a single, or a pair's host (joined by its guest on the
// same devices); when one cannot be consolidated the type is re-packed, everyone planned on it
// starting again widest first (guests leave first).
void RoundPolicy::StartRoundGavel(SchedContext& ctx, const std::vector<GavelPlannedCombo>& jobs) {
  std::map<JobId, std::pair<int, JobId>> planned;  // job -> (type index, planned partner or -1)
  for (size_t i = 0; i < jobs.size(); ++i) {
    planned[jobs[i].id] = {jobs[i].type, jobs[i].partner};
    if (jobs[i].partner >= 0) planned[jobs[i].partner] = {jobs[i].type, jobs[i].id};
  }
  auto planned_of = [&](JobId id) {
    auto it = planned.find(id);
    return it == planned.end() ? std::make_pair(-1, JobId{-1}) : it->second;
  };
  auto running_on = [&](JobId id) {
    const JobStatus& st = ctx.job(id);
    return st.state == JobState::kRunning ? TypeIndex(st.device_type) : -1;
  };
  for (const JobId id : active_ids_) {
    const int current = running_on(id);
    if (current >= 0 && current != planned_of(id).first) ctx.Preempt(id);
  }
  for (const JobId id : active_ids_) {
    const JobStatus& st = ctx.job(id);
    if (st.state != JobState::kRunning || st.sharing_with < 0) continue;
    if (ctx.state().guest(st.devices.front()) == id && planned_of(id).second != st.sharing_with) ctx.Preempt(id);
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].partner < 0) continue;
    const JobStatus& low = ctx.job(jobs[i].id);
    const JobStatus& high = ctx.job(jobs[i].partner);
    if (running_on(jobs[i].id) == jobs[i].type && running_on(jobs[i].partner) == jobs[i].type && low.sharing_with < 0 &&
        high.sharing_with < 0) {
      ctx.Preempt(jobs[i].partner);
    }
  }
  // A pair whose guest the back end (or the planner) declines on its host's devices (the two do
  // not fit together: memory) [REC]: it would be planned again at every round, drawn first among
  // the combinations of priority 0 as its deficit grows, its two jobs taken and idle each time (a
  // run that never ends). It is dropped on that type (its rates there 0, as a pair Gavel's
  // mechanism never runs, scheduler.py:821-827; its time and deficit start again).
  std::vector<std::pair<GavelRoundMechanism::Combo, int>> declined;
  auto share = [&](size_t i, JobId guest, JobId host) {
    const bool could = ctx.job(guest).state == JobState::kPending && ctx.job(host).state == JobState::kRunning &&
                       ctx.job(host).sharing_with == kNoJob;
    if (!ctx.StartSharing(guest, host) && could && !ctx.failed()) declined.emplace_back(jobs[i].combo, jobs[i].type);
  };
  // The units to start, per type: (combo index, host): a single or a new pair's host starts on
  // devices of its own (`host` < 0); a pair whose host runs already takes its guest only.
  std::vector<std::vector<size_t>> starting(types_.size());
  std::vector<std::vector<size_t>> on_type(types_.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    const size_t k = static_cast<size_t>(jobs[i].type);
    on_type[k].push_back(i);
    const bool low_runs = running_on(jobs[i].id) == jobs[i].type;
    const bool high_runs = jobs[i].partner >= 0 && running_on(jobs[i].partner) == jobs[i].type;
    if (jobs[i].partner < 0) {
      if (!low_runs) starting[k].push_back(i);
    } else if (low_runs && high_runs) {
      continue;  // the pair runs on
    } else if (low_runs) {
      share(i, jobs[i].partner, jobs[i].id);
    } else if (high_runs) {
      share(i, jobs[i].id, jobs[i].partner);
    } else {
      starting[k].push_back(i);
    }
  }
  auto widest_first = [&](std::vector<size_t>& v) {
    std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return jobs[a].num_gpus > jobs[b].num_gpus; });
  };
  auto start = [&](size_t i, DeviceTypeId type) {
    if (!ctx.TryStart(jobs[i].id, jobs[i].num_gpus, type)) return;
    if (jobs[i].partner >= 0) share(i, jobs[i].partner, jobs[i].id);
  };
  for (size_t k = 0; k < types_.size(); ++k) {
    const DeviceTypeId type = types_[k];
    const int per_node = ctx.cluster().max_devices_per_node(type);
    widest_first(starting[k]);
    bool consolidated = true;
    for (size_t i : starting[k]) {
      if (!FitsConsolidated(ctx.state(), type, jobs[i].num_gpus, per_node)) {
        consolidated = false;
        break;
      }
      start(i, type);
    }
    if (consolidated) continue;
    for (size_t i : on_type[k]) {
      if (jobs[i].partner >= 0 && ctx.job(jobs[i].partner).state == JobState::kRunning) ctx.Preempt(jobs[i].partner);
      if (ctx.job(jobs[i].id).state == JobState::kRunning) ctx.Preempt(jobs[i].id);
    }
    widest_first(on_type[k]);
    for (size_t i : on_type[k]) start(i, type);
  }
  const size_t types = types_.size();
  for (const auto& [combo, k] : declined) {
    const size_t slot = static_cast<size_t>(combo);
    pair_rates_[2 * slot * types + static_cast<size_t>(k)] = 0.0;
    pair_rates_[(2 * slot + 1) * types + static_cast<size_t>(k)] = 0.0;
    std::vector<double> runnable(types);
    for (size_t t = 0; t < types; ++t) runnable[t] = std::min(PairRates(combo, 0)[t], PairRates(combo, 1)[t]);
    gavel_->Restart(combo, runnable);
  }
}

}  // namespace hetsched::gavel
