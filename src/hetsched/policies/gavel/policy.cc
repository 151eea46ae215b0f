#include "hetsched/policies/gavel/policy.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <vector>

#include "hetsched/util/file_io.h"

namespace hetsched::gavel {

namespace {
// Round ticks within this many seconds count as due (floating-point slack).
constexpr double kRoundSlackS = 1e-6;

// What a Gavel policy reads of a goodput job (sched/goodput_view.h): its steps per second on `gpus`
// devices of `type` at its user's batch, from its application's measured step times (the oracle
// throughputs Gavel's policies read; Sia's simulator's gavel.py:510-546 predict_throughput): packed
// `per_node` to a node, its batch split as the job splits it (on one GPU in at least two passes,
// as gavel.py predicts it), times its calibration to the peer's cluster (progress_scale). 0 where
// it was not profiled.
Result<double> GoodputTunedRate(const GoodputJobView& view, DeviceTypeId type, int gpus, int per_node) {
  const GoodputApplication* app = view.types.empty() ? view.application : nullptr;
  for (const GoodputTypeView& t : view.types) {
    if (t.type == type || t.type == kNoDeviceType) app = t.application;
  }
  if (app == nullptr || gpus <= 0 || per_node <= 0) return 0.0;
  std::vector<int> placement;
  for (int left = gpus; left > 0; left -= per_node) placement.push_back(std::min(left, per_node));
  const int max_local = app->local_batch_per_placement() ? app->MaxLocalBszOn(placement) : app->max_local_bsz();
  const BatchSplit split = SplitBatch(*app, view.target_batch, gpus, gpus == 1, max_local);
  HETSCHED_ASSIGN_OR_RETURN(const StepTimes t, app->StepTime(placement, split.atomic_bsz));
  const double iteration_s = t.step_s + (t.step_s - t.sync_s) * split.accum_steps;
  return iteration_s > 0 ? app->progress_scale() / iteration_s : 0.0;
}
}  // namespace

ReportedProgress ReportedProgressOf(const JobStatus& st, double now) {
  ReportedProgress p;
  p.done = st.iterations_done;
  if (st.state == JobState::kRunning && !st.idle) p.done += st.iteration_rate * std::max(0.0, now - st.last_start_s);
  p.total = static_cast<double>(std::max<int64_t>(st.spec->iterations, 1));
  p.left = std::max(0.0, std::round(p.total - p.done));
  p.residue = p.left == 0 && p.total - p.done > 0;
  p.overrun = p.total - p.done <= 0;
  return p;
}

Result<double> RoundOption(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, options.GetDouble("round", RoundPolicy::kDefaultRoundS));
  if (!(round_s > 0) || !std::isfinite(round_s)) {
    return Status::InvalidArgument("option 'round' must be a positive number of seconds, got " + std::to_string(round_s));
  }
  return round_s;
}

std::vector<double> SeenThroughputs(const std::vector<double>& runnable, const std::vector<double>& modelled, bool blind,
                                    int reference, bool by_reference) {
  std::vector<double> seen(runnable.size(), 0.0);
  double value = 1.0;
  if (blind && by_reference && !runnable.empty()) {
    value = reference >= 0 && runnable[static_cast<size_t>(reference)] > 0 ? runnable[static_cast<size_t>(reference)]
                                                                            : *std::max_element(runnable.begin(), runnable.end());
  }
  for (size_t k = 0; k < runnable.size(); ++k) {
    if (modelled[k] > 0) seen[k] = blind ? value : runnable[k];
  }
  return seen;
}

Result<std::unique_ptr<JobScheduler>> MakeLpRoundPolicy(const Options& options, std::string name,
                                                        bool heterogeneity_blind, LpRoundPolicy::SolveFn solve,
                                                        lp::WarmStartMatch warm_start, const std::string& blind_reference) {
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, RoundOption(options));
  HETSCHED_ASSIGN_OR_RETURN(GavelMechanismOptions mechanism, MechanismOption(options, "hetsched"));
  // Gavel shuffles the types for every policy without "Perf" in its name: the blind variants.
  mechanism.shuffle_types = heterogeneity_blind;
  auto policy = std::make_unique<LpRoundPolicy>(std::move(name), round_s, heterogeneity_blind, std::move(solve),
                                                 warm_start);
  HETSCHED_RETURN_IF_ERROR(ProfileOption(options, *policy));
  policy->SetGavelMechanism(mechanism);
  policy->SetBlindReference(blind_reference);
  return std::unique_ptr<JobScheduler>(std::move(policy));
}

