// RoundPolicy under Sia's simulator's mechanism (option mechanism=sia; `--compat sia`): the
// `gavel` baseline of Sia's simulator, its own re-implementation of Gavel's rounds [SRC:
// siasosp23/artifacts @ aaf7a0d, sia-simulator/gavel.py (no licence: behaviour reproduced, nothing
// copied); file:line below are of that folder]:
//  - the policy runs after each `round`-second step (360 s, run_experiment.sh), the first at one
//    round, while jobs are active (cluster.py:117-134, 340-352);
//  - a job new to the policy has received half a round on every type, and each type's total grows
//    by as much (gavel.py:107-117); a job placed on a type for a round receives a whole round there
//    (:460-465); the totals are never reset and keep the time of jobs that ended;
//  - the allocation X (here the policy's LP) is rounded to 5 decimals and clipped to [0, 1]
//    (policies/max_sum_throughput.py:90); a job's priority on type k is X[j][k] over its share of
//    the type's time received, 0 where X is 0 (:238-262);
//  - the (job, type) pairs, types in the cluster's order and jobs in arrival order within each,
//    sorted by priority then X, highest first and stably (:264-284); each job runs on the first of
//    its pairs whose type still has as many GPUs free as it asks for, however low its priority
//    (:286-306);
//  - on each type the jobs get workers (GPU slots, the type's servers in order) widest first: at
//    each width a job that ran on that type last round keeps its workers where none is taken yet,
//    then the others take the next free workers from a pointer that only moves forward over the
//    servers (:308-332, :360-413), so a job may straddle two servers;
//  - a job whose nodes stay the same keeps running; one whose nodes change is moved, which costs
//    its re-allocation delay unless its GPUs per node stay the same (`--goodput-free-moves`,
//    cluster.py:185-216, job.py:524-552).
// What the policy reads of a goodput job is its application's measured throughput at the user's
// batch, times its calibration (GoodputTunedRate in policy.cc: gavel.py:510-546).
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/policies/gavel/policy.h"
#include "hetsched/sched/node_counts.h"

namespace hetsched::gavel {

namespace {

// A job's workers as (node, GPUs there) in worker order.
NodeCounts NodesOf(const std::vector<int>& workers, const std::vector<NodeId>& worker_node) {
  NodeCounts out;
  for (int w : workers) {
    const NodeId n = worker_node[static_cast<size_t>(w)];
    if (out.empty() || out.back().first != n) out.emplace_back(n, 0);
    ++out.back().second;
  }
  return out;
}

}  // namespace

void RoundPolicy::InitSia(const Cluster& cluster) {
  sia_grid_ = std::make_unique<RoundGrid>(round_s_);
  sia_type_time_.assign(types_.size(), 0.0);
  sia_worker_node_.assign(types_.size(), {});
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    const int k = TypeIndex(cluster.node(n).device_type);
    if (k < 0) continue;
    if (sia_worker_node_[static_cast<size_t>(k)].empty()) sia_type_order_.push_back(k);
    sia_worker_node_[static_cast<size_t>(k)].insert(sia_worker_node_[static_cast<size_t>(k)].end(),
                                                     static_cast<size_t>(cluster.node(n).num_devices), n);
  }
}

std::vector<std::pair<size_t, int>> RoundPolicy::SiaSelect(const SchedContext& ctx,
                                                           const std::vector<JobId>& jobs) const {
  struct Entry {
    size_t job;
    int type;
    double priority, share;
  };
  std::vector<Entry> entries;
  entries.reserve(jobs.size() * sia_type_order_.size());
  for (int k : sia_type_order_) {
    const size_t kk = static_cast<size_t>(k);
    for (size_t i = 0; i < jobs.size(); ++i) {
      const ActiveJob& a = active_.at(jobs[i]);
      if (!(a.runnable[kk] > 0)) continue;  // a type it cannot run on (Sia's jobs run on all)
      const double share = a.share.empty() ? 0.0 : a.share[kk];
      const double fraction = sia_type_time_[kk] > 0 ? sia_jobs_.at(jobs[i]).time_on_type[kk] / sia_type_time_[kk] : 0.0;
      const double priority = share <= 0 ? 0.0 : fraction > 0 ? share / fraction : share * 1e9;
      entries.push_back(Entry{i, k, priority, share});
    }
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.share > b.share;
  });
  std::vector<int> left = capacity_;
  std::vector<bool> chosen(jobs.size(), false);
  std::vector<std::pair<size_t, int>> selected;
  for (const Entry& e : entries) {
    int& free = left[static_cast<size_t>(e.type)];
    const int need = ctx.job(jobs[e.job]).spec->num_gpus;
    if (free == 0 || chosen[e.job] || need > free) continue;
    free -= need;
    chosen[e.job] = true;
    selected.emplace_back(e.job, e.type);
  }
  return selected;
}

