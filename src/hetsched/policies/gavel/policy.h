// The scheduler side shared by Gavel's allocation policies: keeps the active jobs and their
// throughput rows, re-solves the allocation X only when the set of active jobs changes (at most
// once per round), and runs Gavel's round-based mechanism (sched/round_mechanism.h) every round.
//
// What the policy sees (docs/gavel.md, "What the scheduler sees"): T[j][k] = 1 / the visible
// performance model's iteration time of job j on its num_gpus devices of type k, packed, without
// contention (SchedContext::EstimateIterationS), i.e. iterations/s of the job as submitted;
// cached per job at submission. Never the simulator's truth. Heterogeneity-blind variants use
// T = 1 on every type the job can run on.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hetsched/lp/linear_program.h"
#include "hetsched/perf/validation.h"
#include "hetsched/policies/gavel/allocation.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/options.h"
#include "hetsched/sched/round_mechanism.h"
#include "hetsched/sched/round_grid.h"
#include "hetsched/sched/round_mechanism_gavel.h"
#include "hetsched/util/python_random.h"

namespace hetsched::gavel {

// Which round mechanism runs the allocation (option `mechanism`): hetsched's (the paper's,
// sched/round_mechanism.h; the default), Gavel's simulator's (sched/round_mechanism_gavel.h,
// with its round timing and placement: policies/gavel/round_gavel.cc), which `--compat gavel` sets,
// or Sia's simulator's re-implementation of Gavel (policies/gavel/round_sia.cc), which
// `--compat sia` sets.
struct GavelMechanismOptions {
  bool enabled = false;  // Gavel's simulator's
  bool sia = false;      // Sia's simulator's
  double reset_interval_s = GavelRoundMechanism::kDefaultResetIntervalS;
  // Fill the types in a new random order every round (Gavel does for policies without "Perf"
  // in their name, scheduler.py:879-881), from Python's Random(seed + 5) (:325-326).
  bool shuffle_types = false;
  uint64_t seed = 0;
  // Gavel's FIFO policies: a job with priority 0 never runs (scheduler.py:829-832).
  bool skip_zero_priority = false;
  // Space sharing (option `pair_finish`, the packed policies): `micro_task` records both jobs of a
  // pair micro-task as finishing at its end, the later member's, as Gavel does (scheduler.py:1305-1313;
  // SchedBackend::HoldFinishUntil); `work` (false, the default) finishes each job when its work ends.
  bool finish_with_pair = false;
};

class RoundPolicy : public JobScheduler {
 public:
  // Gavel's default round length (scheduler.py: time_per_iteration = 360 s).
  static constexpr double kDefaultRoundS = 360;

  RoundPolicy(std::string name, double round_s, bool heterogeneity_blind)
      : name_(std::move(name)), round_s_(round_s), blind_(heterogeneity_blind) {}
  // A heterogeneity-blind policy sees T = 1 on every type a job can run on (Gavel's
  // max_min_fairness), or, with a reference type, the job's throughput there on every such type
  // (Gavel's min_total_duration and finish_time_fairness copy the job's "v100" throughput to every
  // type, min_total_duration.py:24-29, finish_time_fairness.py:27-34). [REC] Where the cluster
  // lacks the reference type, or the job cannot run there, its largest throughput.
  void SetBlindReference(std::string type_name) { blind_reference_ = std::move(type_name); }

  // A profiler's output (Gavel's throughputs.csv rows): T[j][k] is then the measured steps/s of
  // the job's type (looked up by JobSpec::name, as Gavel's profiler keys jobs by type) on its
  // num_gpus devices of type k, consolidated; the perf model where the table lacks it.
  void SetProfile(std::vector<GavelThroughputRow> rows, std::string origin) {
    profile_rows_ = std::move(rows);
    profile_origin_ = std::move(origin);
  }

