#include "hetsched/policies/priority_queues.h"

#include <algorithm>
#include <cmath>

#include "hetsched/util/units.h"

namespace hetsched {
namespace {
constexpr double kSlackS = 1e-9;
}  // namespace

int PriorityClassConfig::BaseLevel(const JobSpec& spec, double estimated_gpu_s) const {
  int level = spec.priority > 0 ? 0 : spec.priority == 0 ? 1 : 2;
  if (estimated_gpu_s > large_gpu_s) ++level;
  return std::clamp(level, 0, levels - 1);
}

Status PriorityClassConfig::Validate(const std::string& who) const {
  if (levels < 1 || levels > 64) return Status::InvalidArgument(who + ": option 'levels' must be in 1..64");
  if (!(age_s >= 0) || !std::isfinite(age_s)) {
    return Status::InvalidArgument(who + ": option 'age' must be >= 0 seconds (0 disables aging)");
  }
  if (!(large_gpu_s > 0)) return Status::InvalidArgument(who + ": option 'large_gpu_h' must be > 0");
  return Status::Ok();
}

MultiLevelQueue::MultiLevelQueue(PriorityClassConfig config)
    : config_(config), queues_(static_cast<size_t>(std::max(1, config.levels))) {}

// Level at time t: max(0, base - floor((t - enter) / age)); the next promotion is when the
// floor next increases: enter + (base - level + 1) x age.
void MultiLevelQueue::SchedulePromotion(JobId id, Entry& e) {
  e.promote_s = kInf;
  if (e.level == 0 || config_.age_s <= 0) return;
  e.promote_s = e.enter_s + config_.age_s * (e.base - e.level + 1);
  promotions_.insert({e.promote_s, id});
}

void MultiLevelQueue::Add(JobId id, int base_level, double enter_s, double now) {
  Entry e;
  e.base = std::clamp(base_level, 0, config_.levels - 1);
  e.enter_s = enter_s;
  int earned = 0;
  if (config_.age_s > 0 && now > enter_s) earned = static_cast<int>(std::floor((now - enter_s + kSlackS) / config_.age_s));
  e.level = std::max(0, e.base - earned);
  queues_[static_cast<size_t>(e.level)].insert({enter_s, id});
  SchedulePromotion(id, e);
  jobs_[id] = e;
}

void MultiLevelQueue::Remove(JobId id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  queues_[static_cast<size_t>(it->second.level)].erase({it->second.enter_s, id});
  promotions_.erase({it->second.promote_s, id});
  jobs_.erase(it);
}

void MultiLevelQueue::Age(double now) {
  while (!promotions_.empty() && promotions_.begin()->first <= now + kSlackS) {
    const JobId id = promotions_.begin()->second;
    promotions_.erase(promotions_.begin());
    Entry& e = jobs_.at(id);
    queues_[static_cast<size_t>(e.level)].erase({e.enter_s, id});
    --e.level;
    queues_[static_cast<size_t>(e.level)].insert({e.enter_s, id});
    SchedulePromotion(id, e);
  }
}

double MultiLevelQueue::NextPromotionS() const { return promotions_.empty() ? kInf : promotions_.begin()->first; }

bool MultiLevelQueue::Starving(JobId id, double now) const {
  const Entry& e = jobs_.at(id);
  return e.level == 0 && config_.age_s > 0 && now - e.enter_s + kSlackS >= config_.levels * config_.age_s;
}

}  // namespace hetsched
