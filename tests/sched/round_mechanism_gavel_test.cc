#include "hetsched/sched/round_mechanism_gavel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

namespace hetsched {
namespace {

using Combo = GavelRoundMechanism::Combo;

// The planned combinations as (id, partner, type), in the order returned.
std::vector<std::tuple<JobId, JobId, int>> Planned(const std::vector<GavelPlannedCombo>& plan) {
  std::vector<std::tuple<JobId, JobId, int>> out;
  for (const GavelPlannedCombo& p : plan) out.emplace_back(p.id, p.partner, p.type);
  return out;
}

// Three jobs on two types of 4 devices, 360 s rounds (each job starts at 180 s per type).
class GavelMechanismTest : public ::testing::Test {
 protected:
  GavelMechanismTest() : m_({4, 4}, 360, 1920) {
    c_.push_back(m_.AddJob(0, 4, thr_));
    c_.push_back(m_.AddJob(1, 2, thr_));
    c_.push_back(m_.AddJob(2, 2, thr_));
    m_.Reset(100);
    for (size_t j = 0; j < c_.size(); ++j) m_.SetAllocation(c_[j], x_[j]);
    // Round 1: job 0 ran 360 s on type 0, job 1 360 s on type 1.
    m_.Account(c_[0], 0, 360);
    m_.Account(c_[1], 1, 360);
  }
  std::vector<std::vector<double>> x_{{1.0, 0.0}, {0.5, 0.5}, {0.5, 0.5}};
  std::vector<double> thr_{1.0, 1.0};
  GavelRoundMechanism m_;
  std::vector<Combo> c_;
};

TEST_F(GavelMechanismTest, ResetOnlyWhenChangedAndIntervalElapsed) {
  EXPECT_EQ(m_.last_reset_s(), 100);
  EXPECT_FALSE(m_.ResetDue(200, true));    // 100 s < 1920 s since the reset
  EXPECT_TRUE(m_.ResetDue(2020, true));    // 1920 s since
  EXPECT_FALSE(m_.ResetDue(2020, false));  // nothing changed
  m_.ForceNextReset();
  EXPECT_TRUE(m_.ResetDue(200, true));
}

TEST_F(GavelMechanismTest, PriorityIsShareOverFractionOfTypeTime) {
  // Type 0: times 540 / 180 / 180, total 900. Type 1: 180 / 540 / 180, total 900.
  EXPECT_NEAR(m_.Priority(c_[0], 0), 1.0 / (540.0 / 900.0), 1e-12);  // 1.667
  EXPECT_NEAR(m_.Priority(c_[1], 0), 0.5 / (180.0 / 900.0), 1e-12);  // 2.5
  EXPECT_NEAR(m_.Priority(c_[1], 1), 0.5 / (540.0 / 900.0), 1e-12);  // 0.833
  EXPECT_EQ(m_.Priority(c_[0], 1), 0.0);                             // X = 0
}

TEST_F(GavelMechanismTest, TypesAreFilledOneAfterAnother) {
  using P = std::vector<std::tuple<JobId, JobId, int>>;
  // Type 0 first: jobs 1 and 2 (2.5, tie kept in arrival order) fill it; on type 1 job 0 (priority
  // 0, not a FIFO policy) still fits the 4 devices left.
  EXPECT_EQ(Planned(m_.PlanRound(std::vector<int>{0, 1}, false)), (P{{0, -1, 1}, {1, -1, 0}, {2, -1, 0}}));
  // FIFO policies never run a job of priority 0.
  EXPECT_EQ(Planned(m_.PlanRound(std::vector<int>{0, 1}, true)), (P{{1, -1, 0}, {2, -1, 0}}));
  // Type 1 first: job 2 (2.5) then job 1 (0.833) fill it; job 0 gets type 0.
  EXPECT_EQ(Planned(m_.PlanRound(std::vector<int>{1, 0}, false)), (P{{0, -1, 0}, {1, -1, 1}, {2, -1, 1}}));
}

TEST_F(GavelMechanismTest, ResetAddsDeficitsAndRestartsTimes) {
  m_.Reset(2020);
  // 1920 s since the last reset: deficit = X * 1920 - (time - 180).
  EXPECT_DOUBLE_EQ(m_.Deficit(c_[0], 0), 1920 - 360);  // 1560
  EXPECT_DOUBLE_EQ(m_.Deficit(c_[0], 1), 0);
  EXPECT_DOUBLE_EQ(m_.Deficit(c_[1], 0), 960);
  EXPECT_DOUBLE_EQ(m_.Deficit(c_[1], 1), 960 - 360);   // 600
  EXPECT_DOUBLE_EQ(m_.Deficit(c_[2], 1), 960);
  // Every job back at 180 s of 540 s per type: priority = 3 X.
  EXPECT_NEAR(m_.Priority(c_[0], 0), 3.0, 1e-12);
  EXPECT_NEAR(m_.Priority(c_[2], 1), 1.5, 1e-12);
}

TEST(GavelMechanism, JobOutsideTheAllocationHoldsDevicesButDoesNotRun) {
  GavelRoundMechanism m({2}, 360, 1920);
  const std::vector<double> zero{0.0};
  const std::vector<double> thr{1.0};
  const Combo c5 = m.AddJob(5, 1, thr);
  const Combo c6 = m.AddJob(6, 1, thr);
  const Combo c7 = m.AddJob(7, 2, thr);
  m.Reset(10);
  m.SetAllocation(c6, zero);
  m.SetAllocation(c7, zero);
  (void)c5;  // arrived after the reset: outside the allocation
  // All three have priority 0, deficit 0, X 0: arrival order. Job 5 (not in the allocation) holds
  // one device, job 6 runs on the other, job 7 (2 devices) no longer fits.
  const auto plan = m.PlanRound(std::vector<int>{0}, false);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].id, 6);
  EXPECT_EQ(plan[0].type, 0);
}

