// Sia's scheduling policy as its simulator runs it [SRC: Jayaram Subramanya et al., SOSP 2023,
// sec. 3-4; siasosp23/artifacts, sia-simulator/sia.py, cluster.py:340-430, job.py:240-260 (no
// licence: behaviour reproduced, nothing copied)]: every `round` seconds (60) while jobs are
// active, an integer program (sia_problem.h, CBC) gives each job at most one configuration, GPUs
// of one node group on whole nodes or within one node, for the least sum of each job's
// normalised goodput to the power p (-0.5) plus lambda_n (1.1) per job left without GPUs. A job's
// goodputs come from what it reports of itself (SchedContext::goodput_job with its model): its
// goodput at the batch it would pick within its largest batch (the user's batch size when it has
// one, as Sia's job.py:253-255 passes it; else its application's); a job that has not measured
// itself yet may have one GPU. Its GPUs range from 1 to twice the most it has measured itself on
// (at most 64, its largest batch over its smallest local batch, and its application's own limit).
// A job whose configuration changes pays the re-allocation factor on every other configuration
// (restart penalty per application, sia.py:22-34); one still in its checkpoint-restore delay
// keeps its configuration. Placement: a job whose configuration stays keeps its nodes (Sia's
// simulator re-packs every job each round with its fast placer, sia.py:155-204, but compares a
// job's GPUs per node, not its nodes: a job moved in the same shape neither restarts nor pays its
// delay there, cluster.py:185-216, job.py:526-528; here a job cannot change nodes without
// restarting, so it stays); the others are placed by Sia's fast placer around them.
// `placement=fast` re-packs every job and restarts those whose nodes change.
//
// Beyond Sia's simulator [REC]: a job that is not a goodput job, or is not elastic, is one of
// Sia's rigid jobs: its requested GPUs on any node group of a type it allows, each worth its GPU
// count (Sia scales rigid jobs' throughputs across types by the profiles' ratios, which only
// goodput jobs have here). A goodput job has a model per GPU type it was profiled on, as in Sia,
// and a type it has not run on borrows a model by projection (`project`, on: Sia's experiments run
// with --project_throughputs and --share_max_replicas, its run_experiment.sh). sia-plus's parts
// (docs/goodput.md, "sia-plus"): elastic resizes, priced moves, a prior start, hand-overs, split
// jobs (split_jobs.h: after the placements, long running jobs borrow idle GPUs of a second type
// where their own prediction says it pays, given back as soon as a round places another job there
// or their timings say it did not pay), and jobs starting from their application's history
// (JobScheduler::shares_application_history).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/perf/goodput.h"
#include "hetsched/policies/pollux/common.h"
#include "hetsched/policies/sia/sia_problem.h"
#include "hetsched/policies/sia/split_jobs.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

using sia_internal::NodeGroup;
using sia_internal::SiaConfig;
using sia_internal::SiaJobRow;
using sia_internal::SiaOption;

struct SiaPolicySettings {
  double round_s = 60;
  double restart_penalty_s = -1;  // < 0: Sia's per-application table
  bool keep_placements = true;    // a job whose configuration stays keeps its nodes; false: all re-packed each round
  bool batch_from_job = true;     // GoodputRowSettings
  bool project = true;
  sia_internal::SiaSettings solve;
  // sia-plus's parts [REC] (all off: Sia):
  bool resize_elastic = false;  // a change inside the job's own group resizes it (SchedContext::ResizeOn)
  bool priced_moves = false;    // PricedFactor with the change's own price, no young job exempt
  bool prior_start = false;     // PriorOptions before a job has measured itself
  bool hand_over = false;       // a move off its nodes hands the job over (SchedContext::HandOver)
  bool split = false;           // running jobs borrow idle GPUs of a second type (split_jobs.h)
  double split_per_own = 1;     // at most this many borrowed GPUs per GPU of its own
  double split_min_left_rounds = 10;  // only a job with at least this many rounds left borrows
  double split_gain = 0.1;      // only where the job predicts this much more goodput split than alone
  bool history = false;         // jobs start from their application's history (shares_application_history)
  std::string name = "sia";
};

class Sia final : public JobScheduler {
 public:
  explicit Sia(const SiaPolicySettings& s) : s_(s), grid_(s.round_s) {}

