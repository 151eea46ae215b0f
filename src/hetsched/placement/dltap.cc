// DLTAP (Deep Learning Task Allocation Priority; Qiao, Li, Wu, ITM Web of Conf. 12:03030,
// 2017): places the parameter-server and worker containers of a job one task at a time, scoring
// each node by the *aggregation degree* of the job's tasks there, to cut cross-node traffic.
// The paper's exact formula is not available; this is ALGORITHMS.md 6.2 [REC]:
//   AD(j, h)  = (#ps_j on h + #workers_j on h) / (P_j + N_j)
//   G(w, h)   = #ps_j on h / P_j                      (a worker talks to every shard)
//   score     = w_agg (0.5 AD + 0.5 G) + w_res LeastAllocated(h) + w_bal Balanced(h)
//               (defaults 0.6 / 0.2 / 0.2), ties to fewer containers of other jobs, then lowest id.
// Which tasks to co-locate and which node first [REC]:
//   1. Full aggregation: if one node can hold the whole job, all of it goes there (the node
//      with the highest resource score among those that can): no cross-node traffic at all.
//   2. Otherwise the servers go first, one per node (a shard per NIC avoids a server hotspot),
//      each on the node with room for the most workers beside it; only when no node without a
//      server of the job fits does a second server share a node.
//   3. Workers then go one at a time to the best score: nodes with the job's servers attract them
//      (G), then nodes with its other tasks (AD); when those are full the job cannot be fully
//      aggregated and the fallback is the resource score (least allocated, balanced).
// Every container is placed or none is (the job stays queued with the reason).
// Cost per container: the resource index's branch and bound + a scan of the job's nodes.
#include <algorithm>
#include <limits>

#include "hetsched/placement/container_draft.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

using placement_internal::ContainerDraft;
using placement_internal::DraftScorer;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Weights {
  double aggregation = 0.6;
  double resources = 0.2;
  double balance = 0.2;
};

double ResourceScore(const Weights& w, const ContainerDraft& d, NodeId n, const ContainerRequest& r) {
  return w.resources * placement_internal::LeastAllocated(d, n, r) + w.balance * placement_internal::Balanced(d, n, r);
}
double ResourceBound(const Weights& w, const NodeSummary& s, const ContainerRequest& r) {
  return w.resources * placement_internal::LeastAllocatedBound(s, r) + w.balance * placement_internal::BalancedBound(s, r);
}

// Whole workers that fit beside what is already there, given free amounts.
int64_t Room(int64_t cpu, int64_t memory, int gpus, const ContainerRequest& worker) {
  int64_t room = std::numeric_limits<int64_t>::max();
  if (worker.cpu_millicores > 0) room = std::min(room, std::max<int64_t>(0, cpu) / worker.cpu_millicores);
  if (worker.memory_bytes > 0) room = std::min(room, std::max<int64_t>(0, memory) / worker.memory_bytes);
  if (worker.gpus > 0) room = std::min<int64_t>(room, std::max(0, gpus) / worker.gpus);
  return room;
}

// Servers: room for workers beside the server (capped at the workers still to place), then the
// resource score as a fraction of one worker.
class ServerScorer : public DraftScorer {
 public:
  ServerScorer(const Weights& w, bool distinct) : w_(w), distinct_(distinct) {}
  double Score(const ContainerDraft& d, ContainerRole role, NodeId n) const override {
    if (distinct_ && d.ps_on(n) > 0) return kNegInf;
    const ContainerRequest& ps = d.request(role);
    const ContainerRequest& worker = d.request(ContainerRole::kWorker);
    const bool type_ok = worker.gpus == 0 || d.state().cluster().node(n).device_type == d.gpu_type();
    const int64_t room = type_ok ? Room(d.cpu_free(n) - ps.cpu_millicores, d.memory_free(n) - ps.memory_bytes,
                                        d.gpus_free(n) - ps.gpus, worker)
                                 : 0;
    return static_cast<double>(std::min<int64_t>(room, d.job().num_workers)) + 0.5 * ResourceScore(w_, d, n, ps);
  }
  double Bound(const ContainerDraft& d, ContainerRole role, const NodeSummary& s) const override {
    const ContainerRequest& ps = d.request(role);
    const ContainerRequest& worker = d.request(ContainerRole::kWorker);
    const bool type_ok = worker.gpus == 0 || (s.type_mask & d.gpu_types()) != 0;
    const int64_t room = type_ok ? Room(s.max_free_cpu - ps.cpu_millicores, s.max_free_memory - ps.memory_bytes,
                                        s.max_free_gpus - ps.gpus, worker)
                                 : 0;
    return static_cast<double>(std::min<int64_t>(room, d.job().num_workers)) + 0.5 * ResourceBound(w_, s, ps);
  }

 private:
  Weights w_;
  bool distinct_;
};

