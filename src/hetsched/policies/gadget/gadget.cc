// GADGET job scheduler (Yu, Tian, Ji, Wu, Rajan, Liu, "GADGET: Online Resource Optimization for
// Scheduling Ring-All-Reduce Learning Jobs", IEEE INFOCOM 2022): online, event-driven, elastic.
// Reconstruction [REC] of ALGORITHMS.md 5.3 (the paper's full text was not available; see
// docs/gadget.md for what is [SRC] and what is ours). At each decision point:
//   1. candidates: the `window` oldest pending jobs; each is bound to its preferred device type
//      (the allowed type with the fastest one-worker estimate; ties: catalog order);
//   2. per type, the free GPUs are allocated by the greedy of gadget_core.h on each job's utility
//      table V_j(w), w = 0..W_max_j, from the ring model (perf/ring_model.h) with the span the
//      free servers allow now (the fewest servers holding w): 1/2-approximate, exact when the
//      tables are concave;
//   3. rings are embedded in decreasing w by the placer (`gadget-ring` in the GADGET pair), after
//      the shrink check of gadget::GadgetDecide (a ring whose assumed span was taken by a larger
//      one is shrunk to its best worker count for the spans still possible).
// Per-slot re-allocation (realloc=true, the default; docs/gadget.md 2.5): every `slot` seconds the
// running rings join the allocation: a ring may grow back (in place, or moved to one server) and a
// ring spread over servers may be consolidated on one; each change is charged by the back end
// (SchedContext::ResizePauseS: an elastic re-rendezvous, or a checkpoint restart) and made only
// when it pays for itself within `horizon` seconds (gadget_realloc.h). realloc=false: running
// jobs keep their rings to the end (the ablation GADGET-static).
// Worker bound: W_min = ceil(num_gpus x min_fraction) (option, default 0.5) <= w <= W_max =
// num_gpus x max_scale (option, default 1), or w = num_gpus exactly with elastic=false. The lower
// bound matters most with realloc=false, where running jobs are never re-grown: a long job
// started on one GPU of the eight it asked for would hold the makespan hostage
// (docs/experiments/gadget.md). Objectives: option objective=jct|target|energy|fairness.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "hetsched/perf/ring_model.h"
#include "hetsched/policies/gadget/core.h"
#include "hetsched/policies/gadget/realloc.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/units.h"

namespace hetsched {
namespace {

struct GadgetOptions {
  RingObjective objective = RingObjective::kCompletionTime;
  double max_scale = 1;
  bool elastic = true;
  double alpha = 1;
  double energy_weight = 0.5;
  double target_fraction = 1;
  double min_fraction = 0.5;
  int window = 100;
  bool realloc = true;
  double slot_s = 600;
  double horizon_s = 3600;
};

class GadgetScheduler : public JobScheduler {
 public:
  explicit GadgetScheduler(GadgetOptions options) : opt_(options) {}
  std::string_view name() const override { return "gadget"; }
  double round_period_s() const override { return opt_.realloc ? opt_.slot_s : 0; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override {
    pending_.insert({job.spec->submit_time_s, job.spec->id});
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    pending_.erase({job.spec->submit_time_s, job.spec->id});
    jobs_.erase(job.spec->id);
    running_.erase(job.spec->id);
  }
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    pending_.insert({job.spec->submit_time_s, job.spec->id});
    running_.erase(job.spec->id);
  }
  // Running rings are never re-planned, and a job's ring data is built when it is next pending.
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}

  void Schedule(SchedContext& ctx) override {
    // A slot boundary: the round ticks come every slot_s seconds (round_period_s).
    const bool slot = opt_.realloc && ctx.now() >= next_slot_s_;
    if (slot) next_slot_s_ = ctx.now() + opt_.slot_s;
    if (!slot && (pending_.empty() || ctx.state().total_free() == 0)) return;
    // 1. Candidates by preferred type.
    std::map<DeviceTypeId, std::vector<JobId>> by_type;
    int examined = 0;
    for (auto it = pending_.begin(); it != pending_.end() && examined < opt_.window; ++it, ++examined) {
      const JobInfo& info = Info(ctx, it->second);
      if (info.type != kNoDeviceType && ctx.state().free_of_type(info.type) > 0) by_type[info.type].push_back(it->second);
    }
    if (slot) {
      for (JobId id : running_) {  // the types of running rings too
        if (ctx.job(id).state == JobState::kRunning) by_type[ctx.job(id).device_type];
      }
    }
    for (auto& [type, ids] : by_type) ScheduleType(ctx, type, ids, slot);
  }

