#include "hetsched/slurm/node_book.h"

#include <algorithm>

#include "hetsched/util/text.h"

namespace hetsched::slurm {

NodeBook::NodeBook(const SlurmCluster& cluster, ClusterState& state, Clock& clock,
                   std::function<void(const std::string&)> report)
    : cluster_(cluster), state_(state), clock_(clock), report_(std::move(report)) {
  const size_t nodes = static_cast<size_t>(cluster.cluster.num_nodes());
  down_.assign(nodes, 0);
  idle_.assign(nodes, 0);
  busy_since_.resize(nodes);
  for (size_t n = 0; n < nodes; ++n) {
    busy_since_[n].assign(static_cast<size_t>(cluster.cluster.node(static_cast<NodeId>(n)).num_devices), -1);
  }
  keep_out_.assign(nodes, 0);
  short_.assign(nodes, 0);
  held_by_type_.assign(static_cast<size_t>(cluster.cluster.device_catalog().size()), 0);
}

void NodeBook::Book(const std::vector<DeviceId>& devices, int sign) {
  held_ += sign * static_cast<int>(devices.size());
  for (DeviceId d : devices) held_by_type_[static_cast<size_t>(cluster_.cluster.device(d).type)] += sign;
}

Status NodeBook::Refresh(const SlurmNode& sn, FunctionRef<bool(JobId)> running, bool* changed) {
  const NodeId n = cluster_.Find(sn.name);
  if (n < 0) return Status::Ok();
  const size_t i = static_cast<size_t>(n);
  idle_[i] = ToLower(sn.state) == "idle";
  const bool down = !sn.Usable();
  if (!down && !down_[i]) HETSCHED_RETURN_IF_ERROR(KeepOutSlurmBusy(n, sn.gpus_used, running, changed));
  if (down == static_cast<bool>(down_[i])) return Status::Ok();
  HETSCHED_RETURN_IF_ERROR(SetDown(n, sn, down));
  *changed = true;
  return Status::Ok();
}

Status NodeBook::SetDown(NodeId n, const SlurmNode& sn, bool down) {
  std::vector<DeviceId> devices;
  if (down) {
    state_.AppendFreeDevices(n, &devices);
    HETSCHED_RETURN_IF_ERROR(state_.Allocate(kNodeDownOwner, devices));
    Book(devices, +1);
    report_("node " + sn.name + " is " + sn.state + (sn.reason.empty() ? "" : " (" + sn.reason + ")") +
            ": no new job goes there");
  } else {
    const Node& node = cluster_.cluster.node(n);
    for (int k = 0; k < node.num_devices; ++k) {
      if (state_.owner(node.first_device + k) == kNodeDownOwner) devices.push_back(node.first_device + k);
    }
    HETSCHED_RETURN_IF_ERROR(state_.Release(kNodeDownOwner, devices));
    Book(devices, -1);
    report_("node " + sn.name + " is back (" + sn.state + ")");
  }
  down_[static_cast<size_t>(n)] = down;
  return Status::Ok();
}

Status NodeBook::KeepOutSlurmBusy(NodeId n, int slurm_used, FunctionRef<bool(JobId)> running, bool* changed) {
  const size_t i = static_cast<size_t>(n);
  const Node& node = cluster_.cluster.node(n);
  int agent_running = 0;
  std::vector<DeviceId> kept, devices;
  for (int k = 0; k < node.num_devices; ++k) {
    const DeviceId d = node.first_device + k;
    const JobId owner = state_.owner(d);
    if (owner == kSlurmBusyOwner) kept.push_back(d);
    if (owner >= 0 && running(owner)) ++agent_running;
  }
  // busy_since_[i][k]: since when Slurm has counted more than k GPUs in use beyond the agent's.
  const double t = clock_.NowS();
  const int extra = slurm_used < 0 ? 0 : std::max(0, slurm_used - agent_running);
  int want = 0;
  for (int k = 0; k < node.num_devices; ++k) {
    double& since = busy_since_[i][static_cast<size_t>(k)];
    if (extra <= k) {
      since = -1;
      continue;
    }
    if (since < 0) since = t;
    if (idle_[i] ? since < t : t - since >= kSlurmBusyPersistS) ++want;
  }
  const int had = keep_out_[i];
  int kept_now = static_cast<int>(kept.size());
  if (want > kept_now) {  // from its free GPUs, as many as it has
    state_.AppendFreeDevices(n, &devices);
    devices.resize(std::min(devices.size(), static_cast<size_t>(want - kept_now)));
    HETSCHED_RETURN_IF_ERROR(state_.Allocate(kSlurmBusyOwner, devices));
    Book(devices, +1);
    kept_now += static_cast<int>(devices.size());
  } else if (want < kept_now) {
    devices.assign(kept.begin() + want, kept.end());
    HETSCHED_RETURN_IF_ERROR(state_.Release(kSlurmBusyOwner, devices));
    Book(devices, -1);
    kept_now = want;
  }
  if (!devices.empty()) *changed = true;
  keep_out_[i] = want;
  short_[i] = want > kept_now;
  if (want == had) return Status::Ok();
  if (want == 0) {
    report_("node " + node.name + ": Slurm no longer counts GPUs in use beyond the agent's jobs; all of them are placed again");
  } else {
    report_("node " + node.name + ": Slurm counts " + std::to_string(want) + " GPU(s) in use that no running job of the "
            "agent holds (another user's job, or Slurm's own miscount): kept out of placements");
  }
  return Status::Ok();
}

void NodeBook::HoldIfDown(const std::vector<DeviceId>& devices) {
  std::vector<DeviceId> down;
  for (DeviceId d : devices) {
    if (down_[static_cast<size_t>(cluster_.cluster.device(d).node)]) down.push_back(d);
  }
  if (!down.empty() && state_.Allocate(kNodeDownOwner, down).ok()) Book(down, +1);
}

bool NodeBook::Any(const std::vector<std::string>& nodes, const std::vector<char>& flag) const {
  for (const std::string& name : nodes) {
    const NodeId n = cluster_.Find(name);
    if (n >= 0 && flag[static_cast<size_t>(n)]) return true;
  }
  return false;
}

bool NodeBook::AnyDown(const std::vector<std::string>& nodes) const { return Any(nodes, down_); }
bool NodeBook::AnyShort(const std::vector<std::string>& nodes) const { return Any(nodes, short_); }

}  // namespace hetsched::slurm