  std::string_view name() const override { return s_.name; }
  double round_period_s() const override { return s_.round_s; }
  bool adapts_batch_sizes() const override { return true; }
  bool shares_application_history() const override { return s_.history; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    const JobId id = job.spec->id;
    active_.erase(std::remove(active_.begin(), active_.end(), id), active_.end());
    previous_.erase(id);
    nodes_of_.erase(id);
    split_lost_.erase(id);
  }
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }
  void OnJobRunning(const JobStatus& job, SchedContext& /*ctx*/) override { Add(job.spec->id); }

  void Schedule(SchedContext& ctx) override {
    if (!grid_.Due(ctx, !active_.empty())) return;
    if (active_.empty()) return;
    if (groups_.empty()) {
      groups_ = sia_internal::GroupNodes(ctx.cluster());
      configs_ = sia_internal::Configurations(groups_);
      node_group_.assign(static_cast<size_t>(ctx.cluster().num_nodes()), -1);
      index_in_group_.assign(static_cast<size_t>(ctx.cluster().num_nodes()), -1);
      for (size_t g = 0; g < groups_.size(); ++g) {
        for (size_t k = 0; k < groups_[g].nodes.size(); ++k) {
          node_group_[static_cast<size_t>(groups_[g].nodes[k])] = static_cast<int>(g);
          index_in_group_[static_cast<size_t>(groups_[g].nodes[k])] = static_cast<int>(k);
        }
      }
    }
    std::vector<SiaJobRow> rows(active_.size());
    for (size_t j = 0; j < active_.size(); ++j) {
      if (!Describe(ctx, active_[j], &rows[j])) return;  // a fault, kept in the context
    }
    // Each group's GPUs: those free and those the active jobs hold.
    const std::vector<int> node_gpus = pollux_internal::RoundNodeGpus(ctx, active_);
    std::vector<int> capacity;
    for (const NodeGroup& g : groups_) {
      int sum = 0;
      for (NodeId n : g.nodes) sum += node_gpus[static_cast<size_t>(n)];
      capacity.push_back(sum);
    }
    Result<std::vector<int>> choice = sia_internal::SolveRound(capacity, rows, s_.solve);
    if (!choice.ok()) {
      ctx.Fail(choice.status().WithContext("policy 'sia' at " + std::to_string(ctx.now()) + " s"));
      return;
    }
    Apply(ctx, rows, *choice, node_gpus);
    grid_.Next(ctx, !active_.empty());
  }

 private:
  void Add(JobId id) {
    if (std::find(active_.begin(), active_.end(), id) == active_.end()) active_.push_back(id);
  }

  bool Describe(SchedContext& ctx, JobId id, SiaJobRow* row) {
    const Cluster& cluster = ctx.cluster();
    const JobStatus& st = ctx.job(id);
    const JobSpec& spec = *st.spec;
    std::vector<bool> allowed(groups_.size());
    for (size_t g = 0; g < groups_.size(); ++g) allowed[g] = spec.AllowsType(groups_[g].type, cluster.device_catalog());
    std::optional<GoodputJobView> view = ctx.goodput_job(id, /*with_model=*/true);
    if (ctx.failed()) return false;
    const double age = ctx.now() - spec.submit_time_s;
    const int restarts = view ? view->restarts : 0;
    std::string application = view && view->application ? view->application->name() : spec.model;
    double penalty = s_.restart_penalty_s >= 0 ? s_.restart_penalty_s : sia_internal::RestartPenalty(application);
    if (s_.priced_moves && s_.restart_penalty_s < 0 && view && view->application->restart_delay_s() > 0) {
      penalty = view->application->restart_delay_s();  // what a restart costs it, as its application declares
    }
    // A move is still weighed at the restart's price where it can be handed over: weighed at the
    // hand-over's, the program moved jobs more often than the cheaper moves paid for
    // (docs/goodput.md, "sia-plus").
    row->hand_over = s_.hand_over && st.state == JobState::kRunning && spec.elastic &&
                     std::isfinite(HandOverProbeS(ctx, id));
    row->realloc_factor = s_.priced_moves ? sia_internal::PricedFactor(age, restarts, penalty)
                                          : sia_internal::ReallocFactor(age, restarts, penalty);
    row->hold = view && view->delay_left_s > 0;
    row->elastic_group = -1;
    if (s_.resize_elastic && st.state == JobState::kRunning && spec.elastic) {
      const double pause = ElasticPauseS(ctx, id);
      if (std::isfinite(pause)) {
        row->elastic_group = node_group_[static_cast<size_t>(cluster.device(st.devices.front()).node)];
        row->elastic_factor = sia_internal::PricedFactor(age, restarts, pause);
      }
    }
    if (!view || !spec.elastic) {
      for (size_t g = 0; g < groups_.size(); ++g) {
        const int total = groups_[g].gpus_per_node * static_cast<int>(groups_[g].nodes.size());
        if (allowed[g] && spec.num_gpus <= total) row->options.push_back({static_cast<int>(g), spec.num_gpus, double(spec.num_gpus)});
      }
    } else {
      sia_internal::GoodputRowSettings rs;
      rs.batch_from_job = s_.batch_from_job;
      rs.project = s_.project;
      row->options = s_.prior_start && !view->grad.has_value()
                         ? sia_internal::PriorOptions(*view, groups_, configs_, allowed, spec.num_gpus)
                         : sia_internal::GoodputOptions(*view, groups_, configs_, allowed, rs);
    }
    row->previous = -1;
    if (auto it = previous_.find(id); it != previous_.end()) {
      for (size_t o = 0; o < row->options.size(); ++o) {
        if (row->options[o].group == it->second.group && row->options[o].gpus == it->second.gpus) {
          row->previous = static_cast<int>(o);
        }
      }
    }
    if (row->previous < 0) row->hold = false;
    return true;
  }

  // What a change of the job inside its type costs it at the back end's price: a shrink by one GPU,
  // or a growth by one free GPU of its nodes' type; infinity where the back end cannot resize it.
  static double ElasticPauseS(SchedContext& ctx, JobId id) {
    std::vector<DeviceId> devices = ctx.job(id).devices;
    if (devices.size() >= 2) {
      devices.pop_back();
      return ctx.ResizePauseS(id, devices);
    }
    const DeviceTypeId type = ctx.cluster().device(devices.front()).type;
    std::vector<DeviceId> free;
    for (NodeId n : ctx.state().nodes_of_type(type)) {
      if (ctx.state().free_on_node(n) == 0) continue;
      ctx.state().AppendFreeDevices(n, &free);
      devices.push_back(free.front());
      return ctx.ResizePauseS(id, devices);
    }
    return kInf;
  }

  // What a hand-over costs the job: to as many devices on nodes it does not use (the joint ring
  // crosses nodes wherever it goes); infinity where the back end cannot, or no such devices exist.
  static double HandOverProbeS(SchedContext& ctx, JobId id) {
    const Cluster& cluster = ctx.cluster();
    const std::vector<DeviceId>& own = ctx.job(id).devices;
    std::vector<bool> used(static_cast<size_t>(cluster.num_nodes()), false);
    for (DeviceId d : own) used[static_cast<size_t>(cluster.device(d).node)] = true;
    std::vector<DeviceId> probe;
    for (DeviceId d = 0; d < cluster.num_devices() && probe.size() < own.size(); ++d) {
      if (!used[static_cast<size_t>(cluster.device(d).node)]) probe.push_back(d);
    }
    return probe.size() == own.size() ? ctx.HandOverPauseS(id, probe) : kInf;
  }

  // Each job's GPUs as node lists (one node per GPU), then the moves: jobs whose list changed are
  // stopped (or, resizing elastically, resized; or, moving off its nodes, handed over) and started
  // on theirs.
  void Apply(SchedContext& ctx, const std::vector<SiaJobRow>& rows, const std::vector<int>& choice,
             const std::vector<int>& node_gpus) {
    const size_t num_jobs = active_.size();
    std::vector<std::vector<NodeId>> lists(num_jobs);
    std::vector<int> room = node_gpus;
    std::vector<bool> kept(num_jobs, false), resized(num_jobs, false);
    auto running = [&](size_t j) { return ctx.job(active_[j]).state == JobState::kRunning; };
    if (s_.keep_placements) {
      for (size_t j = 0; j < num_jobs; ++j) {
        auto it = nodes_of_.find(active_[j]);
        if (choice[j] < 0 || choice[j] != rows[j].previous || it == nodes_of_.end() || !running(j)) continue;
        kept[j] = true;
        lists[j] = it->second;
        for (NodeId n : lists[j]) --room[static_cast<size_t>(n)];
      }
    }
    std::vector<size_t> resize_order;  // shrinks, then growths
    if (s_.resize_elastic) resize_order = PlanResizes(ctx, rows, choice, kept, &room, &lists, &resized);
    for (size_t g = 0; g < groups_.size(); ++g) {
      std::vector<size_t> members;
      std::vector<int> gpus;
      for (size_t j = 0; j < num_jobs; ++j) {
        if (choice[j] < 0 || kept[j] || resized[j]) continue;
        const SiaOption& opt = rows[j].options[static_cast<size_t>(choice[j])];
        if (opt.group != static_cast<int>(g)) continue;
        members.push_back(j);
        gpus.push_back(opt.gpus);
      }
      if (members.empty()) continue;
      std::vector<int> free;
      for (NodeId n : groups_[g].nodes) free.push_back(room[static_cast<size_t>(n)]);
      const std::vector<std::vector<int>> placed = sia_internal::PlaceFast(gpus, std::move(free));
      for (size_t k = 0; k < members.size(); ++k) {
        for (int local : placed[k]) lists[members[k]].push_back(groups_[g].nodes[static_cast<size_t>(local)]);
      }
    }
    // Split jobs that stay give back what the lists place others on, before anything starts there.
    std::vector<bool> stays(num_jobs, false);
    for (size_t j = 0; j < num_jobs; ++j) {
      auto it = nodes_of_.find(active_[j]);
      stays[j] = running(j) && (kept[j] || (!resized[j] && it != nodes_of_.end() && it->second == lists[j]));
    }
    if (s_.split && !GiveBack(ctx, lists, node_gpus, stays)) return;
    std::vector<size_t> to_start, hand_overs;
    std::vector<bool> to_resize(num_jobs, false);
    for (size_t j = 0; j < num_jobs; ++j) {
      const JobId id = active_[j];
      if (choice[j] >= 0) {
        const SiaOption& opt = rows[j].options[static_cast<size_t>(choice[j])];
        previous_[id] = Chosen{opt.group, opt.gpus};
      } else {
        previous_.erase(id);
      }
      auto it = nodes_of_.find(id);
      if (running(j) && it != nodes_of_.end() && it->second == lists[j]) continue;
      nodes_of_[id] = lists[j];
      if (resized[j]) {
        to_resize[j] = true;
        continue;
      }
      if (running(j) && rows[j].hand_over && !lists[j].empty() && OffItsNodes(ctx, id, lists[j])) {
        hand_overs.push_back(j);
        continue;
      }
      if (running(j)) ctx.Preempt(id);
      if (!lists[j].empty()) to_start.push_back(j);
    }
    // Shrinks before growths (PlanResizes' order), each onto its own devices and free ones; a
    // resize the back end refuses becomes a restart on the same nodes.
    for (size_t j : resize_order) {
      if (!to_resize[j]) continue;
      const JobId id = active_[j];
      const std::vector<DeviceId> devices = ResizedDevices(ctx, id, lists[j]);
      if (!devices.empty() && ctx.ResizeOn(id, devices)) continue;
      if (ctx.failed()) return;
      ctx.Preempt(id);
      to_start.push_back(j);
    }
    // Hand-overs, once their new devices are free: a job waits for others to leave them; where
    // none can move (a cycle), the first restarts.
    while (!hand_overs.empty()) {
      std::vector<size_t> waiting;
      for (size_t j : hand_overs) {
        const std::vector<DeviceId> devices = FreeDevicesFor(ctx, Want(lists[j]));
        if (!devices.empty() && ctx.HandOver(active_[j], devices)) continue;
        if (ctx.failed()) return;
        waiting.push_back(j);
      }
      if (waiting.size() == hand_overs.size()) {
        ctx.Preempt(active_[waiting.front()]);
        to_start.push_back(waiting.front());
        waiting.erase(waiting.begin());
      }
      hand_overs = std::move(waiting);
    }
    // A job whose GPUs are not all free yet (the Slurm agent) waits for the next round.
    for (size_t j : to_start) {
      const std::vector<DeviceId> devices = FreeDevicesFor(ctx, Want(lists[j]));
      if (devices.empty()) {
        nodes_of_.erase(active_[j]);
        continue;
      }
      ctx.StartOn(active_[j], devices);
      if (ctx.failed()) return;
    }
    if (s_.split) Lend(ctx, stays);
  }

  // sia-plus's split jobs (split_jobs.h): a job that stays this round gives back the GPUs of its
  // second type that the round's `lists` need, or that its split did not pay for (SplitLost: it
  // borrows no more), in an elastic shrink onto its own; `node_gpus` as Schedule counted them.
  // False on a back-end fault.
  bool GiveBack(SchedContext& ctx, const std::vector<std::vector<NodeId>>& lists, const std::vector<int>& node_gpus,
                const std::vector<bool>& stays) {
    std::vector<int> left = node_gpus;
    for (const std::vector<NodeId>& list : lists) {
      for (NodeId n : list) --left[static_cast<size_t>(n)];
    }
    for (size_t j = 0; j < active_.size(); ++j) {
      const std::vector<DeviceId>& devices = ctx.job(active_[j]).devices;
      if (!stays[j]) continue;
      const std::vector<DeviceId> own = sia_internal::FirstTypeDevices(ctx.cluster(), devices);
      if (own.size() == devices.size()) continue;
      bool give_back = sia_internal::MustGiveBack(ctx.cluster(), devices, &left);
      if (!give_back) {
        std::optional<GoodputJobView> view = ctx.goodput_job(active_[j], /*with_model=*/true);
        if (ctx.failed()) return false;
        if (view && sia_internal::SplitLost(ctx.cluster(), *view, devices)) {
          give_back = true;
          split_lost_.insert(active_[j]);
        }
      }
      if (give_back && !ctx.ResizeOn(active_[j], own) && ctx.failed()) return false;
    }
    return true;
  }

  // Then the jobs that stay on one type, with the longest time left first, borrow idle GPUs of
  // another: adaptive elastic goodput jobs with a model, past their delay, with at least
  // split_min_left_rounds rounds left (a loan costs a re-rendezvous to take and one to give back),
  // whose own prediction (PredictLoan) gains at least split_gain on those GPUs, and whose split
  // has not failed them before.
  void Lend(SchedContext& ctx, const std::vector<bool>& stays) {
    const Cluster& cluster = ctx.cluster();
    struct Candidate {
      double left_s;
      size_t j;
      GoodputJobView view;
    };
    std::vector<Candidate> order;
    for (size_t j = 0; j < active_.size(); ++j) {
      const JobStatus& st = ctx.job(active_[j]);
      if (!stays[j] || !st.spec->elastic || st.devices.empty() || split_lost_.count(active_[j]) > 0) continue;
      if (sia_internal::FirstTypeDevices(cluster, st.devices).size() != st.devices.size()) continue;  // split already
      std::optional<GoodputJobView> view = ctx.goodput_job(active_[j], /*with_model=*/true);
      if (ctx.failed()) return;
      if (!view || !view->adaptive || !view->grad.has_value() || view->delay_left_s > 0) continue;
      const double left_s = sia_internal::RemainingS(st, *view);
      if (left_s >= s_.split_min_left_rounds * s_.round_s) order.push_back({left_s, j, std::move(*view)});
    }
    std::stable_sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) { return a.left_s > b.left_s; });
    for (const Candidate& c : order) {
      const JobStatus& st = ctx.job(active_[c.j]);
      const std::vector<DeviceId> devices =
          sia_internal::BorrowIdle(cluster, ctx.state(), groups_, *st.spec, c.view, st.devices, s_.split_per_own);
      if (devices.empty()) continue;
      const sia_internal::LoanPrediction p =
          sia_internal::PredictLoan(cluster, c.view, ctx.zoo().Find(st.spec->model), devices);
      if (!(p.alone > 0) || !(p.split >= (1 + s_.split_gain) * p.alone)) continue;
      if (!ctx.ResizeOn(active_[c.j], devices) && ctx.failed()) return;
    }
  }

  // A node list (one node per GPU) as (node, GPUs) runs.
  static std::vector<std::pair<NodeId, int>> Want(const std::vector<NodeId>& list) {
    std::vector<std::pair<NodeId, int>> want;
    for (NodeId n : list) {
      if (want.empty() || want.back().first != n) want.emplace_back(n, 0);
      ++want.back().second;
    }
    return want;
  }

  // Whether `list` uses none of the nodes the job runs on (a hand-over takes only free devices).
  static bool OffItsNodes(const SchedContext& ctx, JobId id, const std::vector<NodeId>& list) {
    const Cluster& cluster = ctx.cluster();
    for (DeviceId d : ctx.job(id).devices) {
      if (std::find(list.begin(), list.end(), cluster.device(d).node) != list.end()) return false;
    }
    return true;
  }

  // sia-plus: the running jobs whose new configuration is in the group they run in change there
  // elastically where ResizeWithin finds GPUs (shrinks first, then growths by most GPUs); the
  // others are placed afresh.
  // Returns the jobs resized, in that order.
  std::vector<size_t> PlanResizes(SchedContext& ctx, const std::vector<SiaJobRow>& rows, const std::vector<int>& choice,
                   const std::vector<bool>& kept, std::vector<int>* room, std::vector<std::vector<NodeId>>* lists,
                   std::vector<bool>* resized) {
    const Cluster& cluster = ctx.cluster();
    std::vector<size_t> shrinks, grows;
    for (size_t j = 0; j < active_.size(); ++j) {
      if (choice[j] < 0 || kept[j] || rows[j].elastic_group < 0 || choice[j] == rows[j].previous) continue;
      const SiaOption& opt = rows[j].options[static_cast<size_t>(choice[j])];
      if (opt.group != rows[j].elastic_group) continue;
      // Its own GPUs (a split job's first type's; the borrowed ones go in the change).
      const int holds = static_cast<int>(sia_internal::FirstTypeDevices(cluster, ctx.job(active_[j]).devices).size());
      (opt.gpus < holds ? shrinks : grows).push_back(j);
    }
    auto gpus_of = [&](size_t j) { return rows[j].options[static_cast<size_t>(choice[j])].gpus; };
    std::stable_sort(grows.begin(), grows.end(), [&](size_t a, size_t b) { return gpus_of(a) > gpus_of(b); });
    shrinks.insert(shrinks.end(), grows.begin(), grows.end());
    std::vector<size_t> order;
    for (size_t j : shrinks) {
      const SiaOption& opt = rows[j].options[static_cast<size_t>(choice[j])];
      const NodeGroup& g = groups_[static_cast<size_t>(opt.group)];
      std::vector<int> held(g.nodes.size(), 0), free(g.nodes.size(), 0);
      for (DeviceId d : ctx.job(active_[j]).devices) {
        const NodeId node = cluster.device(d).node;
        if (node_group_[static_cast<size_t>(node)] == opt.group) ++held[static_cast<size_t>(index_in_group_[static_cast<size_t>(node)])];
      }
      // `room` counts the active jobs' GPUs as free, this job's too.
      for (size_t k = 0; k < g.nodes.size(); ++k) free[k] = (*room)[static_cast<size_t>(g.nodes[k])] - held[k];
      const int max_nodes = opt.gpus <= g.gpus_per_node ? 1 : (opt.gpus + g.gpus_per_node - 1) / g.gpus_per_node;
      const std::vector<int> counts = sia_internal::ResizeWithin(held, free, opt.gpus, max_nodes);
      if (counts.empty()) continue;
      (*resized)[j] = true;
      order.push_back(j);
      for (size_t k = 0; k < g.nodes.size(); ++k) {
        (*room)[static_cast<size_t>(g.nodes[k])] -= counts[k];
        (*lists)[j].insert((*lists)[j].end(), static_cast<size_t>(counts[k]), g.nodes[k]);
      }
    }
    return order;
  }

  // The devices of an elastic change to `list` (one node per GPU): on each node, the job's own
  // devices first, then free ones; empty where a node lacks free devices (the Slurm agent frees a
  // preempted job's later).
  static std::vector<DeviceId> ResizedDevices(const SchedContext& ctx, JobId id, const std::vector<NodeId>& list) {
    const Cluster& cluster = ctx.cluster();
    const std::vector<DeviceId>& own = ctx.job(id).devices;
    std::vector<DeviceId> out;
    for (size_t i = 0; i < list.size();) {
      const NodeId node = list[i];
      size_t want = 0;
      while (i < list.size() && list[i] == node) ++want, ++i;
      for (DeviceId d : own) {
        if (want > 0 && cluster.device(d).node == node) out.push_back(d), --want;
      }
      std::vector<DeviceId> free;
      ctx.state().AppendFreeDevices(node, &free);
      for (DeviceId d : free) {
        if (want > 0) out.push_back(d), --want;
      }
      if (want > 0) return {};
    }
    return out;
  }

  struct Chosen {
    int group = 0, gpus = 0;
  };

  SiaPolicySettings s_;
  pollux_internal::RoundGrid grid_;
  std::vector<NodeGroup> groups_;
  std::vector<SiaConfig> configs_;
  std::vector<int> node_group_;            // each node's group
  std::vector<int> index_in_group_;        // each node's index in its group's node list
  std::vector<JobId> active_;              // submitted, not finished, in arrival order
  std::map<JobId, Chosen> previous_;       // each job's option last round
  std::map<JobId, std::vector<NodeId>> nodes_of_;  // the placer's node list it was started on
  std::set<JobId> split_lost_;             // split jobs whose split did not pay (SplitLost): no more loans
};