 private:
  struct JobInfo {
    DeviceTypeId type = kNoDeviceType;
    RingJob ring;
    int submitted = 1;    // W0
    int max_workers = 1;  // W_max
    int min_workers = 1;  // W_min = ceil(min_fraction x W0)
  };
  struct RingCandidateOut {
    std::vector<DeviceId> devices;
  };
  struct TypeLinks {
    RingLinks intra;  // span 1
    RingLinks inter;  // span >= 2
    int largest_node = 0;
  };

  const TypeLinks& LinksOf(const Cluster& cluster, DeviceTypeId type) {
    auto it = links_.find(type);
    if (it != links_.end()) return it->second;
    // The largest server of the type stands for all of them [REC: servers of one type share
    // their links in every cluster we build; a mixed one would need per-server tables].
    TypeLinks l{RingLinks{kInf, 0}, RingLinks{0, 0}, 0};
    for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
      const Node& node = cluster.node(n);
      if (node.device_type != type || node.num_devices <= l.largest_node) continue;
      l.largest_node = node.num_devices;
      l.intra = RingLinks{kInf, 0};
      if (node.intra_link != kNoLinkClass) {
        const LinkClass& link = cluster.link_catalog().link(node.intra_link);
        l.intra = RingLinks{link.effective_bandwidth_Bps(), link.latency_s};
      }
      l.inter = RingLinks{0, 0};
      if (node.nic != kNoLinkClass) {
        const LinkClass& link = cluster.link_catalog().link(node.nic);
        l.inter = RingLinks{link.effective_bandwidth_Bps(), link.latency_s};
      }
    }
    return links_.emplace(type, l).first->second;
  }

  const JobInfo& Info(SchedContext& ctx, JobId id) {
    auto it = jobs_.find(id);
    if (it != jobs_.end()) return it->second;
    JobInfo info;
    const JobSpec& spec = *ctx.job(id).spec;
    const Cluster& cluster = ctx.cluster();
    info.submitted = std::max(1, spec.num_gpus);
    double best_s = kInf;
    for (DeviceTypeId t : cluster.present_types()) {
      if (!spec.AllowsType(t, cluster.device_catalog())) continue;
      // One-worker estimate: also says whether the model fits the type's memory at all.
      const double s = ctx.EstimateIterationS(id, 1, t);
      if (s < best_s) {
        best_s = s;
        info.type = t;
      }
    }
    const ModelProfile* model = ctx.zoo().Find(spec.model);
    if (info.type != kNoDeviceType && model != nullptr) {
      info.ring = MakeRingJob(*model, spec.batch_size, cluster.device_catalog().type(info.type));
      const double scaled = std::floor(opt_.max_scale * info.submitted);
      info.max_workers = std::clamp(static_cast<int>(scaled), 1,
                                    cluster.devices_per_type()[static_cast<size_t>(info.type)]);
      info.min_workers = std::clamp(static_cast<int>(std::ceil(opt_.min_fraction * info.submitted - 1e-9)), 1,
                                    info.max_workers);
      if (!opt_.elastic) {
        info.max_workers = std::min(info.submitted, info.max_workers);
        info.min_workers = info.max_workers;
      }
    } else {
      info.type = kNoDeviceType;
    }
    return jobs_.emplace(id, info).first->second;
  }

  // Fewest servers of `type` holding w GPUs now, from the free counts most-free first.
  void LoadFree(const ClusterState& state, DeviceTypeId type, int limit) {
    nodes_.clear();
    state.AppendNodesByMostFree(type, limit, &nodes_);
    prefix_.assign(1, 0);
    for (NodeId n : nodes_) prefix_.push_back(prefix_.back() + state.free_on_node(n));
  }
  int SpanNow(int w) const {
    const auto it = std::lower_bound(prefix_.begin(), prefix_.end(), w);
    return it == prefix_.end() ? -1 : static_cast<int>(it - prefix_.begin());
  }

  // Iterations done now, as the job reports them (a running job: at its current rate since its
  // last change of allocation).
  static double DoneNow(const JobStatus& st, double now) {
    double done = st.iterations_done;
    if (st.state == JobState::kRunning && now > st.last_start_s) done += st.iteration_rate * (now - st.last_start_s);
    return done;
  }

