// The reward recorder (reward_recorder.h): decisions and rewards into an RlptoTrajectory.
#include "hetsched/policies/rlpto/reward_recorder.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace hetsched::rlpto_internal {
namespace {

class RewardRecorder final : public RlptoObserver {
 public:
  RewardRecorder(RlptoTrajectory* trajectory, const RlptoRewardConfig& reward,
                 const ConvergenceModel& convergence, int state_dim, bool teacher_yields)
      : t_(*trajectory),
        w_(reward),
        convergence_(convergence),
        dim_(state_dim),
        teacher_yields_(teacher_yields) {}

  void OnAdmitted(JobId id, const RlptoJob& job, double now) override;
  void OnFinished(JobId id, const RlptoJob& job, SchedContext& ctx) override;
  void OnCall(SchedContext& ctx, const std::map<JobId, RlptoJob>& jobs) override;
  void OnDecided(std::span<const JobId> jobs, const RlptoDecisionState& state,
                 const RlptoDecisions& decisions, double now) override;

 private:
  // What the recorder keeps of each job in the system.
  struct Account {
    double accuracy = 0;         // accuracy credited so far
    double accounted_s = -1;     // the job's reward is accounted up to this time
    int64_t last_decision = -1;  // index of the last decision about it (-1: none)
  };
  // One job of the scheduler's book with its account.
  struct Entry {
    JobId id;
    const RlptoJob* job;
    Account* account;
  };
  // What the jobs in the system lose over the interval, to be shared (docs/rlpto.md, "Per-job
  // credit"): the waiting jobs' time, the GPUs held, and per type (with type_share) the time lost
  // by the jobs displaced from it and the GPUs held on it.
  struct Costs {
    double waiting = 0, held = 0;
    std::map<DeviceTypeId, std::pair<double, double>> type;  // type -> (displaced_cost, held_of_type)
  };

  std::vector<Entry> Entries(const std::map<JobId, RlptoJob>& jobs);
  // A job's weighted time since it was last accounted, in reward units.
  double TimeCost(const Entry& e, double now) const {
    return w_.w_time * e.job->omega * (now - e.account->accounted_s) / w_.t_ref_s;
  }
  // The share of a running job's time lost by not being on its fastest type, when that type could
  // hold it but has no room now (0: not displaced).
  static double Displaced(SchedContext& ctx, const Entry& e);
  Costs CollectCosts(SchedContext& ctx, const std::vector<Entry>& entries, double now) const;
  // Credits each job its own share of the interval and adds the accuracy gained to `r`.
  void CreditShares(SchedContext& ctx, const std::vector<Entry>& entries, const Costs& costs, double now,
                    double& r);
  // Adds `r` to the reward of the last decision about the job (none yet: not credited).
  void CreditJob(const Account& account, double r) {
    if (account.last_decision >= 0) t_.job_reward[static_cast<size_t>(account.last_decision)] += r;
  }