Result<GavelMechanismOptions> MechanismOption(const Options& options, const std::string& default_mechanism) {
  GavelMechanismOptions out;
  const std::string mechanism = options.GetString("mechanism", default_mechanism);
  if (mechanism != "hetsched" && mechanism != "gavel" && mechanism != "sia") {
    return Status::InvalidArgument("option 'mechanism' must be 'hetsched', 'gavel' or 'sia', got '" + mechanism + "'");
  }
  out.enabled = mechanism == "gavel";
  out.sia = mechanism == "sia";
  HETSCHED_ASSIGN_OR_RETURN(out.reset_interval_s,
                            options.GetDouble("reset_interval", GavelRoundMechanism::kDefaultResetIntervalS));
  if (!(out.reset_interval_s >= 0) || !std::isfinite(out.reset_interval_s)) {
    return Status::InvalidArgument("option 'reset_interval' must be a non-negative number of seconds");
  }
  HETSCHED_ASSIGN_OR_RETURN(const long long seed, options.GetInt("seed", 0));
  if (seed < 0) return Status::InvalidArgument("option 'seed' must be >= 0 for Gavel's mechanism");
  out.seed = static_cast<uint64_t>(seed);
  return out;
}

Status PairFinishOption(const Options& options, GavelMechanismOptions& mechanism) {
  const std::string pair_finish = options.GetString("pair_finish", "work");
  if (pair_finish != "work" && pair_finish != "micro_task") {
    return Status::InvalidArgument("option 'pair_finish' must be 'work' or 'micro_task', got '" + pair_finish + "'");
  }
  mechanism.finish_with_pair = pair_finish == "micro_task";
  return Status::Ok();
}

Result<SharePoint> PointOption(const Options& options) {
  const std::string point = options.GetString("point", "vertex");
  if (point == "vertex") return SharePoint::kVertex;
  if (point == "centre") return SharePoint::kCentre;
  if (point == "cvxopt") return SharePoint::kCvxopt;
  return Status::InvalidArgument("option 'point' must be 'vertex', 'centre' or 'cvxopt', got '" + point + "'");
}

Result<lp::WarmStartMatch> WarmStartOption(const Options& options, const std::string& default_match) {
  const std::string warm_start = options.GetString("warm_start", default_match);
  if (warm_start == "same-shape") return lp::WarmStartMatch::kShape;
  if (warm_start == "by-job") return lp::WarmStartMatch::kName;
  return Status::InvalidArgument("option 'warm_start' must be 'same-shape' or 'by-job', got '" + warm_start + "'");
}

Result<PairColumns> PairColumnsOption(const Options& options, PairColumns default_columns) {
  const std::string columns = options.GetString("columns", default_columns == PairColumns::kAll ? "all" : "priced");
  if (columns == "all") return PairColumns::kAll;
  if (columns == "priced") return PairColumns::kPriced;
  return Status::InvalidArgument("option 'columns' must be 'all' or 'priced', got '" + columns + "'");
}

Result<TieBreak> TieBreakOption(const Options& options) {
  const std::string tie_break = options.GetString("tie_break", "ranked");
  if (tie_break == "ranked") return TieBreak::kRanked;
  if (tie_break == "none") return TieBreak::kNone;
  return Status::InvalidArgument("option 'tie_break' must be 'ranked' or 'none', got '" + tie_break + "'");
}

Status ProfileOption(const Options& options, RoundPolicy& policy) {
  const std::string path = options.GetString("profile", "");
  if (path.empty()) return Status::Ok();
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFileOrEmbedded(path));
  HETSCHED_ASSIGN_OR_RETURN(std::vector<GavelThroughputRow> rows, ParseGavelThroughputs(text, path));
  policy.SetProfile(std::move(rows), path);
  return Status::Ok();
}