  std::string_view name() const override { return name_; }
  double round_period_s() const override { return round_s_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override;
  void OnJobFinished(const JobStatus& job, SchedContext& ctx) override;
  void OnJobRequeued(const JobStatus& job, SchedContext& ctx) override;
  // Active like a submitted job; the rounds read its state (running on its type) from ctx.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { OnJobSubmitted(job, ctx); }
  void Schedule(SchedContext& ctx) override;

  // Space sharing (Gavel's packed policies; docs/space_sharing.md): every pair of active jobs with
  // the same GPU count is a combination the allocation may give time to (AllocationProblem::pairs),
  // each pair run as one micro-task on shared devices. Gavel's mechanism only.
  void SetPacking(bool packing) { packing_ = packing; }
  // The pairs' throughputs as a profiler measured them (Gavel's pair_throughputs.csv rows, by the
  // jobs' types as for SetProfile); pairs it lacks are 0 (Gavel has every pair of its job types).
  // Without, the visible model's co-location factors (SchedContext::CoLocationFactorOf, [REC]).
  void SetPairProfile(std::vector<GavelPairRow> rows, std::string origin) {
    pair_rows_ = std::move(rows);
    pair_origin_ = std::move(origin);
  }

  // Switches to Gavel's simulator's round mechanism (before the first event).
  void SetGavelMechanism(const GavelMechanismOptions& options) { gavel_options_ = options; }
  const GavelMechanismOptions& gavel_mechanism() const { return gavel_options_; }

  long long allocations_computed() const { return allocations_computed_; }
  long long lp_solves() const { return lp_solves_; }
  long long solve_failures() const { return solve_failures_; }

 protected:
  virtual Result<Allocation> ComputeAllocation(const AllocationProblem& problem) = 0;

 private:
  struct ActiveJob {
    std::vector<double> throughput;
    std::vector<double> share;
    std::vector<double> runnable;  // > 0 where the job can run (its visible speed there)
    double last_accounted_s = 0;
    // Gavel's mechanism: the job's combination there (its time, deficit and share; whether it was
    // present at the last reset).
    GavelRoundMechanism::Combo combo = GavelRoundMechanism::kNoCombo;
    // Gavel's mechanism: the micro-task the job runs this round (type index, -1: none) and when
    // it ends (dispatch + its whole steps / T, scheduler.py:1035).
    int micro_type = -1;
    double micro_end_s = 0;
    // Gavel's failed micro-tasks (scheduler.py:2960-3008): this round's failed, and how many
    // failed in a row (the job is dropped at MAX_FAILED_ATTEMPTS).
    bool micro_failed = false;
    int failures = 0;
    // Packing: the job's pairs with each active job of a lower id (that id, the pair's
    // combination), by that id; a forgotten pair keeps its place with kNoCombo until more than half
    // of the list is such (`forgotten_pairs`), then the list is compacted. Walked job by job in id
    // order, the pairs come in the order of Gavel's priority lists, (higher id, lower id) (a job's
    // pairs follow it, GavelRoundMechanism::PlanRound).
    std::vector<std::pair<JobId, GavelRoundMechanism::Combo>> lower_pairs;
    size_t forgotten_pairs = 0;
  };
  // A pair of active jobs (packing), at its combination's handle in pairs_: its jobs and its
  // micro-task; its rates are in pair_rates_ (PairRates).
  struct ActivePair {
    JobId low = -1, high = -1;  // -1: no pair at this handle
    int micro_type = -1;
    double micro_end_s = 0;
  };
  // A pair's rates by type while paired: member 0 the lower id's, 1 the higher id's.
  std::span<const double> PairRates(GavelRoundMechanism::Combo combo, int member) const {
    return {pair_rates_.data() + (2 * static_cast<size_t>(combo) + static_cast<size_t>(member)) * types_.size(),
            types_.size()};
  }
  // Whether pair `a` comes before pair `b` in Gavel's priority lists, (higher id, lower id).
  bool PairBefore(GavelRoundMechanism::Combo a, GavelRoundMechanism::Combo b) const {
    const ActivePair& x = pairs_[static_cast<size_t>(a)];
    const ActivePair& y = pairs_[static_cast<size_t>(b)];
    return x.high != y.high ? x.high < y.high : x.low < y.low;
  }
  void Init(SchedContext& ctx);
  // Packing: the pairs of the job that arrived with every active job of its GPU count.
  void AddPairs(JobId id, SchedContext& ctx);
  // Packing: the pair's two micro-tasks (whole steps each at its paired speed); returns when the
  // later ends, or -1 when the pair did not form.
  double DispatchPair(SchedContext& ctx, const GavelPlannedCombo& pair);
  int TypeIndex(DeviceTypeId type) const;
  // The allocation problem of the active jobs now: their throughputs, weights and the progress
  // each reports (never below 1% left: it is still active), and with packing every pair (in
  // `pairs`' storage, which it takes), its rates views into pair_rates_ (valid until a pair is
  // added), its combination in problem_pair_combos_.
  AllocationProblem ProblemNow(const SchedContext& ctx, std::vector<AllocationPair> pairs);
  void Resolve(SchedContext& ctx);
  // A job that ended (finished, or dropped by Gavel's mechanism) leaves the active set, the
  // mechanism's counters and the next allocation, with its pairs. Cost: O(active log active).
  void ForgetJob(JobId id);
  // Gavel's simulator's mechanism (gavel_round_gavel.cc).
  void ScheduleGavel(SchedContext& ctx);
  // One pass of simulate()'s loop body at the current time: charge the round that ends, reset
  // when due, plan and dispatch the next round.
  void GavelPass(SchedContext& ctx);
  // Charges and closes the micro-tasks of the round that ends now (GavelPass's first step).
  void EndMicroTasks(SchedContext& ctx);
  void StartRoundGavel(SchedContext& ctx, const std::vector<GavelPlannedCombo>& plan);
  // Gives each job running this round its micro-task (whole steps) and returns when the round
  // ends: the end of its longest micro-task, or -1 when none runs.
  double DispatchMicroTasks(SchedContext& ctx, const std::vector<GavelPlannedCombo>& plan);
  // Gavel's charge for a micro-task ending at `end_s` (scheduler.py:1307-1311).
  double MicroTaskCharge(double end_s) const { return end_s - busy_round_end_s_; }
  std::vector<int> GavelTypeOrder(const Cluster& cluster) const;
  // Sia's simulator's mechanism (round_sia.cc): one round every round_s_ while jobs are active.
  void ScheduleSia(SchedContext& ctx);
  // The types (indices into types_) in the order their first node comes in the cluster, and each
  // type's workers: its nodes' devices in cluster order (Sia's worker ids, gavel.py:80-104).
  void InitSia(const Cluster& cluster);
  // Sia's gavel.py selection: the (job, type) pairs by priority, each job at most once, each
  // within its type's free GPUs; (index into `jobs`, type index) in the order chosen.
  std::vector<std::pair<size_t, int>> SiaSelect(const SchedContext& ctx, const std::vector<JobId>& jobs) const;
  // Sia's worker assignment on type k: widest first, a job kept on its last round's workers where
  // none is taken, the others from a pointer over the servers. Adds each of the type's jobs to
  // `workers`.
  Status SiaAssignWorkers(const SchedContext& ctx, int k, const std::vector<JobId>& jobs,
                          const std::vector<std::pair<size_t, int>>& selected,
                          std::map<JobId, std::vector<int>>& workers) const;
  // Moves each job to its workers' nodes (sia_jobs_; MoveToNodeCounts).
  void SiaApply(SchedContext& ctx, const std::vector<JobId>& jobs);

  std::string name_;
  std::vector<GavelThroughputRow> profile_rows_;
  std::string profile_origin_;
  std::unique_ptr<MeasuredThroughputs> profile_;
  double round_s_;
  bool blind_;
  std::string blind_reference_;  // SetBlindReference; empty: T = 1
  bool initialised_ = false;
  std::vector<DeviceTypeId> types_;  // present in the cluster, catalog order
  std::vector<int> capacity_;
  std::vector<double> price_per_hour_;
  std::unique_ptr<RoundMechanism> mechanism_;
  GavelMechanismOptions gavel_options_;
  std::unique_ptr<GavelRoundMechanism> gavel_;
  std::unique_ptr<PythonRandom> type_shuffler_;
  std::vector<int> gavel_type_order_;
  bool placed_last_round_ = false;
  // Gavel's current_round_end_time: the end of the last round that ran micro-tasks (0 before
  // any). A micro-task is charged its end minus this (scheduler.py:1286-1290, :1307-1311).
  double busy_round_end_s_ = 0;
  bool micro_tasks_last_round_ = false;
  // Sia's mechanism: each job's time received per type (starting at half a round, gavel.py:107-117)
  // and its workers of the last round (type index, Sia's worker ids on that type); each
  // type's total (finished jobs' included: Sia never takes them out).
  struct SiaJob {
    std::vector<double> time_on_type;
    int type = -1;
    std::vector<int> workers;
  };
  std::unique_ptr<RoundGrid> sia_grid_;
  std::map<JobId, SiaJob> sia_jobs_;
  std::vector<double> sia_type_time_;
  std::vector<int> sia_type_order_;
  std::vector<std::vector<NodeId>> sia_worker_node_;  // per type index: the node of each of its workers
  bool arrived_since_round_ = false;
  std::map<JobId, ActiveJob> active_;  // ordered: deterministic problems and rounds
  // active_'s ids in its order, for the walks of every round (StartRoundGavel): a map's walk over
  // a thousand jobs, node by node, was 8% of an LP packed policy's run on the overloaded case.
  std::vector<JobId> active_ids_;
  bool packing_ = false;
  std::vector<GavelPairRow> pair_rows_;
  std::string pair_origin_;
  // Packing (Gavel's mechanism only): the pairs by their combinations' handles (dense slots of
  // GavelRoundMechanism, a single job's unused), and their rates: two rows of types_.size() per
  // handle (PairRates).
  std::vector<ActivePair> pairs_;
  std::vector<double> pair_rates_;
  // The pairs given a micro-task this round (DispatchPair), the only ones with micro_type >= 0.
  std::vector<GavelRoundMechanism::Combo> running_pairs_;
  // The last allocation's pairs with a share other than 0 (combination, share by type); every
  // other pair's is 0 (GavelRoundMechanism::BeginAllocation).
  std::vector<std::pair<GavelRoundMechanism::Combo, std::vector<double>>> pair_shares_;
  // The last problem's pairs' combinations, and its pair list's storage, kept for the next
  // (O(active^2) entries: not allocated and paged in again at every reset).
  std::vector<GavelRoundMechanism::Combo> problem_pair_combos_;
  std::vector<AllocationPair> problem_pairs_storage_;
  bool dirty_ = false;
  bool round_started_ = false;
  double next_round_s_ = 0;
  long long allocations_computed_ = 0;
  long long lp_solves_ = 0;
  long long solve_failures_ = 0;
};

// A round policy whose allocation is one solve function with its own warm-started LP solver.
class LpRoundPolicy final : public RoundPolicy {
 public:
  using SolveFn = std::function<Result<Allocation>(const AllocationProblem&, lp::WarmStartLpSolver&)>;
  LpRoundPolicy(std::string name, double round_s, bool heterogeneity_blind, SolveFn solve,
                lp::WarmStartMatch warm_start = lp::WarmStartMatch::kShape)
      : RoundPolicy(std::move(name), round_s, heterogeneity_blind), solve_(std::move(solve)), solver_(warm_start) {}