// The options both policies read; `s` holds the policy's defaults and its name.
Status ReadSiaOptions(const Options& options, SiaPolicySettings& s) {
  const std::string who = "policy '" + s.name + "': ";
  HETSCHED_ASSIGN_OR_RETURN(s.round_s, options.GetDouble("round", 60));
  HETSCHED_ASSIGN_OR_RETURN(s.solve.p, options.GetDouble("p", -0.5));
  HETSCHED_ASSIGN_OR_RETURN(s.solve.lambda_n, options.GetDouble("lambda_n", 1.1));
  HETSCHED_ASSIGN_OR_RETURN(s.restart_penalty_s, options.GetDouble("restart_penalty", -1));
  HETSCHED_ASSIGN_OR_RETURN(s.solve.relative_gap, options.GetDouble("gap", 1e-4));
  const std::string max_batch = options.GetString("max_batch", "job");
  if (max_batch != "job" && max_batch != "application") {
    return Status::InvalidArgument(who + "option 'max_batch' must be 'job' (Sia: the user's batch size caps the goodputs it "
                                   "weighs) or 'application' (its application's largest batch, as Pollux)");
  }
  s.batch_from_job = max_batch == "job";
  const std::string placement = options.GetString("placement", s.keep_placements ? "keep" : "fast");
  if (placement != "fast" && placement != "keep") {
    return Status::InvalidArgument(who + "option 'placement' must be 'keep' (a job whose configuration stays keeps its "
                                   "nodes) or 'fast' (every job re-packed each round, those moved restarted)");
  }
  s.keep_placements = placement == "keep";
  HETSCHED_ASSIGN_OR_RETURN(s.project, options.GetBool("project", true));
  if (!(s.round_s > 0) || !std::isfinite(s.round_s)) {
    return Status::InvalidArgument(who + "option 'round' must be > 0 seconds");
  }
  if (!(s.solve.p < 0) || !std::isfinite(s.solve.p)) {
    return Status::InvalidArgument(who + "option 'p' must be < 0 (Sia minimises goodput^p; Sia's value: -0.5)");
  }
  if (!(s.solve.lambda_n >= 0) || !std::isfinite(s.solve.lambda_n)) {
    return Status::InvalidArgument(who + "option 'lambda_n' must be >= 0");
  }
  if (!std::isfinite(s.restart_penalty_s)) {
    return Status::InvalidArgument(who + "option 'restart_penalty' must be seconds (< 0: Sia's per-application table)");
  }
  if (!(s.solve.relative_gap >= 0 && s.solve.relative_gap < 1)) {
    return Status::InvalidArgument(who + "option 'gap' must be in [0, 1)");
  }
  return Status::Ok();
}