Status PairProfileOption(const Options& options, RoundPolicy& policy) {
  const std::string path = options.GetString("pair_profile", "");
  if (path.empty()) return Status::Ok();
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFileOrEmbedded(path));
  HETSCHED_ASSIGN_OR_RETURN(std::vector<GavelPairRow> rows, ParseGavelPairThroughputs(text, path));
  policy.SetPairProfile(std::move(rows), path);
  return Status::Ok();
}

void RoundPolicy::Init(SchedContext& ctx) {
  if (initialised_) return;
  initialised_ = true;
  const Cluster& cluster = ctx.cluster();
  types_ = cluster.present_types();
  for (DeviceTypeId t : types_) {
    capacity_.push_back(cluster.devices_per_type()[static_cast<size_t>(t)]);
    price_per_hour_.push_back(cluster.device_catalog().type(t).price_per_hour);
  }
  mechanism_ = std::make_unique<RoundMechanism>(capacity_);
  if (gavel_options_.enabled) {
    gavel_ = std::make_unique<GavelRoundMechanism>(capacity_, round_s_, gavel_options_.reset_interval_s);
    type_shuffler_ = std::make_unique<PythonRandom>(gavel_options_.seed + 5);
    gavel_type_order_ = GavelTypeOrder(cluster);
  }
  if (gavel_options_.sia) InitSia(cluster);
  if (!profile_rows_.empty()) {
    auto table = MeasuredThroughputs::FromRows(profile_rows_, cluster.device_catalog(), profile_origin_);
    if (table.ok()) {
      profile_ = std::make_unique<MeasuredThroughputs>(std::move(table).value());
    } else {
      ctx.Fail(table.status().WithContext(std::string(name()) + ": option 'profile'"));  // ends the run
    }
  }
  if (!pair_rows_.empty()) {
    if (profile_ == nullptr) {
      ctx.Fail(Status::InvalidArgument(std::string(name()) + ": option 'pair_profile' needs option 'profile' (the jobs' types)"));
    } else if (Status st = profile_->AddPairs(pair_rows_, cluster.device_catalog(), pair_origin_); !st.ok()) {
      ctx.Fail(st.WithContext(std::string(name()) + ": option 'pair_profile'"));
    }
  }
  if (packing_ && !gavel_) {
    ctx.Fail(Status::InvalidArgument(std::string(name()) + " runs under Gavel's round mechanism only (mechanism=gavel)"));
  }
}

int RoundPolicy::TypeIndex(DeviceTypeId type) const {
  for (size_t k = 0; k < types_.size(); ++k) {
    if (types_[k] == type) return static_cast<int>(k);
  }
  return -1;
}

void RoundPolicy::OnJobSubmitted(const JobStatus& job, SchedContext& ctx) {
  Init(ctx);
  const JobSpec& spec = *job.spec;
  const auto [added_at, added] = active_.try_emplace(spec.id);
  if (added) active_ids_.insert(std::lower_bound(active_ids_.begin(), active_ids_.end(), spec.id), spec.id);
  ActiveJob& a = added_at->second;
  a.throughput.assign(types_.size(), 0.0);
  a.runnable.assign(types_.size(), 0.0);
  std::vector<double> modelled(types_.size(), 0.0);  // 0: the job cannot run there
  const std::optional<GoodputJobView> goodput = ctx.goodput_job(spec.id);
  for (size_t k = 0; k < types_.size(); ++k) {
    if (!spec.AllowsType(types_[k], ctx.cluster().device_catalog()) || spec.num_gpus > capacity_[k]) continue;
    if (goodput) {
      Result<double> rate = GoodputTunedRate(*goodput, types_[k], spec.num_gpus,
                                             ctx.cluster().max_devices_per_node(types_[k]));
      if (!rate.ok()) {
        ctx.Fail(rate.status().WithContext(std::string(name()) + ": job " + std::to_string(spec.id)));
        return;
      }
      modelled[k] = *rate;
      continue;
    }
    const double iteration_s = ctx.EstimateIterationS(spec.id, spec.num_gpus, types_[k]);
    if (std::isfinite(iteration_s) && iteration_s > 0) modelled[k] = 1.0 / iteration_s;
  }
  // Under Gavel's mechanism a job type the profile knows runs only where the profile measured it
  // (Gavel's oracle gives 0 elsewhere and never schedules it there, scheduler.py:818-823);
  // otherwise such a type gets the model's speed in the profile's units (ProfiledSpeeds).
  a.runnable = profile_ == nullptr ? modelled
                                   : ProfiledSpeeds(*profile_, profile_->JobTypeIndex(spec.name), spec.num_gpus,
                                                    types_, modelled, gavel_options_.enabled);
  int reference = -1;
  for (size_t k = 0; k < types_.size(); ++k) {
    if (ctx.cluster().device_catalog().type(types_[k]).name == blind_reference_) reference = static_cast<int>(k);
  }
  a.throughput = SeenThroughputs(a.runnable, modelled, blind_, blind_reference_.empty() ? -1 : reference,
                                 !blind_reference_.empty());
  a.last_accounted_s = ctx.now();
  dirty_ = true;
  if (gavel_) {
    if (a.combo != GavelRoundMechanism::kNoCombo) {
      gavel_->Restart(a.combo, a.runnable);  // announced again: as Gavel's add_job of a known id
    } else {
      a.combo = gavel_->AddJob(spec.id, spec.num_gpus, a.runnable);
    }
    arrived_since_round_ = true;
  }
  if (packing_) AddPairs(spec.id, ctx);
}