  RingUtility UtilityFor(SchedContext& ctx, JobId id, const JobInfo& info, const TypeLinks& links) const {
    const JobStatus& st = ctx.job(id);
    const double total = static_cast<double>(std::max<int64_t>(st.spec->iterations, 1));
    const double done = DoneNow(st, ctx.now());
    RingUtility u;
    u.objective = opt_.objective;
    u.remaining_iterations = std::max(1.0, total - done);
    u.need_iterations = std::max(0.0, opt_.target_fraction * total - done);
    u.energy_weight = opt_.energy_weight;
    u.alpha = opt_.alpha;
    u.single_rate = RingProgressRate(info.ring, 1, links.intra, info.submitted);
    const int ref_span = info.submitted <= links.largest_node ? 1 : 2;
    u.reference_rate = RingProgressRate(info.ring, info.submitted, ref_span == 1 ? links.intra : links.inter, info.submitted);
    return u;
  }

  double Rate(const JobInfo& info, const TypeLinks& links, int w, int span) const {
    return RingProgressRate(info.ring, w, span == 1 ? links.intra : links.inter, info.submitted);
  }

  double Value(SchedContext& ctx, JobId id, const JobInfo& info, const TypeLinks& links, int w, int span) const {
    if (w <= 0 || span < 1) return 0.0;
    if (w < info.min_workers) return 0.0;
    return UtilityOf(UtilityFor(ctx, id, info, links), w, Rate(info, links, w, span));
  }

  // ---- Per-slot re-allocation of running rings (docs/gadget.md 2.5). ----
  static int SpanOf(const Cluster& cluster, std::span<const DeviceId> devices) {
    std::vector<NodeId> nodes;
    for (DeviceId d : devices) nodes.push_back(cluster.device(d).node);
    std::sort(nodes.begin(), nodes.end());
    return static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
  }

  // The best change of running job `id` to exactly `w` workers that pays for itself within the
  // horizon: its candidate ring in *best and its effective rate (gadget::EffectiveRate) returned;
  // 0 when none pays. x0: the job's rate now.
  double BestChange(SchedContext& ctx, JobId id, const JobInfo& info, const TypeLinks& links, int w,
                    RingCandidateOut* best) {
    const JobStatus& st = ctx.job(id);
    const int w0 = st.num_devices();
    const double x0 = Rate(info, links, w0, SpanOf(ctx.cluster(), st.devices));
    const double total = static_cast<double>(std::max<int64_t>(st.spec->iterations, 1));
    const double remaining = std::max(1.0, total - DoneNow(st, ctx.now()));
    candidates_.clear();
    gadget::RingCandidates(ctx.state(), st.devices, w, &candidates_);
    double best_rate = 0;
    for (gadget::RingCandidate& c : candidates_) {
      const double pause = ctx.ResizePauseS(id, c.devices);
      if (!std::isfinite(pause)) continue;
      const double x1 = Rate(info, links, w, c.span);
      if (!gadget::PaysForItself(x0, x1, pause, remaining, opt_.horizon_s)) continue;
      const double effective = gadget::EffectiveRate(x0, x1, pause, remaining, opt_.horizon_s);
      if (effective > best_rate) {
        best_rate = effective;
        best->devices = c.devices;
      }
    }
    return best_rate;
  }

  // Running rings of `type` spread over several servers move onto one when that pays.
  void Consolidate(SchedContext& ctx, DeviceTypeId type, const TypeLinks& links) {
    for (JobId id : std::vector<JobId>(running_.begin(), running_.end())) {
      const JobStatus& st = ctx.job(id);
      if (st.state != JobState::kRunning || st.device_type != type || SpanOf(ctx.cluster(), st.devices) < 2) continue;
      const JobInfo& info = Info(ctx, id);
      RingCandidateOut best;
      if (BestChange(ctx, id, info, links, st.num_devices(), &best) > 0 && SpanOf(ctx.cluster(), best.devices) == 1) {
        ctx.ResizeOn(id, best.devices);
      }
    }
  }

  // Value table of growing running job `id` by k = 0..top extra workers: the utility at the
  // change's effective rate minus the utility now (<= 0 where no change pays).
  void GrowthItem(SchedContext& ctx, JobId id, const TypeLinks& links, int top, gadget::AllocItem* item) {
    const JobInfo& info = Info(ctx, id);
    const JobStatus& st = ctx.job(id);
    const int w0 = st.num_devices();
    const RingUtility u = UtilityFor(ctx, id, info, links);
    const double now_value = UtilityOf(u, w0, Rate(info, links, w0, SpanOf(ctx.cluster(), st.devices)));
    item->value.assign(static_cast<size_t>(top) + 1, 0.0);
    RingCandidateOut best;
    for (int k = 1; k <= top; ++k) {
      const double rate = BestChange(ctx, id, info, links, w0 + k, &best);
      item->value[static_cast<size_t>(k)] = rate > 0 ? UtilityOf(u, w0 + k, rate) - now_value : 0.0;
    }
  }