 protected:
  Result<Allocation> ComputeAllocation(const AllocationProblem& problem) override { return solve_(problem, solver_); }

 private:
  SolveFn solve_;
  lp::WarmStartLpSolver solver_;
};

// Builds an LpRoundPolicy after reading the options every Gavel policy takes (`round`, `profile`).
// The throughputs a policy's LP sees of one job on each type (AllocationJob::throughput): 0 where
// the model gives it no speed (`modelled`), else its speed there (`runnable`: the profile's or the
// model's); a blind policy sees 1 everywhere, or with `by_reference` its speed on type `reference`
// (-1: none in the cluster) and, where it has none there, its largest.
std::vector<double> SeenThroughputs(const std::vector<double>& runnable, const std::vector<double>& modelled, bool blind,
                                    int reference, bool by_reference);

// `blind_reference`: a blind policy's reference type (RoundPolicy::SetBlindReference).
Result<std::unique_ptr<JobScheduler>> MakeLpRoundPolicy(const Options& options, std::string name,
                                                        bool heterogeneity_blind, LpRoundPolicy::SolveFn solve,
                                                        lp::WarmStartMatch warm_start = lp::WarmStartMatch::kShape,
                                                        const std::string& blind_reference = "");

// A job's progress as it reports it: the iterations done at its last allocation change plus its
// current run at its reported rate; its total (at least 1); the whole steps left, as Gavel counts
// them; `residue`: less than half a step left though not done (the rounding of a progress summed
// over many runs; Gavel's steps are whole): its last micro-task, not a failure; `overrun`: every
// reported step done though the job is still active (its true work outlasts the steps it reports,
// which Gavel cannot see: its steps are its truth) [REC]: it runs whole rounds until it ends.
struct ReportedProgress {
  double done = 0, total = 0, left = 0;
  bool residue = false, overrun = false;