void RoundPolicy::OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) {
  const JobId id = job.spec->id;
  auto it = active_.find(id);
  if (gavel_ && it != active_.end() && it->second.micro_type >= 0) {
    // Its last micro-task counts in its type's total (scheduler.py:3074-3077).
    gavel_->Account(it->second.combo, it->second.micro_type, MicroTaskCharge(it->second.micro_end_s));
  }
  // A pair's micro-task it was in counts there too (in Gavel's order, as EndMicroTasks charges).
  std::sort(running_pairs_.begin(), running_pairs_.end(),
            [this](GavelRoundMechanism::Combo a, GavelRoundMechanism::Combo b) { return PairBefore(a, b); });
  for (const GavelRoundMechanism::Combo c : running_pairs_) {
    const ActivePair& p = pairs_[static_cast<size_t>(c)];
    if ((p.high == id || p.low == id) && p.micro_type >= 0) {
      gavel_->Account(c, p.micro_type, MicroTaskCharge(p.micro_end_s));
    }
  }
  ForgetJob(id);
}

void RoundPolicy::ForgetJob(JobId id) {
  auto it = active_.find(id);
  if (it != active_.end()) {
    // Its pairs: (id, lower) its own list, (higher, id) one in each higher active job's.
    auto forget_pair = [this](GavelRoundMechanism::Combo c) {
      gavel_->Remove(c);
      if (pairs_[static_cast<size_t>(c)].micro_type >= 0) std::erase(running_pairs_, c);
      pairs_[static_cast<size_t>(c)] = ActivePair{};
    };
    for (const auto& [low, c] : it->second.lower_pairs) {
      if (c != GavelRoundMechanism::kNoCombo) forget_pair(c);
    }
    if (packing_ && gavel_) {
      for (auto other = std::next(it); other != active_.end(); ++other) {
        ActiveJob& higher = other->second;
        auto pair = std::lower_bound(higher.lower_pairs.begin(), higher.lower_pairs.end(), id,
                                     [](const auto& entry, JobId low) { return entry.first < low; });
        if (pair == higher.lower_pairs.end() || pair->first != id || pair->second == GavelRoundMechanism::kNoCombo) {
          continue;
        }
        forget_pair(pair->second);
        pair->second = GavelRoundMechanism::kNoCombo;
        if (2 * ++higher.forgotten_pairs > higher.lower_pairs.size()) {
          std::erase_if(higher.lower_pairs,
                        [](const auto& entry) { return entry.second == GavelRoundMechanism::kNoCombo; });
          higher.forgotten_pairs = 0;
        }
      }
    }
    if (gavel_) gavel_->Remove(it->second.combo);
    active_ids_.erase(std::lower_bound(active_ids_.begin(), active_ids_.end(), it->first));
    active_.erase(it);
    dirty_ = true;
  }
  sia_jobs_.erase(id);
  if (mechanism_) mechanism_->Forget(id);
}

