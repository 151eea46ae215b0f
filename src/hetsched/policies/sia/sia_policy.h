// Internal to policies/sia/: the policy class behind `sia` and `sia-plus`. sia.cc: what Sia is,
// the round loop, each job's row of the program, the options and the registrations; sia_apply.cc:
// a round's choice turned into placements, restarts, elastic resizes, hand-overs and sia-plus's
// loans of idle GPUs.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsched/policies/pollux/common.h"
#include "hetsched/policies/sia/sia_problem.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"

namespace hetsched::sia_internal {

struct SiaPolicySettings {
  double round_s = 60;
  double restart_penalty_s = -1;  // < 0: Sia's per-application table
  bool keep_placements = true;    // a job whose configuration stays keeps its nodes; false: all re-packed each round
  bool batch_from_job = true;     // GoodputRowSettings
  bool project = true;
  sia_internal::SiaSettings solve;
  // sia-plus's parts [REC] (all off: Sia):
  bool resize_elastic = false;  // a change inside the job's own group resizes it (SchedContext::ResizeOn)
  bool priced_moves = false;    // PricedFactor with the change's own price, no young job exempt
  bool prior_start = false;     // PriorOptions before a job has measured itself
  bool hand_over = false;       // a move off its nodes hands the job over (SchedContext::HandOver)
  bool split = false;           // running jobs borrow idle GPUs of a second type (split_jobs.h)
  double split_per_own = 1;     // at most this many borrowed GPUs per GPU of its own
  double split_min_left_rounds = 10;  // only a job with at least this many rounds left borrows
  double split_gain = 0.1;      // only where the job predicts this much more goodput split than alone
  bool history = false;         // jobs start from their application's history (shares_application_history)
  double remaining_k = 0;       // WeighByRemaining's exponent: the jobs with the least time left weigh more
  std::string name = "sia";
};

class SiaPolicy final : public JobScheduler {
 public:
  explicit SiaPolicy(const SiaPolicySettings& s) : s_(s), grid_(s.round_s) {}

  std::string_view name() const override { return s_.name; }
  double round_period_s() const override { return s_.round_s; }
  bool adapts_batch_sizes() const override { return true; }
  bool shares_application_history() const override { return s_.history; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    active_.erase(std::remove(active_.begin(), active_.end(), id), active_.end());
    previous_.erase(id);
    nodes_of_.erase(id);
    split_lost_.erase(id);
  }
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }
  void OnJobRunning(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }

  void Schedule(SchedContext& ctx) override;

 private:
  void Add(JobId id) {
    if (std::find(active_.begin(), active_.end(), id) == active_.end()) active_.push_back(id);
  }

  // The job's row of the round's program (its options, their factors, what it ran last); false on
  // a fault, kept in the context.
  bool Describe(SchedContext& ctx, JobId id, SiaJobRow* row);

  // What a change of the job inside its type costs it at the back end's price: a shrink by one GPU,
  // or a growth by one free GPU of its nodes' type; infinity where the back end cannot resize it.
  static double ElasticPauseS(SchedContext& ctx, JobId id);

  // What a hand-over costs the job: to as many devices on nodes it does not use (the joint ring
  // crosses nodes wherever it goes); infinity where the back end cannot, or no such devices exist.
  static double HandOverProbeS(SchedContext& ctx, JobId id);

  // Each job's GPUs as node lists (one node per GPU), then the moves: jobs whose list changed are
  // stopped (or, resizing elastically, resized; or, moving off its nodes, handed over) and started
  // on theirs.
  void Apply(SchedContext& ctx, const std::vector<SiaJobRow>& rows, const std::vector<int>& choice,
             const std::vector<int>& node_gpus);

  // sia-plus's split jobs (split_jobs.h): a job that stays this round gives back the GPUs of its
  // second type that the round's `lists` need, or that its split did not pay for (SplitLost: it
  // borrows no more), in an elastic shrink onto its own; `node_gpus` as Schedule counted them.
  // False on a back-end fault.
  bool GiveBack(SchedContext& ctx, const std::vector<std::vector<NodeId>>& lists, const std::vector<int>& node_gpus,
                const std::vector<bool>& stays);

  // After GiveBack, the jobs that stay on one type, with the longest time left first, borrow idle GPUs of
  // another: adaptive elastic goodput jobs with a model, past their delay, with at least
  // split_min_left_rounds rounds left (a loan costs a re-rendezvous to take and one to give back),
  // whose own prediction (PredictLoan) gains at least split_gain on those GPUs, and whose split
  // has not failed them before.
  void Lend(SchedContext& ctx, const std::vector<bool>& stays);

  // A node list (one node per GPU) as (node, GPUs) runs.
  static std::vector<std::pair<NodeId, int>> Want(const std::vector<NodeId>& list);

  // Whether `list` uses none of the nodes the job runs on (a hand-over takes only free devices).
  static bool OffItsNodes(const SchedContext& ctx, JobId id, const std::vector<NodeId>& list);

  // sia-plus: the running jobs whose new configuration is in the group they run in change there
  // elastically where ResizeWithin finds GPUs (shrinks first, then growths by most GPUs); the
  // others are placed afresh.
  // Returns the jobs resized, in that order.
  std::vector<size_t> PlanResizes(SchedContext& ctx, const std::vector<SiaJobRow>& rows, const std::vector<int>& choice,
                                  const std::vector<bool>& kept, std::vector<int>* room,
                                  std::vector<std::vector<NodeId>>* lists, std::vector<bool>* resized);

  // The devices of an elastic change to `list` (one node per GPU): on each node, the job's own
  // devices first, then free ones; empty where a node lacks free devices (the Slurm agent frees a
  // preempted job's later).
  static std::vector<DeviceId> ResizedDevices(const SchedContext& ctx, JobId id, const std::vector<NodeId>& list);


  struct Chosen {
    int group = 0, gpus = 0;
  };

  SiaPolicySettings s_;
  pollux_internal::RoundGrid grid_;
  std::vector<NodeGroup> groups_;
  std::vector<SiaConfig> configs_;
  std::vector<int> node_group_;            // each node's group
  std::vector<int> index_in_group_;        // each node's index in its group's node list
  std::vector<JobId> active_;              // submitted, not finished, in arrival order
  std::map<JobId, Chosen> previous_;       // each job's option last round
  std::map<JobId, std::vector<NodeId>> nodes_of_;  // the placer's node list it was started on
  std::set<JobId> split_lost_;             // split jobs whose split did not pay (SplitLost): no more loans
};

}  // namespace hetsched::sia_internal
