#include "hetsched/sched/round_mechanism_gavel.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace hetsched {

GavelRoundMechanism::GavelRoundMechanism(std::vector<int> capacity, double round_s, double reset_interval_s)
    : capacity_(std::move(capacity)),
      half_round_s_(round_s / 2),
      reset_interval_s_(reset_interval_s),
      type_total_s_(capacity_.size(), 0.0) {}

namespace {
std::pair<JobId, JobId> GavelComboKey(JobId id, JobId partner) {
  if (partner < 0) return {id, JobId{-1}};
  return {std::min(id, partner), std::max(id, partner)};
}
}  // namespace

void GavelRoundMechanism::AddJob(JobId id) {
  Times& t = jobs_[{id, -1}];
  t.time_s.assign(capacity_.size(), half_round_s_);
  t.deficit_s.assign(capacity_.size(), 0.0);
}

void GavelRoundMechanism::AddPair(JobId a, JobId b) {
  Times& t = jobs_[GavelComboKey(a, b)];
  t.time_s.assign(capacity_.size(), 0.0);
  t.deficit_s.assign(capacity_.size(), 0.0);
}

void GavelRoundMechanism::Account(JobId id, int type, double seconds, JobId partner) {
  if (type < 0 || type >= num_types() || seconds <= 0) return;
  auto it = jobs_.find(GavelComboKey(id, partner));
  if (it != jobs_.end()) it->second.time_s[static_cast<size_t>(type)] += seconds;
  type_total_s_[static_cast<size_t>(type)] += seconds;
}

void GavelRoundMechanism::RemoveJob(JobId id) {
  std::erase_if(jobs_, [id](const auto& entry) { return entry.first.first == id || entry.first.second == id; });
}

void GavelRoundMechanism::Reset(double now, const std::function<std::span<const double>(JobId, JobId)>& old_share) {
  const double elapsed = now - last_reset_s_;
  std::fill(type_total_s_.begin(), type_total_s_.end(), 0.0);
  for (auto& [key, t] : jobs_) {
    const std::span<const double> x = old_share(key.first, key.second);
    for (size_t k = 0; k < capacity_.size(); ++k) {
      const double should = k < x.size() ? x[k] * elapsed : 0.0;
      t.deficit_s[k] += should - (t.time_s[k] - half_round_s_);
      t.time_s[k] = half_round_s_;
      type_total_s_[k] += half_round_s_;
    }
  }
  last_reset_s_ = now;
}

double GavelRoundMechanism::Priority(const GavelRoundJob& job, int k) const {
  const size_t kk = static_cast<size_t>(k);
  if (!job.in_allocation || kk >= job.share.size()) return 0;
  const double x = job.share[kk];
  if (x == 0 || kk >= job.throughput.size() || job.throughput[kk] <= 0) return 0;
  auto it = jobs_.find(GavelComboKey(job.id, job.partner));
  const double total = type_total_s_[kk];
  const double fraction = (it == jobs_.end() || total == 0) ? 0.0 : it->second.time_s[kk] / total;
  // Gavel does not use infinity here "so 2*new_priority > new_priority" (:2444).
  return fraction > 0 ? x / fraction : x * 1e9;
}

double GavelRoundMechanism::Deficit(JobId id, int k, JobId partner) const {
  auto it = jobs_.find(GavelComboKey(id, partner));
  return it == jobs_.end() ? 0.0 : it->second.deficit_s[static_cast<size_t>(k)];
}

std::vector<int> GavelRoundMechanism::PlanRound(std::span<const GavelRoundJob> jobs, std::span<const int> type_order,
                                                bool skip_zero_priority) const {
  struct Entry {
    double priority;
    double deficit;
    double share;
    int job;
  };
  std::vector<int> assigned(jobs.size(), -1);
  // Whether each job is taken this round, by its single entry's index (a pair's jobs are found
  // through it: each has one; a pair whose job has none is never taken).
  std::vector<char> taken(jobs.size(), 0);
  std::map<JobId, size_t> single_of;
  bool pairs = false;
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (jobs[j].partner < 0) {
      single_of.emplace(jobs[j].id, j);
    } else {
      pairs = true;
    }
  }
  std::vector<std::pair<size_t, size_t>> members(pairs ? jobs.size() : 0);
  for (size_t j = 0; j < members.size(); ++j) {
    if (jobs[j].partner < 0) {
      members[j] = {j, j};
      continue;
    }
    auto a = single_of.find(jobs[j].id), b = single_of.find(jobs[j].partner);
    members[j] = a == single_of.end() || b == single_of.end() ? std::make_pair(j, j) : std::make_pair(a->second, b->second);
    if (a == single_of.end() || b == single_of.end()) taken[j] = 1;
  }
  std::vector<Entry> entries;
  entries.reserve(jobs.size());
  for (const int k : type_order) {
    int left = capacity_[static_cast<size_t>(k)];
    entries.clear();
    for (size_t j = 0; j < jobs.size(); ++j) {
      const GavelRoundJob& job = jobs[j];
      const double share = job.in_allocation && static_cast<size_t>(k) < job.share.size() ? job.share[static_cast<size_t>(k)] : 0.0;
      entries.push_back(Entry{Priority(job, k), Deficit(job.id, k, job.partner), share, static_cast<int>(j)});
    }
    // Python's sorted(..., reverse=True) is stable: equal keys keep the arrival order.
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.priority, a.deficit, a.share) > std::tie(b.priority, b.deficit, b.share);
    });
    for (const Entry& e : entries) {
      if (left == 0) break;
      const size_t j = static_cast<size_t>(e.job);
      const GavelRoundJob& job = jobs[j];
      const auto [first, second] = pairs ? members[j] : std::make_pair(j, j);
      if (taken[j] || taken[first] || taken[second]) continue;
      if (static_cast<size_t>(k) >= job.throughput.size() || job.throughput[static_cast<size_t>(k)] <= 0) continue;
      if (skip_zero_priority && e.priority <= 0) continue;
      if (job.num_gpus > left) continue;
      left -= job.num_gpus;
      taken[j] = taken[first] = taken[second] = 1;
      // A job outside the allocation holds the count but gets no workers (:936).
      if (job.in_allocation) assigned[j] = k;
    }
  }
  return assigned;
}

}  // namespace hetsched
