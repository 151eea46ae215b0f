#include "hetsched/sched/round_mechanism_gavel.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace hetsched {

namespace {

// `x` added `n` times from 0, as a loop of additions gives it: n * x where every partial sum is
// exact (an integer x whose sum stays below 2^53), else the loop.
double RepeatedSum(double x, size_t n) {
  if (x == std::floor(x) && std::fabs(x) * static_cast<double>(n) < 0x1p53) return x * static_cast<double>(n);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += x;
  return sum;
}

}  // namespace

GavelRoundMechanism::GavelRoundMechanism(std::vector<int> capacity, double round_s, double reset_interval_s)
    : capacity_(std::move(capacity)),
      half_round_s_(round_s / 2),
      reset_interval_s_(reset_interval_s),
      type_total_s_(capacity_.size(), 0.0),
      positive_(capacity_.size()),
      rest_(capacity_.size()) {}

bool GavelRoundMechanism::RestEligible(Combo c, int k) const {
  return alive_[static_cast<size_t>(c)] && runnable_[At(c, k)] > 0 && !Positive(c, k);
}

void GavelRoundMechanism::RestErase(Combo c, int k) {
  if (!in_rest_[At(c, k)]) return;
  rest_[static_cast<size_t>(k)].erase(RestKey(c, k));
  in_rest_[At(c, k)] = 0;
}

void GavelRoundMechanism::RestInsertIfEligible(Combo c, int k) {
  if (exact_only_ || in_rest_[At(c, k)] || !RestEligible(c, k)) return;
  rest_[static_cast<size_t>(k)].insert(RestKey(c, k));
  in_rest_[At(c, k)] = 1;
}

void GavelRoundMechanism::DropRest() {
  for (auto& set : rest_) set.clear();
  std::fill(in_rest_.begin(), in_rest_.end(), 0);
}

GavelRoundMechanism::Combo GavelRoundMechanism::NewSlot() {
  if (!free_slots_.empty()) {
    const Combo c = free_slots_.back();
    free_slots_.pop_back();
    return c;
  }
  const Combo c = static_cast<Combo>(alive_.size());
  const size_t types = capacity_.size();
  alive_.push_back(0);
  id_.push_back(0);
  partner_.push_back(-1);
  first_.push_back(0);
  second_.push_back(-1);
  member_a_.push_back(c);
  member_b_.push_back(c);
  num_gpus_.push_back(1);
  in_allocation_.push_back(0);
  taken_.push_back(0);
  in_moved_.push_back(0);
  in_shared_.push_back(0);
  for (std::vector<double>* v : {&time_s_, &deficit_, &share_, &runnable_}) v->resize(v->size() + types, 0.0);
  in_rest_.resize(in_rest_.size() + types, 0);
  return c;
}

void GavelRoundMechanism::ListMoved(Combo c) {
  if (in_moved_[static_cast<size_t>(c)]) return;
  in_moved_[static_cast<size_t>(c)] = 1;
  moved_.push_back(c);
}

GavelRoundMechanism::Combo GavelRoundMechanism::AddJob(JobId id, int num_gpus, std::span<const double> runnable) {
  const Combo c = NewSlot();
  const size_t s = static_cast<size_t>(c);
  alive_[s] = 1;
  id_[s] = first_[s] = id;
  partner_[s] = second_[s] = -1;
  member_a_[s] = member_b_[s] = c;
  num_gpus_[s] = num_gpus;
  in_allocation_[s] = 0;
  for (int k = 0; k < num_types(); ++k) share_[At(c, k)] = 0.0;
  ++alive_count_;
  outside_.push_back(c);
  Restart(c, runnable);
  return c;
}

