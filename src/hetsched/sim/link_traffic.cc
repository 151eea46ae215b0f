#include "hetsched/sim/link_traffic.h"

#include <algorithm>
#include <cmath>

namespace hetsched {

LinkTrafficMeter::LinkTrafficMeter(const Cluster& cluster)
    : cluster_(cluster), nics_(static_cast<size_t>(cluster.num_nodes())), uplinks_(cluster.racks().size()) {}

void LinkTrafficMeter::Settle() {
  for (Load* l : changed_) {
    l->peak = std::max(l->peak, std::max(l->out, l->in));
    l->changed = false;
  }
  changed_.clear();
}

void LinkTrafficMeter::Set(int key, const PlanTraffic& traffic, double iteration_s) {
  if (!(iteration_s > 0) || !std::isfinite(iteration_s)) {
    Remove(key);
    return;
  }
  if (static_cast<size_t>(key) >= by_key_.size()) {
    by_key_.resize(static_cast<size_t>(key) + 1);
    iteration_s_of_key_.resize(static_cast<size_t>(key) + 1, 0.0);
  }
  std::vector<Contribution>& mine = by_key_[static_cast<size_t>(key)];
  double& kept_s = iteration_s_of_key_[static_cast<size_t>(key)];
  if (!mine.empty() && kept_s == iteration_s) return;  // the same bytes at the same rate
  kept_s = iteration_s;
  // The job's entry is reused (a running job is re-timed often): its old contribution off, the
  // new one on.
  for (const Contribution& c : mine) Apply(c, -1);
  mine.clear();
  for (const LinkBytes& b : traffic.nics) {
    mine.push_back({false, b.link, Units(b.out_bytes / iteration_s), Units(b.in_bytes / iteration_s)});
  }
  for (const LinkBytes& b : traffic.uplinks) {
    mine.push_back({true, b.link, Units(b.out_bytes / iteration_s), Units(b.in_bytes / iteration_s)});
  }
  for (const Contribution& c : mine) Apply(c, +1);
}

void LinkTrafficMeter::Remove(int key) {
  if (static_cast<size_t>(key) >= by_key_.size()) return;
  std::vector<Contribution>& mine = by_key_[static_cast<size_t>(key)];
  for (const Contribution& c : mine) Apply(c, -1);
  mine.clear();
}

void LinkTrafficMeter::Report(std::vector<LinkPeak>* out) const {
  // REQUIRES: Settle() after the last change (the simulator settles at every time step).
  const LinkCatalog& links = cluster_.link_catalog();
  for (NodeId n = 0; n < cluster_.num_nodes(); ++n) {
    const Load& l = nics_[static_cast<size_t>(n)];
    if (l.peak <= 0) continue;
    const Node& node = cluster_.node(n);
    const double capacity = node.nic == kNoLinkClass ? 0.0 : links.link(node.nic).effective_bandwidth_Bps();
    out->push_back(LinkPeak{"nic:" + node.name, static_cast<double>(l.peak) / kUnitsPerBps, capacity});
  }
  for (size_t r = 0; r < uplinks_.size(); ++r) {
    const Load& l = uplinks_[r];
    if (l.peak <= 0) continue;
    const Rack& rack = cluster_.racks()[r];
    const double capacity = rack.uplink == kNoLinkClass
                                ? 0.0
                                : links.link(rack.uplink).effective_bandwidth_Bps() * std::max(1, rack.uplink_count) /
                                      std::max(1.0, rack.oversubscription);
    out->push_back(LinkPeak{"uplink:" + rack.name, static_cast<double>(l.peak) / kUnitsPerBps, capacity});
  }
}

}  // namespace hetsched