class WorkerScorer : public DraftScorer {
 public:
  explicit WorkerScorer(const Weights& w) : w_(w) {}
  double Score(const ContainerDraft& d, ContainerRole role, NodeId n) const override {
    const JobSpec& job = d.job();
    const double ad = static_cast<double>(d.ps_on(n) + d.workers_on(n)) / (job.num_ps + job.num_workers);
    const double g = static_cast<double>(d.ps_on(n)) / job.num_ps;
    // Tie-break: fewer containers of other jobs (less contention), then the lowest id.
    return w_.aggregation * (0.5 * ad + 0.5 * g) + ResourceScore(w_, d, n, d.request(role)) -
           1e-9 * d.state().containers_on_node(n);
  }
  double Bound(const ContainerDraft& d, ContainerRole role, const NodeSummary& s) const override {
    return ResourceBound(w_, s, d.request(role));  // untouched nodes: AD = G = 0
  }

 private:
  Weights w_;
};

// The whole job as one request: where it fits, every container can go.
class WholeJobScorer : public NodeScorer {
 public:
  WholeJobScorer(const Weights& w, const ContainerDraft& d, const ContainerRequest& all) : w_(w), d_(d), all_(all) {}
  double Bound(const NodeSummary& s) const override { return ResourceBound(w_, s, all_); }
  double Score(NodeId n) const override { return ResourceScore(w_, d_, n, all_); }

 private:
  Weights w_;
  const ContainerDraft& d_;
  ContainerRequest all_;
};

class DltapPlacer : public placement_internal::ContainerPlacer {
 public:
  explicit DltapPlacer(Weights w) : w_(w) {}
  std::string_view name() const override { return "dltap"; }

  bool PlaceContainers(const PlacementRequest& request, const ClusterState& state,
                       std::vector<ContainerPlacement>* out, std::string* reason) override {
    const JobSpec& job = *request.job;
    draft_.Reset(state, job, placement_internal::ContainerGpuType(request, state));
    const ContainerRequest& ps = job.ps_request;
    const ContainerRequest& worker = job.worker_request;
    // 1. The whole job on one node.
    const ContainerRequest all{ps.cpu_millicores * job.num_ps + worker.cpu_millicores * job.num_workers,
                               ps.memory_bytes * job.num_ps + worker.memory_bytes * job.num_workers,
                               ps.gpus * job.num_ps + worker.gpus * job.num_workers};
    const NodeId whole = state.resource_index().Best(all, draft_.gpu_types(), WholeJobScorer(w_, draft_, all));
    if (whole >= 0) {
      for (int i = 0; i < job.num_ps; ++i) draft_.Place(whole, ContainerRole::kParameterServer);
      for (int i = 0; i < job.num_workers; ++i) draft_.Place(whole, ContainerRole::kWorker);
    } else {
      // 2. Servers, one per node while possible.
      const ServerScorer distinct(w_, true), shared(w_, false);
      while (draft_.placed(ContainerRole::kParameterServer) < job.num_ps) {
        NodeId n = placement_internal::ChooseNode(draft_, ContainerRole::kParameterServer, distinct);
        if (n < 0) n = placement_internal::ChooseNode(draft_, ContainerRole::kParameterServer, shared);
        if (n < 0) {
          *reason = placement_internal::NoRoomReason(draft_, ContainerRole::kParameterServer);
          return false;
        }
        draft_.Place(n, ContainerRole::kParameterServer);
      }
      // 3. Workers by aggregation score.
      const WorkerScorer scorer(w_);
      if (!placement_internal::PlaceGreedily(draft_, scorer, reason)) return false;
    }
    const auto placed = draft_.Finish();
    out->insert(out->end(), placed.begin(), placed.end());
    return true;
  }

 private:
  Weights w_;
  ContainerDraft draft_;
};

Result<std::unique_ptr<Placer>> MakeDltap(const Options& options) {
  Weights w;
  HETSCHED_ASSIGN_OR_RETURN(w.aggregation, options.GetDouble("w_agg", w.aggregation));
  HETSCHED_ASSIGN_OR_RETURN(w.resources, options.GetDouble("w_res", w.resources));
  HETSCHED_ASSIGN_OR_RETURN(w.balance, options.GetDouble("w_bal", w.balance));
  if (w.aggregation < 0 || w.resources < 0 || w.balance < 0) {
    return Status::InvalidArgument("placer 'dltap': weights w_agg, w_res, w_bal must be >= 0");
  }
  return std::unique_ptr<Placer>(std::make_unique<DltapPlacer>(w));
}

const MethodInfo kDltapInfo{
    "dltap", "containers: aggregation-degree scoring of PS/worker tasks (options w_agg, w_res, w_bal)",
    "[SRC] DLTAP (Qiao, Li, Wu, ITM Web Conf. 12:03030, 2017): per-task scoring by aggregation degree to cut "
    "cross-node traffic; [REC] formula, weights, server-first order and fallback (ALGORITHMS.md 6.2)"};

}  // namespace

HETSCHED_REGISTER_IMPL(Placer, kDltapRegistered, kDltapInfo, MakeDltap)

}  // namespace hetsched