  // Grows running job `id` to `target` workers, or to the largest count below that still pays.
  void Grow(SchedContext& ctx, JobId id, const TypeLinks& links, int target) {
    const JobInfo& info = Info(ctx, id);
    const int w0 = ctx.job(id).num_devices();
    RingCandidateOut best;
    for (int w = target; w > w0; --w) {
      if (BestChange(ctx, id, info, links, w, &best) > 0 && ctx.ResizeOn(id, best.devices)) return;
    }
  }

  void ScheduleType(SchedContext& ctx, DeviceTypeId type, const std::vector<JobId>& ids, bool slot) {
    const ClusterState& state = ctx.state();
    const TypeLinks& links = LinksOf(ctx.cluster(), type);
    if (slot) Consolidate(ctx, type, links);
    const int capacity = state.free_of_type(type);
    if (capacity == 0) return;
    // Running rings that may grow join the allocation (after the pending jobs' items).
    growers_.clear();
    if (slot) {
      for (JobId id : running_) {
        const JobStatus& st = ctx.job(id);
        if (st.state == JobState::kRunning && st.device_type == type && st.num_devices() < Info(ctx, id).max_workers) {
          growers_.push_back(id);
        }
      }
    }
    int widest = 0;
    for (JobId id : ids) widest = std::max(widest, Info(ctx, id).max_workers);
    LoadFree(state, type, std::min(widest, capacity));
    // 2. Allocation on the utility tables with the best span possible now.
    items_.assign(ids.size(), gadget::AllocItem{});
    for (size_t i = 0; i < ids.size(); ++i) {
      const JobInfo& info = Info(ctx, ids[i]);
      const int top = std::min(info.max_workers, capacity);
      items_[i].value.assign(static_cast<size_t>(top) + 1, 0.0);
      for (int w = 1; w <= top; ++w) items_[i].value[static_cast<size_t>(w)] = Value(ctx, ids[i], info, links, w, SpanNow(w));
    }
    for (JobId id : growers_) {
      const int top = std::min(Info(ctx, id).max_workers - ctx.job(id).num_devices(), capacity);
      items_.emplace_back();
      GrowthItem(ctx, id, links, top, &items_.back());
    }
    const gadget::Allocation alloc = gadget::GreedyAllocate(items_, capacity);
    for (size_t g = 0; g < growers_.size(); ++g) {
      const int extra = alloc.workers[ids.size() + g];
      if (extra > 0) Grow(ctx, growers_[g], links, ctx.job(growers_[g]).num_devices() + extra);
    }
    // 3. Embedding, widest rings first (ties: list order), with the shrink check.
    std::vector<size_t> order;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (alloc.workers[i] > 0) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return alloc.workers[a] > alloc.workers[b]; });
    for (size_t i : order) {
      const JobId id = ids[i];
      const JobInfo& info = Info(ctx, id);
      int w = std::min(alloc.workers[i], state.free_of_type(type));
      if (w <= 0) continue;
      LoadFree(state, type, w);
      const double assumed = items_[i].value[static_cast<size_t>(alloc.workers[i])];
      double best = Value(ctx, id, info, links, w, SpanNow(w));
      if (best < assumed && opt_.elastic) {
        const int from = w;
        for (int v = from - 1; v >= info.min_workers; --v) {
          const double value = Value(ctx, id, info, links, v, SpanNow(v));
          if (value > best) {
            best = value;
            w = v;
          }
        }
      }
      if (ctx.TryStart(id, w, type)) Started(ctx, id);
    }
    // Work conservation: jobs worth nothing more (a met target) still have to finish; they take
    // what is left, in list order, at their submitted size or less.
    for (size_t i = 0; i < ids.size() && state.free_of_type(type) > 0; ++i) {
      const JobId id = ids[i];
      if (ctx.job(id).state != JobState::kPending || alloc.workers[i] > 0) continue;
      const bool worthless = std::all_of(items_[i].value.begin(), items_[i].value.end(), [](double v) { return v <= 0; });
      if (!worthless) continue;
      const JobInfo& info = Info(ctx, id);
      const int w = opt_.elastic ? std::min(info.submitted, state.free_of_type(type)) : info.submitted;
      if (ctx.TryStart(id, w, type)) Started(ctx, id);
    }
  }

  void Started(SchedContext& ctx, JobId id) {
    pending_.erase({ctx.job(id).spec->submit_time_s, id});
    running_.insert(id);
  }

  GadgetOptions opt_;
  std::set<std::pair<double, JobId>> pending_;  // (submit time, id)
  std::set<JobId> running_;                     // started by this policy and not finished
  double next_slot_s_ = 0;                      // the next re-allocation (realloc=true)
  std::vector<JobId> growers_;                  // scratch
  std::vector<gadget::RingCandidate> candidates_;
  std::map<JobId, JobInfo> jobs_;
  std::map<DeviceTypeId, TypeLinks> links_;
  std::vector<NodeId> nodes_;  // scratch
  std::vector<int> prefix_;
  std::vector<gadget::AllocItem> items_;
};