TEST(GavelMechanism, NoTimeOnTheTypeYetScalesTheShareByABillion) {
  GavelRoundMechanism m({4}, 360, 1920);
  const std::vector<double> thr{1.0};
  const Combo c = m.AddJob(0, 1, thr);  // no reset yet: the type's total is 0
  m.SetAllocation(c, std::vector<double>{0.25});
  EXPECT_DOUBLE_EQ(m.Priority(c, 0), 0.25e9);
}

TEST(GavelMechanism, APairIsTakenOnlyWhileBothItsJobsAreFree) {
  GavelRoundMechanism m({2}, 360, 1920);
  const std::vector<double> thr{1.0};
  const Combo a = m.AddJob(0, 1, thr);
  const Combo b = m.AddJob(1, 1, thr);
  const Combo ab = m.AddPair(a, b, thr);
  const Combo c = m.AddJob(2, 1, thr);
  m.Reset(10);
  // The pair first (its time 0 before the reset: half a round of deficit), then job 2; jobs 0 and
  // 1 alone are skipped (taken in the pair).
  m.SetAllocation(a, std::vector<double>{0.0});
  m.SetAllocation(b, std::vector<double>{0.0});
  m.SetAllocation(ab, std::vector<double>{0.5});
  m.SetAllocation(c, std::vector<double>{0.0});
  EXPECT_DOUBLE_EQ(m.Deficit(ab, 0), 180);
  const auto plan = Planned(m.PlanRound(std::vector<int>{0}, false));
  EXPECT_EQ(plan, (std::vector<std::tuple<JobId, JobId, int>>{{0, 1, 0}, {2, -1, 0}}));
  // Job 0 leaves with its pair: its slot is reused by the next job.
  m.Remove(ab);
  m.Remove(a);
  const Combo d = m.AddJob(3, 1, thr);
  EXPECT_TRUE(d == a || d == ab);
  const auto after = Planned(m.PlanRound(std::vector<int>{0}, false));
  // Job 1 and job 2 (priority 0, deficits 0): by id; job 3 holds no device (the type is full).
  EXPECT_EQ(after, (std::vector<std::tuple<JobId, JobId, int>>{{1, -1, 0}, {2, -1, 0}}));
}