  RlptoTrajectory& t_;
  RlptoRewardConfig w_;
  ConvergenceModel convergence_;
  int dim_;
  bool teacher_yields_;
  std::map<JobId, Account> accounts_;
  double omega_in_system_ = 0;
  double pending_reward_ = 0;
  double last_reward_s_ = 0;
  std::vector<float> states_;  // a narrower agent's view
};

void RewardRecorder::OnAdmitted(JobId id, const RlptoJob& job, double now) {
  Account& account = accounts_[id];
  if (account.accounted_s < 0) account.accounted_s = now;
  omega_in_system_ += job.omega;
}

void RewardRecorder::OnFinished(JobId id, const RlptoJob& job, SchedContext& ctx) {
  Account& account = accounts_[id];
  omega_in_system_ -= job.omega;
  pending_reward_ += w_.w_done * job.omega;
  pending_reward_ += w_.w_acc * job.omega * (1 - account.accuracy);
  // The job's own reward to its end: its weight's time and its GPUs since it was last accounted,
  // its accuracy still to come, the completion bonus.
  const double dt = ctx.now() - account.accounted_s;
  const double total = std::max(1, ctx.cluster().num_devices());
  CreditJob(account, -w_.w_time * job.omega * dt / w_.t_ref_s -
                         w_.w_res * job.gpus * dt / (total * w_.t_ref_s) +
                         w_.w_acc * job.omega * (1 - account.accuracy) + w_.w_done * job.omega);
  accounts_.erase(id);
}

void RewardRecorder::OnDecided(std::span<const JobId> jobs, const RlptoDecisionState& state,
                               const RlptoDecisions& decisions, double now) {
  if (dim_ == state.dim) {
    t_.states.insert(t_.states.end(), state.features.begin(), state.features.end());
  } else {
    states_.clear();
    NarrowRows(state.features, state.dim, dim_, states_);
    t_.states.insert(t_.states.end(), states_.begin(), states_.end());
  }
  t_.actions.insert(t_.actions.end(), decisions.chosen.begin(), decisions.chosen.end());
  for (size_t i = 0; i < jobs.size(); ++i)
    t_.teacher_actions.push_back(RlptoHeuristicAction(state.Row(i), teacher_yields_));
  t_.decision_time_s.insert(t_.decision_time_s.end(), jobs.size(), now);
  for (JobId id : jobs) {  // each decision starts the job's next reward interval
    const auto k = static_cast<int64_t>(t_.job.size());
    Account& account = accounts_[id];
    if (account.last_decision >= 0) t_.next_decision[static_cast<size_t>(account.last_decision)] = k;
    account.last_decision = k;
    t_.job.push_back(id);
    t_.job_reward.push_back(0);
    t_.next_decision.push_back(-1);
  }
}

std::vector<RewardRecorder::Entry> RewardRecorder::Entries(const std::map<JobId, RlptoJob>& jobs) {
  std::vector<Entry> out;
  out.reserve(jobs.size());
  for (const auto& [id, job] : jobs) out.push_back({id, &job, &accounts_[id]});
  return out;
}

double RewardRecorder::Displaced(SchedContext& ctx, const Entry& e) {
  const RlptoJob& info = *e.job;
  const DeviceTypeId on = ctx.job(e.id).device_type, fastest = info.type[0];
  if (on == fastest || ctx.state().free_of_type(fastest) >= info.gpus ||
      ctx.cluster().devices_per_type()[static_cast<size_t>(fastest)] < info.gpus) {
    return 0.0;
  }
  return 1 - SpeedOf(info, on);
}

void RewardRecorder::OnCall(SchedContext& ctx, const std::map<JobId, RlptoJob>& jobs) {
  const double now = ctx.now();
  const double dt = now - last_reward_s_;
  last_reward_s_ = now;
  const double total = std::max(1, ctx.cluster().num_devices());
  const double busy = total - ctx.state().total_free();
  double r = pending_reward_;
  pending_reward_ = 0;
  r -= w_.w_time * omega_in_system_ * dt / w_.t_ref_s;
  r -= w_.w_res * busy * dt / (total * w_.t_ref_s);
  const std::vector<Entry> entries = Entries(jobs);  // training only: O(jobs in the system)
  CreditShares(ctx, entries, CollectCosts(ctx, entries, now), now, r);
  if (dt > 0 || r != 0) t_.rewards.push_back({now, r});
}

RewardRecorder::Costs RewardRecorder::CollectCosts(SchedContext& ctx, const std::vector<Entry>& entries,
                                                   double now) const {
  Costs costs;
  for (const Entry& e : entries) {
    const RlptoJob& info = *e.job;
    if (!info.running) {
      costs.waiting += TimeCost(e, now);
      continue;
    }
    costs.held += info.gpus;
    if (w_.type_share > 0 && info.slots > 0) {
      costs.type[ctx.job(e.id).device_type].second += info.gpus;
      const double lost = Displaced(ctx, e);
      if (lost > 0) costs.type[info.type[0]].first += TimeCost(e, now) * lost;
    }
  }
  return costs;
}

void RewardRecorder::CreditShares(SchedContext& ctx, const std::vector<Entry>& entries, const Costs& costs,
                                  double now, double& r) {
  // Each job's own share: its GPUs and its accuracy gained; a running job pays its weight's time,
  // a waiting job (1 - congestion_share) of it, and the rest of the waiting jobs' time is charged
  // to the running jobs by GPUs held: the jobs holding the GPUs are what the waiting ones wait
  // for. The shares add up to the cluster's reward (except before a job's first decision, which
  // nothing is credited with). With type_share > 0, a running job off its fastest type, which has
  // no room for it, is displaced: type_share of its lost time (its time term x (1 - its relative
  // speed)) is charged to the jobs holding that type, by GPUs held there.
  const double total = std::max(1, ctx.cluster().num_devices());
  const double share = costs.held > 0 ? w_.congestion_share : 0.0;
  for (const Entry& e : entries) {
    const RlptoJob& info = *e.job;
    Account& account = *e.account;
    const double job_dt = now - account.accounted_s;
    double own = -TimeCost(e, now);
    account.accounted_s = now;
    if (!info.running) {
      CreditJob(account, (1 - share) * own);
      continue;
    }
    if (w_.type_share > 0 && info.slots > 0) {
      // Its lost time moves to the holders of its fastest type (when it is displaced and that
      // type has holders), and it pays its share of what the jobs it holds GPUs from lose.
      const double lost = Displaced(ctx, e);
      const auto it = costs.type.find(info.type[0]);
      if (lost > 0 && it != costs.type.end() && it->second.second > 0) own -= w_.type_share * own * lost;
      const auto mine = costs.type.find(ctx.job(e.id).device_type);
      if (mine != costs.type.end() && mine->second.second > 0)
        own -= w_.type_share * mine->second.first * info.gpus / mine->second.second;
    }
    own -= w_.w_res * info.gpus * job_dt / (total * w_.t_ref_s);
    if (share > 0) own -= share * costs.waiting * info.gpus / costs.held;
    const double acc = convergence_.Accuracy(Fraction(ctx.job(e.id), now));
    r += w_.w_acc * info.omega * (acc - account.accuracy);
    own += w_.w_acc * info.omega * (acc - account.accuracy);
    account.accuracy = acc;
    CreditJob(account, own);
  }
}

}  // namespace

std::unique_ptr<RlptoObserver> MakeRlptoRewardRecorder(RlptoTrajectory* trajectory,
                                                       const RlptoRewardConfig& reward,
                                                       const ConvergenceModel& convergence, int state_dim,
                                                       bool teacher_yields) {
  return std::make_unique<RewardRecorder>(trajectory, reward, convergence, state_dim, teacher_yields);
}

}  // namespace hetsched::rlpto_internal