Result<std::unique_ptr<JobScheduler>> MakeGadget(const Options& options) {
  GadgetOptions opt;
  const std::string objective = options.GetString("objective", "jct");
  if (objective == "jct") {
    opt.objective = RingObjective::kCompletionTime;
  } else if (objective == "target") {
    opt.objective = RingObjective::kTarget;
  } else if (objective == "energy") {
    opt.objective = RingObjective::kEnergy;
  } else if (objective == "fairness") {
    opt.objective = RingObjective::kFairness;
  } else {
    return Status::InvalidArgument("policy 'gadget': option 'objective' must be jct, target, energy or fairness, got '" +
                                   objective + "'");
  }
  HETSCHED_ASSIGN_OR_RETURN(opt.max_scale, options.GetDouble("max_scale", 1));
  HETSCHED_ASSIGN_OR_RETURN(opt.elastic, options.GetBool("elastic", true));
  HETSCHED_ASSIGN_OR_RETURN(opt.alpha, options.GetDouble("alpha", 1));
  HETSCHED_ASSIGN_OR_RETURN(opt.energy_weight, options.GetDouble("energy_weight", 0.5));
  HETSCHED_ASSIGN_OR_RETURN(opt.target_fraction, options.GetDouble("target_fraction", 1));
  HETSCHED_ASSIGN_OR_RETURN(opt.min_fraction, options.GetDouble("min_fraction", 0.5));
  if (!(opt.min_fraction > 0 && opt.min_fraction <= 1)) {
    return Status::InvalidArgument("policy 'gadget': option 'min_fraction' must be in (0, 1]");
  }
  HETSCHED_ASSIGN_OR_RETURN(const long long window, options.GetInt("window", 100));
  if (!(opt.max_scale >= 1 && opt.max_scale <= 16)) {
    return Status::InvalidArgument("policy 'gadget': option 'max_scale' must be in [1, 16]");
  }
  if (!(opt.alpha >= 0)) return Status::InvalidArgument("policy 'gadget': option 'alpha' must be >= 0");
  if (!(opt.energy_weight >= 0 && opt.energy_weight <= 1)) {
    return Status::InvalidArgument("policy 'gadget': option 'energy_weight' must be in [0, 1]");
  }
  if (!(opt.target_fraction > 0 && opt.target_fraction <= 1)) {
    return Status::InvalidArgument("policy 'gadget': option 'target_fraction' must be in (0, 1]");
  }
  if (window < 1) return Status::InvalidArgument("policy 'gadget': option 'window' must be >= 1");
  HETSCHED_ASSIGN_OR_RETURN(opt.realloc, options.GetBool("realloc", true));
  HETSCHED_ASSIGN_OR_RETURN(opt.slot_s, options.GetDouble("slot", 600));
  HETSCHED_ASSIGN_OR_RETURN(opt.horizon_s, options.GetDouble("horizon", 3600));
  if (!(opt.slot_s >= 1 && opt.slot_s <= 1e7)) {
    return Status::InvalidArgument("policy 'gadget': option 'slot' must be in [1, 1e7] seconds");
  }
  if (!(opt.horizon_s > 0 && opt.horizon_s <= 1e9)) {
    return Status::InvalidArgument("policy 'gadget': option 'horizon' must be in (0, 1e9] seconds");
  }
  opt.window = static_cast<int>(window);
  return std::unique_ptr<JobScheduler>(std::make_unique<GadgetScheduler>(opt));
}

const MethodInfo kGadgetInfo{
    "gadget",
    "ring-all-reduce jobs: greedy worker allocation by marginal utility (1/2-approx.), ring embedding by the placer",
    "[REC] GADGET (Yu et al., IEEE INFOCOM 2022), reconstructed from the abstract: docs/gadget.md"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kGadgetRegistered, kGadgetInfo, MakeGadget)

}  // namespace hetsched
