// Per-link load over a run, for the traffic metrics: every running job whose traffic leaves a
// node contributes, on each NIC and rack uplink it crosses, its bytes per iteration (out and in,
// perf/TrafficOf) over its current iteration time. The meter keeps each link's current load per
// direction and its peak (the busier direction), taken at Settle(): once per simulated time,
// after every job's speed is up to date (a job that starts is added before the jobs it slows
// are re-timed, so loads in between are not real). Updates cost O(links of the job).
//
// Loads are sums in fixed point (kUnitsPerBps units of a byte/s, integers): exact, so a link's
// load does not depend on the order in which jobs were added, re-timed and removed (the simulator
// re-times the jobs a scheduling call slowed once, at its end, in an order of its own), and a
// link every job left carries exactly zero.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/model/cluster.h"
#include "hetsched/model/job.h"
#include "hetsched/perf/iteration_model.h"

namespace hetsched {

class LinkTrafficMeter {
 public:
  explicit LinkTrafficMeter(const Cluster& cluster);
  // Replaces the contribution kept under `key` with `traffic` at one iteration per
  // `iteration_s`. Keys are small non-negative integers, one per running job (the simulator
  // passes its run slots): storage grows to the largest key. REQUIRES: a key's `traffic` is the
  // same at every Set until the key is removed (a job's plan moves fixed bytes); so a Set at the
  // iteration time the key already has changes nothing and returns at once (a job re-timed
  // after a neighbour's change often keeps its speed).
  void Set(int key, const PlanTraffic& traffic, double iteration_s);
  void Remove(int key);
  // Folds the current loads of the links changed since the last call into their peaks.
  void Settle();
  // Appends the links that carried traffic, NICs (by node id) then uplinks (by rack id).
  void Report(std::vector<LinkPeak>* out) const;

 private:
  // 1/256 byte/s; a contribution is capped at 2^50 units (4.4e12 B/s, 35 Tb/s: far above any
  // link), so a link's sum over up to 8,192 jobs cannot overflow.
  static constexpr double kUnitsPerBps = 256;
  static constexpr int64_t kMaxUnits = int64_t{1} << 50;
  static int64_t Units(double Bps) {
    // Rounded half up (the value is not negative); NaN counts as 0.
    const double units = Bps * kUnitsPerBps;
    return units > 0 ? static_cast<int64_t>(std::min(units, static_cast<double>(kMaxUnits)) + 0.5) : 0;
  }
  struct Load {
    int64_t out = 0, in = 0, peak = 0;  // kUnitsPerBps units
    bool changed = false;  // listed in changed_ since the last Settle
  };
  struct Contribution {
    bool uplink = false;
    int link = 0;
    int64_t out = 0, in = 0;
  };
  Load& At(bool uplink, int link) { return (uplink ? uplinks_ : nics_)[static_cast<size_t>(link)]; }
  void Apply(const Contribution& c, int64_t sign) {
    Load& l = At(c.uplink, c.link);
    l.out += sign * c.out;
    l.in += sign * c.in;
    if (!l.changed) {
      l.changed = true;
      changed_.push_back(&l);
    }
  }

  const Cluster& cluster_;
  std::vector<Load> nics_, uplinks_;
  std::vector<std::vector<Contribution>> by_key_;  // empty: no contribution
  std::vector<double> iteration_s_of_key_;          // the iteration time of by_key_'s entry
  std::vector<Load*> changed_;  // links touched since the last Settle, once each
};

}  // namespace hetsched