// The fast walk (the positive shares sorted, the rest from a heap) against one stable sort of
// every combination by (priority, deficit, X) in Gavel's order, on random tables with many ties.
TEST(GavelMechanism, QueueWalkMatchesOneSortOfEveryCombination) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<int> capacity{1 + static_cast<int>(rng() % 6), 1 + static_cast<int>(rng() % 6)};
    GavelRoundMechanism m(capacity, 360, 1920);
    struct Ref {
      JobId id, partner;
      int gpus;
      std::vector<double> thr, x;
      Combo combo;
      Combo a = -1, b = -1;
    };
    std::vector<Ref> refs;
    const int jobs = 1 + static_cast<int>(rng() % 8);
    auto pick = [&](std::initializer_list<double> values) { return *(values.begin() + rng() % values.size()); };
    std::map<JobId, size_t> single;
    for (int j = 0; j < jobs; ++j) {
      const int gpus = 1 + static_cast<int>(rng() % 2);
      std::vector<double> thr{pick({0.0, 1.0, 2.0}), pick({0.0, 1.0})};
      const Combo c = m.AddJob(j, gpus, thr);
      single[j] = refs.size();
      refs.push_back(Ref{j, -1, gpus, thr, {}, c});
      for (int o = 0; o < j; ++o) {
        const Ref& other = refs[single[o]];
        if (other.gpus != gpus || rng() % 3 == 0) continue;
        std::vector<double> pthr{pick({0.0, 0.5}), pick({0.0, 0.7})};
        const Combo p = m.AddPair(other.combo, c, pthr);
        refs.push_back(Ref{o, j, gpus, pthr, {}, p, other.combo, c});
      }
    }
    m.Reset(100);
    for (Ref& r : refs) {
      if (rng() % 5 == 0) continue;  // outside the allocation
      r.x = {pick({0.0, 0.0, 0.25, 0.5}), pick({0.0, 0.5, 1.0})};
      m.SetAllocation(r.combo, r.x);
    }
    for (int a = 0; a < 6; ++a) m.Account(refs[rng() % refs.size()].combo, static_cast<int>(rng() % 2), pick({90.0, 180.0}));
    if (rng() % 2) {
      // A job finishes (it leaves with its pairs) and another arrives in a freed slot.
      const JobId gone = static_cast<JobId>(rng() % static_cast<unsigned>(jobs));
      std::vector<Ref> kept;
      for (const Ref& r : refs) {
        if (r.id == gone || r.partner == gone) {
          m.Remove(r.combo);
        } else {
          kept.push_back(r);
        }
      }
      refs = std::move(kept);
      std::vector<double> thr{pick({0.0, 1.0, 2.0}), pick({0.0, 1.0})};
      refs.push_back(Ref{jobs, -1, 1, thr, {}, m.AddJob(jobs, 1, thr)});
    }
    if (rng() % 2) {
      m.Reset(2100);
      for (Ref& r : refs) {
        if (!r.x.empty()) m.SetAllocation(r.combo, r.x);
      }
      for (int a = 0; a < 4; ++a) m.Account(refs[rng() % refs.size()].combo, static_cast<int>(rng() % 2), 180.0);
    }
    const std::vector<int> order = rng() % 2 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
    for (const bool skip : {false, true}) {
      // The reference: Gavel's lists in order (a job, then its pairs with lower ids), one stable sort.
      std::vector<size_t> idx(refs.size());
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      auto key = [&](size_t i) {
        return refs[i].partner < 0 ? std::make_pair(refs[i].id, JobId{-1}) : std::make_pair(refs[i].partner, refs[i].id);
      };
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
      std::map<JobId, bool> taken;
      std::vector<std::tuple<JobId, JobId, int>> expected;
      for (const int k : order) {
        struct E {
          double p, d, s;
          size_t i;
        };
        std::vector<E> entries;
        for (size_t i : idx) {
          const double s = refs[i].x.empty() ? 0.0 : refs[i].x[static_cast<size_t>(k)];
          entries.push_back(E{m.Priority(refs[i].combo, k), m.Deficit(refs[i].combo, k), s, i});
        }
        std::stable_sort(entries.begin(), entries.end(),
                         [](const E& a, const E& b) { return std::tie(a.p, a.d, a.s) > std::tie(b.p, b.d, b.s); });
        int left = capacity[static_cast<size_t>(k)];
        for (const E& e : entries) {
          if (left == 0) break;
          const Ref& r = refs[e.i];
          if (taken[r.id] || (r.partner >= 0 && taken[r.partner])) continue;
          if (!(r.thr[static_cast<size_t>(k)] > 0)) continue;
          if (skip && e.p <= 0) continue;
          if (r.gpus > left) continue;
          left -= r.gpus;
          taken[r.id] = true;
          if (r.partner >= 0) taken[r.partner] = true;
          if (!r.x.empty()) expected.emplace_back(r.id, r.partner, k);
        }
      }
      std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
        auto ka = std::get<1>(a) < 0 ? std::make_pair(std::get<0>(a), JobId{-1}) : std::make_pair(std::get<1>(a), std::get<0>(a));
        auto kb = std::get<1>(b) < 0 ? std::make_pair(std::get<0>(b), JobId{-1}) : std::make_pair(std::get<1>(b), std::get<0>(b));
        return ka < kb;
      });
      EXPECT_EQ(Planned(m.PlanRound(order, skip)), expected) << "trial " << trial << " skip " << skip;
    }
  }
}

