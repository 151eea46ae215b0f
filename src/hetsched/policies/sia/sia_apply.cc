// The Sia policy's moves (sia_policy.h): a round's choice of configurations turned into node lists
// by Sia's fast placer around the jobs that keep theirs, then stops, starts, elastic resizes and
// hand-overs; and sia-plus's loans of idle GPUs of a second type (split_jobs.h) given and taken back.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "hetsched/policies/sia/sia_policy.h"
#include "hetsched/policies/sia/split_jobs.h"

namespace hetsched::sia_internal {

void SiaPolicy::Apply(SchedContext& ctx, const std::vector<SiaJobRow>& rows, const std::vector<int>& choice,
                      const std::vector<int>& node_gpus) {
  const size_t num_jobs = active_.size();
  std::vector<std::vector<NodeId>> lists(num_jobs);
  std::vector<int> room = node_gpus;
  std::vector<bool> kept(num_jobs, false), resized(num_jobs, false);
  auto running = [&](size_t j) { return ctx.job(active_[j]).state == JobState::kRunning; };
  if (s_.keep_placements) {
    for (size_t j = 0; j < num_jobs; ++j) {
      auto it = nodes_of_.find(active_[j]);
      if (choice[j] < 0 || choice[j] != rows[j].previous || it == nodes_of_.end() || !running(j)) continue;
      kept[j] = true;
      lists[j] = it->second;
      for (NodeId n : lists[j]) --room[static_cast<size_t>(n)];
    }
  }
  std::vector<size_t> resize_order;  // shrinks, then growths
  if (s_.resize_elastic) resize_order = PlanResizes(ctx, rows, choice, kept, &room, &lists, &resized);
  for (size_t g = 0; g < groups_.size(); ++g) {
    std::vector<size_t> members;
    std::vector<int> gpus;
    for (size_t j = 0; j < num_jobs; ++j) {
      if (choice[j] < 0 || kept[j] || resized[j]) continue;
      const SiaOption& opt = rows[j].options[static_cast<size_t>(choice[j])];
      if (opt.group != static_cast<int>(g)) continue;
      members.push_back(j);
      gpus.push_back(opt.gpus);
    }
    if (members.empty()) continue;
    std::vector<int> free;
    for (NodeId n : groups_[g].nodes) free.push_back(room[static_cast<size_t>(n)]);
    const std::vector<std::vector<int>> placed = sia_internal::PlaceFast(gpus, std::move(free));
    for (size_t k = 0; k < members.size(); ++k) {
      for (int local : placed[k]) lists[members[k]].push_back(groups_[g].nodes[static_cast<size_t>(local)]);
    }
  }
  // Split jobs that stay give back what the lists place others on, before anything starts there.
  std::vector<bool> stays(num_jobs, false);
  for (size_t j = 0; j < num_jobs; ++j) {
    auto it = nodes_of_.find(active_[j]);
    stays[j] = running(j) && (kept[j] || (!resized[j] && it != nodes_of_.end() && it->second == lists[j]));
  }
  if (s_.split && !GiveBack(ctx, lists, node_gpus, stays)) return;
  std::vector<size_t> to_start, hand_overs;
  std::vector<bool> to_resize(num_jobs, false);
  for (size_t j = 0; j < num_jobs; ++j) {
    const JobId id = active_[j];
    if (choice[j] >= 0) {
      const SiaOption& opt = rows[j].options[static_cast<size_t>(choice[j])];
      previous_[id] = Chosen{opt.group, opt.gpus};
    } else {
      previous_.erase(id);
    }
    auto it = nodes_of_.find(id);
    if (running(j) && it != nodes_of_.end() && it->second == lists[j]) continue;
    nodes_of_[id] = lists[j];
    if (resized[j]) {
      to_resize[j] = true;
      continue;
    }
    if (running(j) && rows[j].hand_over && !lists[j].empty() && OffItsNodes(ctx, id, lists[j])) {
      hand_overs.push_back(j);
      continue;
    }
    if (running(j)) ctx.Preempt(id);
    if (!lists[j].empty()) to_start.push_back(j);
  }
  // Shrinks before growths (PlanResizes' order), each onto its own devices and free ones; a
  // resize the back end refuses becomes a restart on the same nodes.
  for (size_t j : resize_order) {
    if (!to_resize[j]) continue;
    const JobId id = active_[j];
    const std::vector<DeviceId> devices = ResizedDevices(ctx, id, lists[j]);
    if (!devices.empty() && ctx.ResizeOn(id, devices)) continue;
    if (ctx.failed()) return;
    ctx.Preempt(id);
    to_start.push_back(j);
  }
  // Hand-overs, once their new devices are free: a job waits for others to leave them; where
  // none can move (a cycle), the first restarts.
  while (!hand_overs.empty()) {
    std::vector<size_t> waiting;
    for (size_t j : hand_overs) {
      const std::vector<DeviceId> devices = FreeDevicesFor(ctx, Want(lists[j]));
      if (!devices.empty() && ctx.HandOver(active_[j], devices)) continue;
      if (ctx.failed()) return;
      waiting.push_back(j);
    }
    if (waiting.size() == hand_overs.size()) {
      ctx.Preempt(active_[waiting.front()]);
      to_start.push_back(waiting.front());
      waiting.erase(waiting.begin());
    }
    hand_overs = std::move(waiting);
  }
  // A job whose GPUs are not all free yet (the Slurm agent) waits for the next round.
  for (size_t j : to_start) {
    const std::vector<DeviceId> devices = FreeDevicesFor(ctx, Want(lists[j]));
    if (devices.empty()) {
      nodes_of_.erase(active_[j]);
      continue;
    }
    ctx.StartOn(active_[j], devices);
    if (ctx.failed()) return;
  }
  if (s_.split) Lend(ctx, stays);
}

bool SiaPolicy::GiveBack(SchedContext& ctx, const std::vector<std::vector<NodeId>>& lists,
                         const std::vector<int>& node_gpus, const std::vector<bool>& stays) {
  std::vector<int> left = node_gpus;
  for (const std::vector<NodeId>& list : lists) {
    for (NodeId n : list) --left[static_cast<size_t>(n)];
  }
  for (size_t j = 0; j < active_.size(); ++j) {
    const std::vector<DeviceId>& devices = ctx.job(active_[j]).devices;
    if (!stays[j]) continue;
    const std::vector<DeviceId> own = sia_internal::FirstTypeDevices(ctx.cluster(), devices);
    if (own.size() == devices.size()) continue;
    bool give_back = sia_internal::MustGiveBack(ctx.cluster(), devices, &left);
    if (!give_back) {
      std::optional<GoodputJobView> view = ctx.goodput_job(active_[j], /*with_model=*/true);
      if (ctx.failed()) return false;
      if (view && sia_internal::SplitLost(ctx.cluster(), *view, devices)) {
        give_back = true;
        split_lost_.insert(active_[j]);
      }
    }
    if (give_back && !ctx.ResizeOn(active_[j], own) && ctx.failed()) return false;
  }
  return true;
}

void SiaPolicy::Lend(SchedContext& ctx, const std::vector<bool>& stays) {
  const Cluster& cluster = ctx.cluster();
  struct Candidate {
    double left_s;
    size_t j;
    GoodputJobView view;
  };
  std::vector<Candidate> order;
  for (size_t j = 0; j < active_.size(); ++j) {
    const JobStatus& st = ctx.job(active_[j]);
    if (!stays[j] || !st.spec->elastic || st.devices.empty() || split_lost_.count(active_[j]) > 0) continue;
    if (sia_internal::FirstTypeDevices(cluster, st.devices).size() != st.devices.size()) continue;  // split already
    std::optional<GoodputJobView> view = ctx.goodput_job(active_[j], /*with_model=*/true);
    if (ctx.failed()) return;
    if (!view || !view->adaptive || !view->grad.has_value() || view->delay_left_s > 0) continue;
    const double left_s = sia_internal::RemainingS(st, *view);
    if (left_s >= s_.split_min_left_rounds * s_.round_s) order.push_back({left_s, j, std::move(*view)});
  }
  std::stable_sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) { return a.left_s > b.left_s; });
  for (const Candidate& c : order) {
    const JobStatus& st = ctx.job(active_[c.j]);
    const std::vector<DeviceId> devices =
        sia_internal::BorrowIdle(cluster, ctx.state(), groups_, *st.spec, c.view, st.devices, s_.split_per_own);
    if (devices.empty()) continue;
    const sia_internal::LoanPrediction p =
        sia_internal::PredictLoan(cluster, c.view, ctx.zoo().Find(st.spec->model), devices);
    if (!(p.alone > 0) || !(p.split >= (1 + s_.split_gain) * p.alone)) continue;
    if (!ctx.ResizeOn(active_[c.j], devices) && ctx.failed()) return;
  }
}