void RoundPolicy::OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) {
  // The job stays active; the next round places it again.
}

AllocationProblem RoundPolicy::ProblemNow(const SchedContext& ctx, std::vector<AllocationPair> pairs) {
  const double now = ctx.now();
  AllocationProblem problem;
  problem.capacity = capacity_;
  for (DeviceTypeId t : types_) problem.type_names.push_back(ctx.cluster().device_catalog().type(t).name);
  problem.price_per_hour = price_per_hour_;
  problem.jobs.reserve(active_.size());
  for (const auto& [id, a] : active_) {
    const JobStatus& st = ctx.job(id);
    const JobSpec& spec = *st.spec;
    AllocationJob j;
    j.id = id;
    j.num_gpus = spec.num_gpus;
    j.weight = spec.priority > 0 ? static_cast<double>(spec.priority) : 1.0;
    j.throughput = a.throughput;
    // Progress the job itself reports: iterations done at its last allocation change plus the
    // current run at its reported rate. Never below 1% of the job (it is still active).
    const ReportedProgress progress = ReportedProgressOf(st, now);
    const double done = progress.done, total = progress.total;
    j.total_iterations = total;
    j.remaining_iterations = std::max(total - done, 0.01 * total);
    j.elapsed_s = std::max(0.0, now - spec.submit_time_s);
    if (std::isfinite(spec.deadline_s)) j.deadline_in_s = spec.deadline_s - now;
    problem.jobs.push_back(std::move(j));
  }
  problem_pair_combos_.clear();
  pairs.clear();
  if (packing_ && gavel_) {
    // Job by job in id order (active_'s, the problem's), each with its pairs with lower ids by that
    // id: Gavel's order, (higher, lower); the lower's index found by walking the problem's jobs.
    size_t high = 0;
    for (const auto& [id, a] : active_) {
      size_t low = 0;
      for (const auto& [low_id, combo] : a.lower_pairs) {
        if (combo == GavelRoundMechanism::kNoCombo) continue;
        while (problem.jobs[low].id < low_id) ++low;
        pairs.push_back(AllocationPair{low, high, PairRates(combo, 0), PairRates(combo, 1)});
        problem_pair_combos_.push_back(combo);
      }
      ++high;
    }
  }
  problem.pairs = std::move(pairs);
  problem.pairs_ordered = true;  // by (higher, lower), each once
  return problem;
}

void RoundPolicy::Resolve(SchedContext& ctx) {
  dirty_ = false;
  AllocationProblem problem = ProblemNow(ctx, std::move(problem_pairs_storage_));
  ++allocations_computed_;
  Result<Allocation> allocation = ComputeAllocation(problem);
  if (!allocation.ok()) {
    // An error, not an LP outcome (the solver back end could not be loaded, a bad problem): the
    // run ends with it rather than reading it as "no allocation".
    ctx.Fail(allocation.status().WithContext(std::string(name())));
    return;
  }
  // A job no type can run (fewer devices than it needs, or no throughput for it) is given no share
  // now or ever: say why, so that a run it keeps from ending says so (the simulator's stall error).
  for (JobId id : allocation->unplaceable) {
    const JobStatus& st = ctx.job(id);
    ctx.NoteNeverPlaceable(id, std::string(name()) + " can never give it a share: no GPU type of the cluster has " +
                             std::to_string(st.spec->num_gpus) + " device(s) and a positive throughput for " +
                             st.spec->model + " at that count (the policy's throughputs: its profile or the model)");
  }
  const bool ok = allocation.ok() && allocation->status == lp::SolveStatus::kOptimal &&
                  allocation->share.size() == problem.jobs.size() &&
                  (problem.pairs.empty() || allocation->pair_share.size() == problem.pairs.size());
  // Without an optimum the pairs get nothing (the singles' fallback below).
  pair_shares_.clear();
  const ShareRows& pair_rows = allocation->pair_share;
  for (size_t i = 0; ok && i < pair_rows.written().size(); ++i) {  // every other row is 0
    const size_t p = pair_rows.written()[i];
    const std::span<const double> share = pair_rows[p];
    if (std::any_of(share.begin(), share.end(), [](double x) { return x != 0; })) {
      pair_shares_.emplace_back(problem_pair_combos_[p], std::vector<double>(share.begin(), share.end()));
    }
  }
  problem_pairs_storage_ = std::move(problem.pairs);
  if (ok) lp_solves_ += allocation->lp_solves;
  size_t i = 0;
  for (auto& [id, a] : active_) {
    if (ok) {
      a.share = allocation->share[i];
      // Sia's simulator rounds X to 5 decimals (numpy's round: half to even) and clips it to [0, 1]
      // (policies/max_sum_throughput.py:90).
      if (gavel_options_.sia) {
        for (double& x : a.share) x = std::clamp(std::nearbyint(x * 1e5) / 1e5, 0.0, 1.0);
      }
    } else {
      // The LP ended without an optimum (numerical trouble; should not happen): fall back to "the
      // fastest type, all the time" for this solve, counted in solve_failures_; the mechanism
      // still respects capacity.
      a.share.assign(types_.size(), 0.0);
      const auto best = std::max_element(a.throughput.begin(), a.throughput.end());
      if (best != a.throughput.end() && *best > 0) a.share[static_cast<size_t>(best - a.throughput.begin())] = 1.0;
    }
    ++i;
  }
  if (!ok) ++solve_failures_;
}