// A reset visits only the combinations that ran, were added or hold a share; BeginAllocation and
// then SetAllocation for the shares other than 0 only gives what SetAllocation for every
// combination gives. Checked on random sequences of arrivals (with pairs), departures, charges and
// resets: deficits against their definition (summed over resets: X_old * elapsed - (time -
// round/2), a job's time starting at round/2, a pair's at 0), priorities and plans against a
// mechanism given every share.
TEST(GavelMechanism, SparseResetAndAllocationMatchEveryShareSet) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    const std::vector<int> capacity{2, 3};
    GavelRoundMechanism sparse(capacity, 360, 0), every(capacity, 360, 0);
    struct Ref {
      JobId id, partner;
      Combo combo;  // the same in both: the same calls in the same order
      std::vector<double> x{0.0, 0.0}, time, deficit{0.0, 0.0};
      bool in_allocation = false;
    };
    std::vector<Ref> refs;
    JobId next_id = 0;
    double now = 0, last_reset = 0;
    const std::vector<double> thr{1.0, 1.0};
    for (int step = 0; step < 40; ++step) {
      const unsigned op = rng() % 4;
      if (op == 0 || refs.empty()) {  // an arrival, paired with some of the jobs there
        const JobId id = next_id++;
        const Combo c = sparse.AddJob(id, 1, thr);
        ASSERT_EQ(every.AddJob(id, 1, thr), c);
        std::vector<Ref> added{Ref{id, -1, c, {0.0, 0.0}, {180.0, 180.0}}};
        for (const Ref& r : refs) {
          if (r.partner >= 0 || rng() % 2) continue;
          const Combo p = sparse.AddPair(r.combo, c, thr);
          ASSERT_EQ(every.AddPair(r.combo, c, thr), p);
          added.push_back(Ref{r.id, id, p, {0.0, 0.0}, {0.0, 0.0}});
        }
        refs.insert(refs.end(), added.begin(), added.end());
      } else if (op == 1) {  // a departure, with its pairs
        const JobId gone = refs[rng() % refs.size()].id;
        std::vector<Ref> kept;
        for (const Ref& r : refs) {
          if (r.id == gone || r.partner == gone) {
            sparse.Remove(r.combo);
            every.Remove(r.combo);
          } else {
            kept.push_back(r);
          }
        }
        refs = std::move(kept);
      } else if (op == 2) {  // a micro-task
        Ref& r = refs[rng() % refs.size()];
        const int k = static_cast<int>(rng() % 2);
        sparse.Account(r.combo, k, 90.0);
        every.Account(r.combo, k, 90.0);
        r.time[static_cast<size_t>(k)] += 90.0;
      } else {  // a reset and a new allocation, most shares 0
        now += 100 + static_cast<double>(rng() % 3000);
        sparse.Reset(now);
        every.Reset(now);
        sparse.BeginAllocation();
        for (Ref& r : refs) {
          for (size_t k = 0; k < 2; ++k) {
            const double should = r.in_allocation ? r.x[k] * (now - last_reset) : 0.0;
            r.deficit[k] += should - (r.time[k] - 180.0);
            r.time[k] = 180.0;
            r.x[k] = rng() % 4 == 0 ? 0.25 * static_cast<double>(1 + rng() % 4) : 0.0;
          }
          r.in_allocation = true;
          every.SetAllocation(r.combo, r.x);
          if (r.x[0] != 0 || r.x[1] != 0) sparse.SetAllocation(r.combo, r.x);
        }
        last_reset = now;
        for (const bool skip : {false, true}) {
          EXPECT_EQ(Planned(sparse.PlanRound(std::vector<int>{0, 1}, skip)),
                    Planned(every.PlanRound(std::vector<int>{0, 1}, skip)))
              << "trial " << trial << " step " << step;
        }
      }
      for (const Ref& r : refs) {
        for (int k = 0; k < 2; ++k) {
          EXPECT_NEAR(sparse.Deficit(r.combo, k), r.deficit[static_cast<size_t>(k)], 1e-9)
              << "trial " << trial << " step " << step;
          EXPECT_EQ(sparse.Deficit(r.combo, k), every.Deficit(r.combo, k));
          EXPECT_EQ(sparse.Priority(r.combo, k), every.Priority(r.combo, k));
        }
      }
    }
  }
}

}  // namespace
}  // namespace hetsched