  // Whether a micro-task of `steps` whole steps on `num_gpus` GPUs fails (Gavel's rule: a worker
  // with 0 steps fails it, scheduler.py:2960-2962); a residue or an overrun is a last micro-task.
  bool Fails(double steps, int num_gpus) const { return steps < num_gpus && !residue && !overrun; }
  // How long a micro-task of `steps` at `speed` steps/s lasts: the residue's fraction of a step, an
  // overrun's whole round.
  double RunS(double steps, double speed, double round_s) const {
    if (overrun) return round_s;
    return (residue ? total - done : steps) / speed;
  }
};
ReportedProgress ReportedProgressOf(const JobStatus& st, double now);

// Reads the option `round` (seconds, > 0; default 360) shared by every Gavel policy.
Result<double> RoundOption(const Options& options);
// Reads the option `point` (vertex | centre | cvxopt; default vertex): which optimal allocation an
// LP policy keeps where the optimum is not unique: the simplex's vertex, the central path's end,
// or the point cvxopt's interior-point solver returns (gavel_centre.h, gavel_cvxopt.h).
Result<SharePoint> PointOption(const Options& options);
// Reads the option `warm_start` (same-shape | by-job; default `default_match`) of the policies whose
// LPs name their variables by job (gavel-makespan, gavel-ftf): how a re-solve starts from the
// previous optimal basis (lp::WarmStartMatch). by-job starts warm after jobs arrive or leave too:
// far fewer simplex iterations. Where the optimum is not unique the start decides which optimal
// vertex comes back, unless the tie-break (TieBreakOption) fixes it.
Result<lp::WarmStartMatch> WarmStartOption(const Options& options, const std::string& default_match);
// Reads the option `columns` (all | priced; default `default_columns`) of the LP packed policies:
// which pair columns their LPs pose (PairColumns).
Result<PairColumns> PairColumnsOption(const Options& options, PairColumns default_columns);
// Reads the option `tie_break` (ranked | none; default ranked) of gavel-makespan and gavel-ftf
// (TieBreak, gavel_allocation.h).
Result<TieBreak> TieBreakOption(const Options& options);
// Reads the option `profile` (a Gavel throughputs CSV path; default none) into `policy`.
Status ProfileOption(const Options& options, RoundPolicy& policy);
// Reads the option `pair_profile` (a Gavel pair_throughputs CSV path; default none) into `policy`
// (RoundPolicy::SetPairProfile).
Status PairProfileOption(const Options& options, RoundPolicy& policy);
// Reads the option `pair_finish` (work | micro_task; default work) of a policy that runs pairs into
// `mechanism` (GavelMechanismOptions::finish_with_pair).
Status PairFinishOption(const Options& options, GavelMechanismOptions& mechanism);
// Reads the options `mechanism` (hetsched | gavel; default `default_mechanism`), `reset_interval`
// (seconds, Gavel's mechanism only; default 1920) and `seed`.
Result<GavelMechanismOptions> MechanismOption(const Options& options, const std::string& default_mechanism);

}  // namespace hetsched::gavel
