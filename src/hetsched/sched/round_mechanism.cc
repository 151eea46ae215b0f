#include "hetsched/sched/round_mechanism.h"

#include <algorithm>

#include "hetsched/util/units.h"

namespace hetsched {

RoundMechanism::RoundMechanism(std::vector<int> capacity) : capacity_(std::move(capacity)) {}

void RoundMechanism::Account(JobId id, int type_index, double seconds) {
  if (seconds <= 0) return;
  History& h = history_[id];
  if (h.received_s.empty()) h.received_s.assign(capacity_.size(), 0.0);
  h.active_s += seconds;
  if (type_index >= 0 && type_index < num_types()) h.received_s[static_cast<size_t>(type_index)] += seconds;
}

double RoundMechanism::ReceivedFraction(JobId id, int k) const {
  auto it = history_.find(id);
  if (it == history_.end() || it->second.active_s <= 0) return 0;
  return it->second.received_s[static_cast<size_t>(k)] / it->second.active_s;
}

double RoundMechanism::ActiveSeconds(JobId id) const {
  auto it = history_.find(id);
  return it == history_.end() ? 0.0 : it->second.active_s;
}

std::vector<int> RoundMechanism::PlanRound(std::span<const RoundJob> jobs) const {
  // Shares below this are solver round-off, not allocations.
  constexpr double kMinShare = 1e-7;
  struct Pair {
    double priority;
    double share;
    bool keeps;
    JobId id;
    int job;   // position in `jobs`
    int type;  // type index
  };
  std::vector<Pair> pairs;
  pairs.reserve(jobs.size() * capacity_.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    const RoundJob& job = jobs[j];
    const int types = std::min(num_types(), static_cast<int>(job.share.size()));
    const auto history = history_.find(job.id);  // once per job: ReceivedFraction's figures
    const History* h = history == history_.end() || history->second.active_s <= 0 ? nullptr : &history->second;
    for (int k = 0; k < types; ++k) {
      const double x = job.share[static_cast<size_t>(k)];
      if (x <= kMinShare || job.num_gpus > capacity_[static_cast<size_t>(k)]) continue;
      const double received = h ? h->received_s[static_cast<size_t>(k)] / h->active_s : 0.0;
      const double priority = received > 0 ? x / received : kInf;
      pairs.push_back(Pair{priority, x, job.current_type == k, job.id, static_cast<int>(j), k});
    }
  }
  // A strict total order (no two pairs tie), so the pairs are taken in one sequence however they
  // are ordered: a heap yields them in that sequence, and the walk stops once every device is
  // given (in a queue longer than the cluster, most pairs are never reached: no full sort).
  const auto after = [](const Pair& a, const Pair& b) {  // a is taken after b
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.keeps != b.keeps) return b.keeps;
    if (a.share != b.share) return a.share < b.share;
    if (a.id != b.id) return a.id > b.id;
    return a.type > b.type;
  };
  std::make_heap(pairs.begin(), pairs.end(), after);
  std::vector<int> assigned(jobs.size(), -1);
  std::vector<int> free = capacity_;
  int free_total = 0;
  for (const int c : capacity_) free_total += c;
  for (auto end = pairs.end(); end != pairs.begin() && free_total > 0; --end) {
    std::pop_heap(pairs.begin(), end, after);
    const Pair& p = *(end - 1);
    if (assigned[static_cast<size_t>(p.job)] >= 0) continue;
    const int need = jobs[static_cast<size_t>(p.job)].num_gpus;
    int& left = free[static_cast<size_t>(p.type)];
    if (left < need) continue;
    left -= need;
    free_total -= need;
    assigned[static_cast<size_t>(p.job)] = p.type;
  }
  return assigned;
}

}  // namespace hetsched