// A choice between two words, `on` setting the part.
Status ReadPart(const Options& options, const std::string& who, const std::string& key, const std::string& on,
                const std::string& off, bool* part) {
  const std::string v = options.GetString(key, *part ? on : off);
  if (v != on && v != off) {
    return Status::InvalidArgument(who + "option '" + key + "' must be '" + on + "' or '" + off + "', got '" + v + "'");
  }
  *part = v == on;
  return Status::Ok();
}

Result<std::unique_ptr<JobScheduler>> MakeSia(const Options& options) {
  SiaPolicySettings s;
  HETSCHED_RETURN_IF_ERROR(ReadSiaOptions(options, s));
  return std::unique_ptr<JobScheduler>(std::make_unique<Sia>(s));
}

Result<std::unique_ptr<JobScheduler>> MakeSiaPlus(const Options& options) {
  SiaPolicySettings s;
  s.name = "sia-plus";
  // start=prior: measured no gain beside elastic resizes; history: -6%, split beside it -2% average
  // JCT on Sia's workloads (docs/goodput.md, "sia-plus").
  s.resize_elastic = s.priced_moves = s.hand_over = s.split = s.history = true;
  HETSCHED_RETURN_IF_ERROR(ReadSiaOptions(options, s));
  const std::string who = "policy 'sia-plus': ";
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "resize", "elastic", "restart", &s.resize_elastic));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "moves", "priced", "sia", &s.priced_moves));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "start", "prior", "one", &s.prior_start));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "handover", "on", "off", &s.hand_over));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "split", "on", "off", &s.split));
  HETSCHED_RETURN_IF_ERROR(ReadPart(options, who, "history", "on", "off", &s.history));
  HETSCHED_ASSIGN_OR_RETURN(s.split_per_own, options.GetDouble("split_per_own", s.split_per_own));
  HETSCHED_ASSIGN_OR_RETURN(s.split_min_left_rounds, options.GetDouble("split_min_left", s.split_min_left_rounds));
  HETSCHED_ASSIGN_OR_RETURN(s.split_gain, options.GetDouble("split_gain", s.split_gain));
  if (!(s.split_gain >= 0) || !std::isfinite(s.split_gain)) {
    return Status::InvalidArgument(who + "option 'split_gain' must be a finite number >= 0 (the predicted gain a loan needs, 0.1: 10%)");
  }
  if (!(s.split_per_own >= 0) || !std::isfinite(s.split_per_own)) {
    return Status::InvalidArgument(who + "option 'split_per_own' must be >= 0 (borrowed GPUs per GPU of its own)");
  }
  if (!(s.split_min_left_rounds >= 0) || !std::isfinite(s.split_min_left_rounds)) {
    return Status::InvalidArgument(who + "option 'split_min_left' must be >= 0 rounds");
  }
  return std::unique_ptr<JobScheduler>(std::make_unique<Sia>(s));
}