void RoundPolicy::Schedule(SchedContext& ctx) {
  Init(ctx);
  if (gavel_) {
    ScheduleGavel(ctx);
    return;
  }
  if (gavel_options_.sia) {
    ScheduleSia(ctx);
    return;
  }
  const double now = ctx.now();
  if (round_started_ && now + kRoundSlackS < next_round_s_) return;  // between rounds: nothing to do
  round_started_ = true;
  next_round_s_ = now + round_s_;

  // 1. Account the time since the last round: each active job ran on its current type (or none).
  for (auto& [id, a] : active_) {
    const JobStatus& st = ctx.job(id);
    const int k = st.state == JobState::kRunning ? TypeIndex(st.device_type) : -1;
    mechanism_->Account(id, k, now - a.last_accounted_s);
    a.last_accounted_s = now;
  }
  // 2. Re-solve only if the active set changed.
  if (dirty_) Resolve(ctx);
  if (active_.empty()) return;

  // 3. Plan the round.
  std::vector<RoundJob> jobs;
  jobs.reserve(active_.size());
  for (const auto& [id, a] : active_) {
    const JobStatus& st = ctx.job(id);
    jobs.push_back(RoundJob{id, st.spec->num_gpus, a.share,
                            st.state == JobState::kRunning ? TypeIndex(st.device_type) : -1});
  }
  const std::vector<int> plan = mechanism_->PlanRound(jobs);

  // 4. Jobs that move or pause give their devices back first; jobs that stay keep them.
  std::vector<size_t> to_start;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].current_type >= 0 && jobs[i].current_type != plan[i]) ctx.Preempt(jobs[i].id);
    if (plan[i] >= 0 && jobs[i].current_type != plan[i]) to_start.push_back(i);
  }
  // 5. Start the others, widest first so that multi-GPU jobs find whole servers (the placer
  //    consolidates where it can).
  std::stable_sort(to_start.begin(), to_start.end(),
                   [&](size_t a, size_t b) { return jobs[a].num_gpus > jobs[b].num_gpus; });
  // A job that fits one server of its type but would be split over several (its traffic would
  //    then cross the NICs) waits for the next round instead, as Gavel's placement prefers
  //    consolidation. A job wider than every server of its type is split (waiting would be for
  //    ever: a cluster-wide server size here once left 8-GPU jobs on 4-GPU K80 servers waiting).
  for (size_t i : to_start) {
    const DeviceTypeId type = types_[static_cast<size_t>(plan[i])];
    const int n = jobs[i].num_gpus;
    if (n > 1 && n <= ctx.cluster().max_devices_per_node(type) && ctx.state().BestFitNode(type, n) < 0) continue;
    ctx.TryStart(jobs[i].id, n, type);
  }
}

}  // namespace hetsched::gavel
