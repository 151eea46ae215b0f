// Multi-priority task queues with aging (RLPTO's task scheduling, ALGORITHMS.md 3.3): pending
// jobs sit in `levels` FIFO queues (0 = highest). A job's base level comes from its user
// priority and its size; while it waits it is promoted one level every `age_s` seconds, so that
// after (levels - 1) x age_s it is in queue 0, where it is ordered by the time it started
// waiting: jobs that arrive later, whatever their priority, queue behind it. Nothing starves
// provided the dispatcher lets the head of queue 0 block the jobs behind it once it has waited
// long enough (MultiLevelQueue::Starving), which the schedulers of this folder do.
//
// Cost: Add/Remove O(log n); Age() O(log n) per promotion due; no scan of the queue.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/model/job.h"
#include "hetsched/sched/options.h"
#include "hetsched/util/status.h"

namespace hetsched {

struct PriorityClassConfig {
  int levels = 3;
  double age_s = 1800;            // promotion period (ALGORITHMS.md 3.3: tau_age = 30 min); 0 = no aging
  double large_gpu_s = 8 * 3600;  // jobs estimated above this many GPU-seconds start one level lower
  // Base level: priority > 0 -> 0 (high), 0 -> 1 (normal), < 0 -> 2 (low) (clamped to levels - 1),
  // then +1 if the job is large.
  int BaseLevel(const JobSpec& spec, double estimated_gpu_s) const;
  Status Validate(const std::string& who) const;
};

// Reads options levels, age (seconds) and large_gpu_h (GPU-hours); `who` names the method in errors.
Result<PriorityClassConfig> ParsePriorityClassOptions(const Options& options, const std::string& who);

class MultiLevelQueue {
 public:
  using Key = std::pair<double, JobId>;  // (time it started waiting, id)

  explicit MultiLevelQueue(PriorityClassConfig config);

  // Adds a pending job that started waiting at `enter_s`, at `base_level` minus the promotions
  // it has earned by `now`. REQUIRES: not already queued.
  void Add(JobId id, int base_level, double enter_s, double now);
  void Remove(JobId id);  // no-op if absent
  bool Contains(JobId id) const { return jobs_.count(id) > 0; }
  // Applies every promotion due at `now`.
  void Age(double now);
  // Time of the next promotion (infinity if none): schedulers ask to be woken then.
  double NextPromotionS() const;

  int levels() const { return config_.levels; }
  int LevelOf(JobId id) const { return jobs_.at(id).level; }
  const std::set<Key>& queue(int level) const { return queues_[static_cast<size_t>(level)]; }
  size_t size() const { return jobs_.size(); }
  // A job in queue 0 that has waited at least levels x age_s: the dispatcher must not start any
  // job behind it before it (head-of-line blocking), which bounds its wait.
  bool Starving(JobId id, double now) const;
  const PriorityClassConfig& config() const { return config_; }

 private:
  struct Entry {
    int base = 0;
    int level = 0;
    double enter_s = 0;
    double promote_s = 0;  // next promotion time (infinity at level 0)
  };
  void SchedulePromotion(JobId id, Entry& e);

  PriorityClassConfig config_;
  std::vector<std::set<Key>> queues_;
  std::map<JobId, Entry> jobs_;
  std::set<Key> promotions_;  // (promotion time, id)
};

}  // namespace hetsched