GavelRoundMechanism::Combo GavelRoundMechanism::AddPair(Combo a, Combo b, std::span<const double> runnable) {
  const Combo c = NewSlot();
  const size_t s = static_cast<size_t>(c);
  const JobId ia = id_[static_cast<size_t>(a)], ib = id_[static_cast<size_t>(b)];
  alive_[s] = 1;
  id_[s] = second_[s] = std::min(ia, ib);
  partner_[s] = first_[s] = std::max(ia, ib);
  member_a_[s] = a;
  member_b_[s] = b;
  num_gpus_[s] = num_gpus_[static_cast<size_t>(a)];
  in_allocation_[s] = 0;
  for (int k = 0; k < num_types(); ++k) share_[At(c, k)] = 0.0;
  ++alive_count_;
  outside_.push_back(c);
  Restart(c, runnable);
  return c;
}

void GavelRoundMechanism::Restart(Combo c, std::span<const double> runnable) {
  // A job starts at half a round on each type (add_job, :496-505), a pair at 0 (:2218-2219).
  const double start = partner_[static_cast<size_t>(c)] < 0 ? half_round_s_ : 0.0;
  for (int k = 0; k < num_types(); ++k) {
    RestErase(c, k);
    time_s_[At(c, k)] = start;
    deficit_[At(c, k)] = 0.0;
    runnable_[At(c, k)] = static_cast<size_t>(k) < runnable.size() ? runnable[static_cast<size_t>(k)] : 0.0;
    RestInsertIfEligible(c, k);
  }
  ListMoved(c);
  if (in_allocation_[static_cast<size_t>(c)]) positive_stale_ = true;  // where it runs may have changed
}

void GavelRoundMechanism::Account(Combo c, int type, double seconds) {
  if (type < 0 || type >= num_types() || seconds <= 0) return;
  if (c != kNoCombo && alive_[static_cast<size_t>(c)]) {
    time_s_[At(c, type)] += seconds;
    ListMoved(c);
  }
  type_total_s_[static_cast<size_t>(type)] += seconds;
}

void GavelRoundMechanism::Remove(Combo c) {
  if (c == kNoCombo || !alive_[static_cast<size_t>(c)]) return;
  for (int k = 0; k < num_types(); ++k) RestErase(c, k);
  alive_[static_cast<size_t>(c)] = 0;
  in_allocation_[static_cast<size_t>(c)] = 0;
  --alive_count_;
  free_slots_.push_back(c);
}

void GavelRoundMechanism::BeginAllocation() {
  for (const Combo c : outside_) {
    if (alive_[static_cast<size_t>(c)]) in_allocation_[static_cast<size_t>(c)] = 1;  // its shares are 0
  }
  outside_.clear();
  for (const Combo c : shared_) {
    in_shared_[static_cast<size_t>(c)] = 0;
    if (alive_[static_cast<size_t>(c)]) SetAllocation(c, {});
  }
  shared_.clear();
  positive_stale_ = true;
}

void GavelRoundMechanism::SetAllocation(Combo c, std::span<const double> share) {
  in_allocation_[static_cast<size_t>(c)] = 1;
  for (int k = 0; k < num_types(); ++k) {
    const double x = static_cast<size_t>(k) < share.size() ? share[static_cast<size_t>(k)] : 0.0;
    share_[At(c, k)] = x;
    if (!(x >= 0)) exact_only_ = true;
    if (x != 0 && !in_shared_[static_cast<size_t>(c)]) {
      in_shared_[static_cast<size_t>(c)] = 1;
      shared_.push_back(c);
    }
    if (in_rest_[At(c, k)] && !RestEligible(c, k)) RestErase(c, k);
    RestInsertIfEligible(c, k);
  }
  if (exact_only_) DropRest();
  positive_stale_ = true;
}