Status RoundPolicy::SiaAssignWorkers(const SchedContext& ctx, int k, const std::vector<JobId>& jobs,
                                     const std::vector<std::pair<size_t, int>>& selected,
                                     std::map<JobId, std::vector<int>>& workers) const {
  const std::vector<NodeId>& worker_node = sia_worker_node_[static_cast<size_t>(k)];
  // The type's servers: each a run of workers on one node, consumed from the front.
  std::vector<std::vector<int>> servers;
  for (size_t w = 0; w < worker_node.size(); ++w) {
    if (w == 0 || worker_node[w] != worker_node[w - 1]) servers.emplace_back();
    servers.back().push_back(static_cast<int>(w));
  }
  std::vector<size_t> head(servers.size(), 0);
  std::vector<bool> taken(worker_node.size(), false);
  size_t server = 0;
  // This type's jobs in selection order, then widest first (stable).
  std::vector<std::pair<JobId, int>> on_type;
  for (const auto& [i, type] : selected) {
    if (type == k) on_type.emplace_back(jobs[i], ctx.job(jobs[i]).spec->num_gpus);
  }
  std::stable_sort(on_type.begin(), on_type.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (size_t g = 0; g < on_type.size();) {
    size_t end = g;
    while (end < on_type.size() && on_type[end].second == on_type[g].second) ++end;
    for (size_t j = g; j < end; ++j) {  // kept where none of its workers is taken yet
      const SiaJob& was = sia_jobs_.at(on_type[j].first);
      if (was.type != k || was.workers.empty()) continue;
      if (std::any_of(was.workers.begin(), was.workers.end(), [&](int w) { return taken[static_cast<size_t>(w)]; })) {
        continue;
      }
      for (int w : was.workers) taken[static_cast<size_t>(w)] = true;
      workers[on_type[j].first] = was.workers;
    }
    for (size_t j = g; j < end; ++j) {  // the others from the pointer on
      const auto [id, need] = on_type[j];
      if (workers.contains(id)) continue;
      std::vector<int> got;
      while (static_cast<int>(got.size()) < need && server < servers.size()) {
        if (head[server] == servers[server].size()) {
          ++server;
          continue;
        }
        const int w = servers[server][head[server]++];
        if (!taken[static_cast<size_t>(w)]) {
          taken[static_cast<size_t>(w)] = true;
          got.push_back(w);
        }
      }
      if (static_cast<int>(got.size()) != need) {
        return Status::Internal(std::string(name()) + ": Sia's worker assignment found no " + std::to_string(need) +
                                " GPU(s) for job " + std::to_string(id) + " on a type it was selected for");
      }
      workers[id] = std::move(got);
    }
    g = end;
  }
  return Status::Ok();
}

void RoundPolicy::SiaApply(SchedContext& ctx, const std::vector<JobId>& jobs) {
  std::vector<std::pair<JobId, NodeCounts>> plan;
  plan.reserve(jobs.size());
  for (JobId id : jobs) {
    const SiaJob& sj = sia_jobs_.at(id);
    plan.emplace_back(id, sj.type < 0 ? NodeCounts{} : NodesOf(sj.workers, sia_worker_node_[static_cast<size_t>(sj.type)]));
  }
  MoveToNodeCounts(ctx, plan);
}

void RoundPolicy::ScheduleSia(SchedContext& ctx) {
  if (!sia_grid_->Due(ctx, !active_.empty()) || active_.empty()) return;
  std::vector<JobId> jobs;
  jobs.reserve(active_.size());
  for (const auto& [id, a] : active_) {
    jobs.push_back(id);
    auto [it, added] = sia_jobs_.try_emplace(id);
    if (!added) continue;
    it->second.time_on_type.assign(types_.size(), round_s_ / 2);
    for (double& t : sia_type_time_) t += round_s_ / 2;
  }
  if (dirty_) Resolve(ctx);
  const std::vector<std::pair<size_t, int>> selected = SiaSelect(ctx, jobs);
  std::map<JobId, std::vector<int>> workers;
  for (int k : sia_type_order_) {
    if (Status s = SiaAssignWorkers(ctx, k, jobs, selected, workers); !s.ok()) {
      ctx.Fail(s);
      return;
    }
  }
  for (JobId id : jobs) {
    SiaJob& sj = sia_jobs_.at(id);
    sj.type = -1;
    sj.workers.clear();
  }
  for (const auto& [i, k] : selected) {
    SiaJob& sj = sia_jobs_.at(jobs[i]);
    sj.type = k;
    sj.workers = std::move(workers.at(jobs[i]));
    sj.time_on_type[static_cast<size_t>(k)] += round_s_;
    sia_type_time_[static_cast<size_t>(k)] += round_s_;
  }
  SiaApply(ctx, jobs);
  sia_grid_->Next(ctx, true);
}

}  // namespace hetsched::gavel