const MethodInfo kSiaInfo{
    "sia",
    "Sia: each job's GPU type, count and batch size for goodput, an integer program each round",
    "[SRC] Jayaram Subramanya et al., SOSP 2023; siasosp23/artifacts sia-simulator/sia.py (CBC, p = -0.5, lambda_n = 1.1, "
    "goodputs per GPU type, projected onto types a job has not run on); "
    "[REC] non-goodput jobs as rigid"};

const MethodInfo kSiaPlusInfo{
    "sia-plus",
    "Sia's integer program with hetsched's parts: elastic resizes at their price, moves priced, a prior start, "
    "hand-overs and jobs split over two GPU types (resize=elastic|restart, moves=priced|sia, start=one|prior, "
    "handover=on|off, split=on|off with split_per_own=1, split_min_left=10 rounds and split_gain=0.1, "
    "history=on|off; all off: sia)",
    "[SRC] Sia's program (as 'sia'); [REC] the parts: elastic resizes inside a job's type priced by the back end "
    "(docs/elastic.md), re-allocations weighed at their own price, a first placement from the application's "
    "one-GPU throughputs up to the user's GPUs, moves to other nodes or types as elastic hand-overs, idle GPUs of "
    "a second type lent to long running jobs where their own prediction says it pays, jobs starting from what "
    "their application's earlier jobs measured (docs/goodput.md, \"sia-plus\", \"Split jobs\", \"History\")"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kSiaRegistered, kSiaInfo, MakeSia)
HETSCHED_REGISTER_IMPL(JobScheduler, kSiaPlusRegistered, kSiaPlusInfo, MakeSiaPlus)

}  // namespace hetsched