void GavelRoundMechanism::Reset(double now) {
  const double elapsed = now - last_reset_s_;
  // Every term of a type's total is half a round: the order of the sum does not matter.
  std::fill(type_total_s_.begin(), type_total_s_.end(), RepeatedSum(half_round_s_, alive_count_));
  // A combination that did not run since the last reset (its time is round/2) and holds no share
  // keeps its deficit (d + (0 - 0) = d) and time: only the others are visited, each once.
  auto visit = [&](Combo c) {
    const size_t s = static_cast<size_t>(c);
    if (!alive_[s]) return;
    for (int k = 0; k < num_types(); ++k) {
      const double should = in_allocation_[s] ? share_[At(c, k)] * elapsed : 0.0;
      double& deficit = deficit_[At(c, k)];
      const double next = deficit + (should - (time_s_[At(c, k)] - half_round_s_));
      if (std::isnan(next)) exact_only_ = true;
      if (next != deficit && in_rest_[At(c, k)] && !exact_only_) {  // its place in the rest moves
        RestErase(c, k);
        deficit = next;
        RestInsertIfEligible(c, k);
      } else {
        deficit = next;
      }
      time_s_[At(c, k)] = half_round_s_;
    }
  };
  for (const Combo c : moved_) visit(c);
  for (const Combo c : shared_) {
    if (!in_moved_[static_cast<size_t>(c)]) visit(c);
  }
  for (const Combo c : moved_) in_moved_[static_cast<size_t>(c)] = 0;
  moved_.clear();
  if (exact_only_) DropRest();
  last_reset_s_ = now;
}

bool GavelRoundMechanism::Positive(Combo c, int k) const {
  return in_allocation_[static_cast<size_t>(c)] && share_[At(c, k)] != 0 && runnable_[At(c, k)] > 0;
}

double GavelRoundMechanism::Priority(Combo c, int k) const {
  if (!Positive(c, k)) return 0;
  const double x = share_[At(c, k)];
  const double total = type_total_s_[static_cast<size_t>(k)];
  const double fraction = total == 0 ? 0.0 : time_s_[At(c, k)] / total;
  // Gavel does not use infinity here "so 2*new_priority > new_priority" (:2444).
  return fraction > 0 ? x / fraction : x * 1e9;
}

bool GavelRoundMechanism::Free(Combo c) const {
  return !taken_[static_cast<size_t>(member_a_[static_cast<size_t>(c)])] &&
         !taken_[static_cast<size_t>(member_b_[static_cast<size_t>(c)])];
}

void GavelRoundMechanism::Take(Combo c) {
  for (const Combo m : {member_a_[static_cast<size_t>(c)], member_b_[static_cast<size_t>(c)]}) {
    if (!taken_[static_cast<size_t>(m)]) taken_list_.push_back(m);
    taken_[static_cast<size_t>(m)] = 1;
  }
}

void GavelRoundMechanism::Consider(Combo c, int k, double priority, bool skip_zero_priority, int* left,
                                   std::vector<GavelPlannedCombo>* out) {
  if (!Free(c)) return;
  if (!(runnable_[At(c, k)] > 0)) return;
  if (skip_zero_priority && priority <= 0) return;
  const size_t s = static_cast<size_t>(c);
  if (num_gpus_[s] > *left) return;
  *left -= num_gpus_[s];
  Take(c);
  // A combination outside the allocation holds the count but gets no workers (:936).
  if (in_allocation_[s]) out->push_back(GavelPlannedCombo{c, id_[s], partner_[s], num_gpus_[s], k});
}

void GavelRoundMechanism::FillTypeExact(int k, bool skip_zero_priority, std::vector<GavelPlannedCombo>* out) {
  struct Entry {
    double priority;
    double deficit;
    double share;
    Combo combo;
  };
  std::vector<Combo> order;
  for (size_t s = 0; s < alive_.size(); ++s) {
    if (alive_[s]) order.push_back(static_cast<Combo>(s));
  }
  std::sort(order.begin(), order.end(), [this](Combo a, Combo b) { return Before(a, b); });
  std::vector<Entry> entries;
  entries.reserve(order.size());
  for (const Combo c : order) {
    const double share = in_allocation_[static_cast<size_t>(c)] ? share_[At(c, k)] : 0.0;
    entries.push_back(Entry{Priority(c, k), deficit_[At(c, k)], share, c});
  }
  // Python's sorted(..., reverse=True) is stable: equal keys keep the order of the lists.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.priority, a.deficit, a.share) > std::tie(b.priority, b.deficit, b.share);
  });
  int left = capacity_[static_cast<size_t>(k)];
  for (const Entry& e : entries) {
    if (left == 0) break;
    Consider(e.combo, k, e.priority, skip_zero_priority, &left, out);
  }
}