std::vector<std::pair<NodeId, int>> SiaPolicy::Want(const std::vector<NodeId>& list) {
  std::vector<std::pair<NodeId, int>> want;
  for (NodeId n : list) {
    if (want.empty() || want.back().first != n) want.emplace_back(n, 0);
    ++want.back().second;
  }
  return want;
}

bool SiaPolicy::OffItsNodes(const SchedContext& ctx, JobId id, const std::vector<NodeId>& list) {
  const Cluster& cluster = ctx.cluster();
  for (DeviceId d : ctx.job(id).devices) {
    if (std::find(list.begin(), list.end(), cluster.device(d).node) != list.end()) return false;
  }
  return true;
}

std::vector<size_t> SiaPolicy::PlanResizes(SchedContext& ctx, const std::vector<SiaJobRow>& rows,
                                           const std::vector<int>& choice, const std::vector<bool>& kept,
                                           std::vector<int>* room, std::vector<std::vector<NodeId>>* lists,
                                           std::vector<bool>* resized) {
  const Cluster& cluster = ctx.cluster();
  std::vector<size_t> shrinks, grows;
  for (size_t j = 0; j < active_.size(); ++j) {
    if (choice[j] < 0 || kept[j] || rows[j].elastic_group < 0 || choice[j] == rows[j].previous) continue;
    const SiaOption& opt = rows[j].options[static_cast<size_t>(choice[j])];
    if (opt.group != rows[j].elastic_group) continue;
    // Its own GPUs (a split job's first type's; the borrowed ones go in the change).
    const int holds = static_cast<int>(sia_internal::FirstTypeDevices(cluster, ctx.job(active_[j]).devices).size());
    (opt.gpus < holds ? shrinks : grows).push_back(j);
  }
  auto gpus_of = [&](size_t j) { return rows[j].options[static_cast<size_t>(choice[j])].gpus; };
  std::stable_sort(grows.begin(), grows.end(), [&](size_t a, size_t b) { return gpus_of(a) > gpus_of(b); });
  shrinks.insert(shrinks.end(), grows.begin(), grows.end());
  std::vector<size_t> order;
  for (size_t j : shrinks) {
    const SiaOption& opt = rows[j].options[static_cast<size_t>(choice[j])];
    const NodeGroup& g = groups_[static_cast<size_t>(opt.group)];
    std::vector<int> held(g.nodes.size(), 0), free(g.nodes.size(), 0);
    for (DeviceId d : ctx.job(active_[j]).devices) {
      const NodeId node = cluster.device(d).node;
      if (node_group_[static_cast<size_t>(node)] == opt.group) ++held[static_cast<size_t>(index_in_group_[static_cast<size_t>(node)])];
    }
    // `room` counts the active jobs' GPUs as free, this job's too.
    for (size_t k = 0; k < g.nodes.size(); ++k) free[k] = (*room)[static_cast<size_t>(g.nodes[k])] - held[k];
    const int max_nodes = opt.gpus <= g.gpus_per_node ? 1 : (opt.gpus + g.gpus_per_node - 1) / g.gpus_per_node;
    const std::vector<int> counts = sia_internal::ResizeWithin(held, free, opt.gpus, max_nodes);
    if (counts.empty()) continue;
    (*resized)[j] = true;
    order.push_back(j);
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      (*room)[static_cast<size_t>(g.nodes[k])] -= counts[k];
      (*lists)[j].insert((*lists)[j].end(), static_cast<size_t>(counts[k]), g.nodes[k]);
    }
  }
  return order;
}

std::vector<DeviceId> SiaPolicy::ResizedDevices(const SchedContext& ctx, JobId id, const std::vector<NodeId>& list) {
  const Cluster& cluster = ctx.cluster();
  const std::vector<DeviceId>& own = ctx.job(id).devices;
  std::vector<DeviceId> out;
  for (size_t i = 0; i < list.size();) {
    const NodeId node = list[i];
    size_t want = 0;
    while (i < list.size() && list[i] == node) ++want, ++i;
    for (DeviceId d : own) {
      if (want > 0 && cluster.device(d).node == node) out.push_back(d), --want;
    }
    std::vector<DeviceId> free;
    ctx.state().AppendFreeDevices(node, &free);
    for (DeviceId d : free) {
      if (want > 0) out.push_back(d), --want;
    }
    if (want > 0) return {};
  }
  return out;
}

}  // namespace hetsched::sia_internal
