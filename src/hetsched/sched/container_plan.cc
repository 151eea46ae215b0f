#include "hetsched/sched/container_plan.h"

#include <algorithm>
#include <string>

namespace hetsched {

namespace {
bool SameRequest(const ContainerRequest& a, const ContainerRequest& b) {
  return a.cpu_millicores == b.cpu_millicores && a.memory_bytes == b.memory_bytes && a.gpus == b.gpus;
}
}  // namespace

Plan MakeContainerPlan(const JobSpec& job, const ModelProfile& model, std::span<const ContainerPlacement> containers) {
  Plan plan;
  for (const ContainerPlacement& c : containers) plan.devices.insert(plan.devices.end(), c.devices.begin(), c.devices.end());
  plan.parallelism = Parallelism::kDataPS;
  plan.batch_per_device = job.batch_size > 0 ? job.batch_size : std::max(model.default_batch_size, 1);
  plan.num_parameter_servers = job.num_ps;
  plan.containers.assign(containers.begin(), containers.end());
  plan.shards = ShardParameters(model, job.num_ps);
  return plan;
}

Result<PlannedJob> PlanContainerJob(const JobSpec& job, const ModelProfile& model,
                                    std::span<const ContainerPlacement> containers, const Cluster& cluster) {
  const std::string who = "job " + std::to_string(job.id);
  if (!job.is_container_job()) return Status::InvalidArgument(who + " is not a container job");
  std::vector<int> seen_ps(static_cast<size_t>(job.num_ps), 0), seen_workers(static_cast<size_t>(job.num_workers), 0);
  PlannedJob planned;
  Plan& plan = planned.plan;
  for (const ContainerPlacement& c : containers) {
    const bool ps = c.role == ContainerRole::kParameterServer;
    std::vector<int>& seen = ps ? seen_ps : seen_workers;
    if (c.index < 0 || static_cast<size_t>(c.index) >= seen.size() || seen[static_cast<size_t>(c.index)]++ > 0) {
      return Status::InvalidArgument(who + ": container " + std::string(ContainerRoleName(c.role)) + " " +
                                     std::to_string(c.index) + " is out of range or placed twice");
    }
    if (!SameRequest(c.request, ps ? job.ps_request : job.worker_request) ||
        static_cast<int>(c.devices.size()) != c.request.gpus) {
      return Status::InvalidArgument(who + ": a " + std::string(ContainerRoleName(c.role)) +
                                     " container does not carry the job's request");
    }
  }
  if (containers.size() != seen_ps.size() + seen_workers.size()) {
    return Status::InvalidArgument(who + ": " + std::to_string(containers.size()) + " containers placed, the job has " +
                                   std::to_string(job.num_ps) + " servers and " + std::to_string(job.num_workers) +
                                   " workers");
  }
  plan = MakeContainerPlan(job, model, containers);
  planned.estimate = EstimateIteration(model, plan, cluster);
  if (!planned.estimate.fits_in_memory) {
    return Status::Infeasible(who + ": model '" + model.name + "' does not fit its workers' device memory");
  }
  return planned;
}

std::vector<ContainerPlacement> PackedContainerLayout(const JobSpec& job, DeviceTypeId type, const Cluster& cluster) {
  std::vector<NodeId> nodes;
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    if (cluster.node(n).device_type == type) nodes.push_back(n);
  }
  std::stable_sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
    return cluster.node(a).num_devices > cluster.node(b).num_devices;
  });
  std::vector<ContainerPlacement> out;
  std::vector<NodeId> used;
  const int per_worker = std::max(job.worker_request.gpus, 1);
  size_t at = 0;
  int taken = 0;  // devices of nodes[at] taken
  for (int w = 0; w < job.num_workers; ++w) {
    while (at < nodes.size() && cluster.node(nodes[at]).num_devices - taken < per_worker) {
      ++at;
      taken = 0;
    }
    if (at >= nodes.size()) return {};
    const Node& node = cluster.node(nodes[at]);
    ContainerPlacement c;
    c.role = ContainerRole::kWorker;
    c.index = w;
    c.node = nodes[at];
    c.request = job.worker_request;
    for (int i = 0; i < job.worker_request.gpus; ++i) c.devices.push_back(node.first_device + taken++);
    if (used.empty() || used.back() != c.node) used.push_back(c.node);
    out.push_back(std::move(c));
  }
  for (int p = 0; p < job.num_ps; ++p) {
    ContainerPlacement c;
    c.role = ContainerRole::kParameterServer;
    c.index = p;
    c.node = used.empty() ? 0 : used[static_cast<size_t>(p) % used.size()];
    c.request = job.ps_request;
    c.request.gpus = 0;  // a what-if for speed: a server's own accelerators do not compute
    out.insert(out.begin() + p, std::move(c));
  }
  return out;
}

}  // namespace hetsched
