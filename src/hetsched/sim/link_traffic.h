// Per-link load over a run, for the traffic metrics: every running job whose traffic leaves a
// node contributes, on each NIC and rack uplink it crosses, its bytes per iteration (out and in,
// perf/TrafficOf) over its current iteration time. The meter keeps each link's current load per
// direction and its peak (the busier direction), taken at Settle(): once per simulated time,
// after every job's speed is up to date (a job that starts is added before the jobs it slows
// are re-timed, so loads in between are not real). Updates cost O(links of the job).
#pragma once

#include <algorithm>
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
  // passes its run slots): storage grows to the largest key.
  void Set(int key, const PlanTraffic& traffic, double iteration_s);
  void Remove(int key);
  // Folds the current loads of the links changed since the last call into their peaks.
  void Settle();
  // Appends the links that carried traffic, NICs (by node id) then uplinks (by rack id).
  void Report(std::vector<LinkPeak>* out) const;

 private:
  struct Load {
    double out_Bps = 0, in_Bps = 0, peak_Bps = 0;
    bool changed = false;  // listed in changed_ since the last Settle
  };
  struct Contribution {
    bool uplink = false;
    int link = 0;
    double out_Bps = 0, in_Bps = 0;
  };
  Load& At(bool uplink, int link) { return (uplink ? uplinks_ : nics_)[static_cast<size_t>(link)]; }
  void Apply(const Contribution& c, double sign) {
    Load& l = At(c.uplink, c.link);
    // Clamped at zero: removing what was added may leave a rounding residue.
    l.out_Bps = std::max(0.0, l.out_Bps + sign * c.out_Bps);
    l.in_Bps = std::max(0.0, l.in_Bps + sign * c.in_Bps);
    if (!l.changed) {
      l.changed = true;
      changed_.push_back(&l);
    }
  }

  const Cluster& cluster_;
  std::vector<Load> nics_, uplinks_;
  std::vector<std::vector<Contribution>> by_key_;  // empty: no contribution
  std::vector<Load*> changed_;  // links touched since the last Settle, once each
};

}  // namespace hetsched