// Gavel sorts every combination by (priority, deficit, X) and walks the list until the type is
// full. A combination's priority is above 0 exactly where it is Positive (X > 0 where it runs, in
// the allocation); every other one has priority 0 and, in the key, X = 0: those come after the
// positive ones, by deficit then order. So the positive ones (at most the allocation's nonzero
// shares) are sorted each round, and the others are drawn from a heap only while devices are left
// (they never run under skip_zero_priority). Same walk, same result as one sort of all.
void GavelRoundMechanism::FillType(int k, bool skip_zero_priority, std::vector<GavelPlannedCombo>* out) {
  int left = capacity_[static_cast<size_t>(k)];
  if (left == 0) return;
  if (exact_only_) {
    FillTypeExact(k, skip_zero_priority, out);
    return;
  }
  struct Entry {
    double priority;
    double deficit;
    double share;
    Combo combo;
  };
  std::vector<Entry> positive;
  for (const Combo c : positive_[static_cast<size_t>(k)]) {
    if (!alive_[static_cast<size_t>(c)] || !Positive(c, k)) continue;
    const double priority = Priority(c, k);
    if (!(priority > 0)) {  // a share or a time not a number: the queue as written
      FillTypeExact(k, skip_zero_priority, out);
      return;
    }
    positive.push_back(Entry{priority, deficit_[At(c, k)], share_[At(c, k)], c});
  }
  auto first = [this](const Entry& a, const Entry& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.deficit != b.deficit) return a.deficit > b.deficit;
    if (a.share != b.share) return a.share > b.share;
    return Before(a.combo, b.combo);
  };
  // Walked in that order only until the type is full (a few devices, where an LP policy's
  // allocation gives hundreds of combinations a share): drawn from a heap, not sorted whole. The
  // key is unique to each combination (Before), so the order drawn is the sort's.
  auto after = [&first](const Entry& a, const Entry& b) { return first(b, a); };
  std::make_heap(positive.begin(), positive.end(), after);
  for (auto end = positive.end(); end != positive.begin(); --end) {
    if (left == 0) return;
    std::pop_heap(positive.begin(), end, after);
    const Entry& e = *(end - 1);
    Consider(e.combo, k, e.priority, skip_zero_priority, &left, out);
  }
  if (left == 0 || skip_zero_priority) return;
  // The rest, priority 0: by deficit (decreasing), then order (rest_, kept in that order).
  for (const RestEntry& e : rest_[static_cast<size_t>(k)]) {
    if (left == 0) return;
    if (Free(e.combo)) Consider(e.combo, k, 0.0, skip_zero_priority, &left, out);
  }
}

std::vector<GavelPlannedCombo> GavelRoundMechanism::PlanRound(std::span<const int> type_order, bool skip_zero_priority) {
  if (positive_stale_) {
    // Positive needs a share other than 0: only shared_'s slots can be (the order does not matter:
    // FillType sorts them by a key unique to each).
    for (std::vector<Combo>& list : positive_) list.clear();
    for (const Combo c : shared_) {
      if (!alive_[static_cast<size_t>(c)]) continue;
      for (int k = 0; k < num_types(); ++k) {
        if (Positive(c, k)) positive_[static_cast<size_t>(k)].push_back(c);
      }
    }
    positive_stale_ = false;
  }
  std::vector<GavelPlannedCombo> out;
  for (const int k : type_order) FillType(k, skip_zero_priority, &out);
  for (const Combo m : taken_list_) taken_[static_cast<size_t>(m)] = 0;
  taken_list_.clear();
  std::sort(out.begin(), out.end(),
            [this](const GavelPlannedCombo& a, const GavelPlannedCombo& b) { return Before(a.combo, b.combo); });
  return out;
}

}  // namespace hetsched
