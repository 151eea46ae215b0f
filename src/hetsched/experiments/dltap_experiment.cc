// Experiment "dltap" (E5 of ALGORITHMS.md 6.4): DLTAP against the placements a Kubernetes user
// meets (spread = the default scheduler, bin-pack, random) on a containerized cluster of
// low-end GPU servers, with three parameter-server workloads in the spirit of the paper's three
// benchmarks: a CNN image model (ResNet-50), a language model (the LSTM LM) and a CTR model
// with large embedding tables (Wide & Deep). Each workload: `jobs` jobs of 2 servers and 4-8
// workers (seeded draws), arriving in batches of 5 every `batch_gap_s` seconds, FIFO.
// Three measurements per workload and placer:
//   simulation: total cross-node bytes, average JCT, peak link utilisation (contention on);
//   static traffic: the jobs placed one after another on the empty cluster (none leaves) until
//     one does not fit; mean cross-node bytes per iteration of the jobs placed;
//   fragmentation at that point: the share of free GPUs that cannot take one more worker
//     because their node lacks the worker's CPU or memory.
// Outputs in ctx.out_dir: dltap.csv and dltap.txt. Results: docs/experiments/dltap.md.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "hetsched/experiments/experiment.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/model/cluster.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/container_plan.h"
#include "hetsched/sched/registry.h"
#include "hetsched/sim/runner.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/rng.h"

namespace hetsched {
namespace {

constexpr int64_t kGiB = 1073741824;
constexpr const char* kPlacers[] = {"dltap", "k8s-spread", "k8s-binpack", "k8s-random"};
// The row every ratio is taken against (a table column, not a dispatch on the method).
constexpr std::string_view kReferencePlacer = kPlacers[1];

struct WorkloadDef {
  const char* label;
  const char* model;
  int64_t ps_memory_gib;  // the CTR model's servers hold its embedding tables
  int batch;              // per worker
};
constexpr WorkloadDef kWorkloads[] = {
    {"cnn", "resnet50", 8, 32},
    {"lm", "lstm-lm", 8, 64},
    {"ctr", "wide-deep", 32, 512},
};

// `nodes` servers of 4 T4s, 16 cores, 64 GiB, 10 GbE, one rack (full bisection): the "low-end
// servers" of the paper's abstract.
Result<Cluster> MakeE5Cluster(int nodes) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  HETSCHED_ASSIGN_OR_RETURN(const DeviceTypeId t4, devices.Lookup("t4"));
  HETSCHED_ASSIGN_OR_RETURN(const LinkClassId pcie, links.Lookup(devices.type(t4).peer_link));
  HETSCHED_ASSIGN_OR_RETURN(const LinkClassId eth, links.Lookup("eth10"));
  Cluster cluster(&devices, &links);
  Rack rack;
  rack.name = "e5";
  rack.uplink = eth;  // one rack: the uplink is never crossed
  cluster.AddRack(rack);
  for (int i = 0; i < nodes; ++i) {
    Node node;
    node.name = fmt::format("c{}", i);
    node.device_type = t4;
    node.num_devices = 4;
    node.intra_link = pcie;
    node.nic = eth;
    node.cpu_cores = 16;
    node.host_memory_bytes = 64.0 * kGiB;
    cluster.AddNode(node);
  }
  HETSCHED_RETURN_IF_ERROR(cluster.Validate());
  return cluster;
}

Workload MakeE5Workload(const WorkloadDef& def, int jobs, double batch_gap_s, double iterations, uint64_t seed) {
  Workload w;
  w.source = fmt::format("e5-{}", def.label);
  Rng rng(seed);
  for (int i = 0; i < jobs; ++i) {
    Job j;
    JobSpec& s = j.spec;
    s.id = i;
    s.name = fmt::format("{}-{}", def.label, i);
    s.user = "e5";
    s.model = def.model;
    s.batch_size = def.batch;
    s.num_ps = 2;
    s.num_workers = 4 + static_cast<int>(rng.Below(5));  // 4..8
    s.ps_request = ContainerRequest{2000, def.ps_memory_gib * kGiB, 0};
    s.worker_request = ContainerRequest{3000, 8 * kGiB, 1};
    s.num_gpus = s.num_workers;
    s.parallelism = Parallelism::kDataPS;
    s.submit_time_s = static_cast<double>(i / 5) * batch_gap_s;
    s.iterations = static_cast<int64_t>(iterations * rng.Uniform(0.5, 1.5));
    j.truth.total_iterations = static_cast<double>(s.iterations);
    w.jobs.push_back(std::move(j));
  }
  return w;
}

struct StaticResult {
  int placed = 0;
  double cross_bytes_per_iteration = 0;  // mean over the jobs placed
  double fragmentation = 0;
};

// Places the jobs in order on the empty cluster (nobody leaves) until one does not fit.
Result<StaticResult> PlaceUntilFull(const Cluster& cluster, const ModelZoo& zoo, const Workload& w,
                                    const std::string& placer_name, uint64_t seed) {
  Options options;
  options.SetDefault("seed", std::to_string(seed));
  HETSCHED_ASSIGN_OR_RETURN(std::unique_ptr<Placer> placer, Registry<Placer>::Instance().Create(placer_name, options));
  ClusterState state(cluster);
  StaticResult r;
  double bytes = 0;
  const ContainerRequest* worker = nullptr;
  for (const Job& job : w.jobs) {
    worker = &job.spec.worker_request;
    std::vector<ContainerPlacement> containers;
    std::string reason;
    if (!placer->PlaceContainers(PlacementRequest{&job.spec, job.spec.num_gpus, kNoDeviceType}, state, &containers, &reason)) {
      break;
    }
    const ModelProfile* model = zoo.Find(job.spec.model);
    if (model == nullptr) return Status::NotFound("experiment dltap: model " + job.spec.model);
    HETSCHED_ASSIGN_OR_RETURN(const PlannedJob planned, PlanContainerJob(job.spec, *model, containers, cluster));
    HETSCHED_RETURN_IF_ERROR(state.AllocateContainers(job.spec.id, containers));
    bytes += planned.estimate.cross_node_bytes;
    ++r.placed;
  }
  r.cross_bytes_per_iteration = r.placed > 0 ? bytes / r.placed : 0;
  int free_gpus = 0, stranded = 0;
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    const int g = state.gpus_free(n);
    free_gpus += g;
    if (worker != nullptr && (state.cpu_free(n) < worker->cpu_millicores || state.memory_free(n) < worker->memory_bytes)) {
      stranded += g;
    }
  }
  r.fragmentation = free_gpus > 0 ? static_cast<double>(stranded) / free_gpus : 0.0;
  HETSCHED_RETURN_IF_ERROR(state.CheckConsistency());
  return r;
}

struct DltapRow {
  std::string workload, placer;
  Summary summary;
  StaticResult fill;
};

// "dltap moves X% fewer bytes across nodes than k8s-spread (simulated, mean over the
// workloads cnn, lm, ctr)", from the rows just computed.
std::string Headline(const std::vector<DltapRow>& rows) {
  double sum = 0;
  int n = 0;
  std::string names;
  for (const DltapRow& r : rows) {
    if (r.placer != std::string("dltap")) continue;
    for (const DltapRow& o : rows) {
      if (o.workload != r.workload || o.placer != kReferencePlacer || !(o.summary.cross_node_bytes > 0)) continue;
      sum += r.summary.cross_node_bytes / o.summary.cross_node_bytes;
      ++n;
      names += (names.empty() ? "" : ", ") + r.workload;
    }
  }
  if (n == 0) return "";
  const double saving = 100 * (1 - sum / n);
  return fmt::format("dltap moves {:.0f}% {} bytes across nodes than {} (simulated; mean ratio over the workloads {})",
                     std::abs(saving), saving >= 0 ? "fewer" : "more", kReferencePlacer, names);
}

}  // namespace

class DltapExperiment final : public Experiment {
 public:
  std::string_view name() const override { return "dltap"; }

  Status Run(ExperimentContext& ctx) override {
    HETSCHED_ASSIGN_OR_RETURN(const long long jobs, ctx.options.GetInt("jobs", ctx.quick ? 10 : 20));
    HETSCHED_ASSIGN_OR_RETURN(const long long nodes, ctx.options.GetInt("nodes", 8));
    HETSCHED_ASSIGN_OR_RETURN(const double gap_s, ctx.options.GetDouble("batch_gap_s", 600));
    HETSCHED_ASSIGN_OR_RETURN(const double iterations, ctx.options.GetDouble("iterations", ctx.quick ? 200 : 2000));
    if (jobs < 1 || nodes < 2 || nodes > 100000) {
      return Status::InvalidArgument("experiment dltap: options need jobs >= 1 and 2 <= nodes <= 100000");
    }
    if (!(gap_s >= 0) || !(iterations >= 1)) {
      return Status::InvalidArgument("experiment dltap: options need batch_gap_s >= 0 and iterations >= 1");
    }
    if (ctx.check_only) return Status::Ok();  // options read and checked: nothing run
    HETSCHED_ASSIGN_OR_RETURN(const Cluster cluster, MakeE5Cluster(static_cast<int>(nodes)));
    const ModelZoo& zoo = ModelZoo::BuiltIn();
    ctx.print(fmt::format("dltap (E5): {} (16 cores, 64 GiB each, 10 GbE); {} jobs per workload of 2 servers + "
                          "4-8 workers, batches of 5 every {:g} s, FIFO\n",
                          cluster.Summary(), jobs, gap_s));
    std::vector<MethodChoice> choices;
    for (const char* placer : kPlacers) {
      MethodChoice c;
      c.policy = "fifo";
      c.placer = placer;
      choices.push_back(std::move(c));
    }
    SimOptions sim;
    sim.seed = ctx.seed;
    std::vector<DltapRow> rows;
    for (const WorkloadDef& def : kWorkloads) {
      const Workload w = MakeE5Workload(def, static_cast<int>(jobs), gap_s, iterations, ctx.seed);
      sim.progress = PartProgress(ctx, static_cast<int>(&def - kWorkloads), static_cast<int>(std::size(kWorkloads)));
      auto results = RunMany(cluster, zoo, w, choices, sim, ctx.threads);
      for (size_t i = 0; i < results.size(); ++i) {
        if (!results[i].ok()) {
          return results[i].status().WithContext(fmt::format("experiment dltap: {} on {}", kPlacers[i], def.label));
        }
        HETSCHED_ASSIGN_OR_RETURN(const StaticResult fill, PlaceUntilFull(cluster, zoo, w, kPlacers[i], ctx.seed));
        HETSCHED_RETURN_IF_ERROR(WriteExperimentRun(ctx, def.label, kPlacers[i], *results[i]));
        rows.push_back(DltapRow{def.label, kPlacers[i], Summarize(*results[i]), fill});
      }
    }
    std::string table =
        "workload  placer        cross-node (GB)  vs spread  avg JCT (s)  peak link util  placed-until-full  "
        "cross MB/iter  vs spread  fragmentation\n";
    std::string csv =
        "workload,placer,jobs_finished,cross_node_gb,cross_vs_spread,avg_jct_s,peak_link_utilisation,static_jobs_placed,"
        "static_cross_mb_per_iteration,static_cross_vs_spread,fragmentation\n";
    for (const DltapRow& r : rows) {
      const DltapRow* spread = nullptr;
      for (const DltapRow& o : rows) {
        if (o.workload == r.workload && o.placer == kReferencePlacer) spread = &o;
      }
      auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
      const double sim_ratio = ratio(r.summary.cross_node_bytes, spread->summary.cross_node_bytes);
      const double static_ratio = ratio(r.fill.cross_bytes_per_iteration, spread->fill.cross_bytes_per_iteration);
      table += fmt::format("{:<8}  {:<12}  {:>15.1f}  {:>9.3f}  {:>11.1f}  {:>14.3f}  {:>17}  {:>13.1f}  {:>9.3f}  {:>13.3f}\n",
                           r.workload, r.placer, r.summary.cross_node_bytes / 1e9, sim_ratio, r.summary.jct_s.mean,
                           r.summary.peak_link_utilisation, r.fill.placed, r.fill.cross_bytes_per_iteration / 1e6,
                           static_ratio, r.fill.fragmentation);
      csv += fmt::format("{},{},{},{:.3f},{:.4f},{:.3f},{:.4f},{},{:.3f},{:.4f},{:.4f}\n", r.workload, r.placer,
                         r.summary.jobs_finished, r.summary.cross_node_bytes / 1e9, sim_ratio, r.summary.jct_s.mean,
                         r.summary.peak_link_utilisation, r.fill.placed, r.fill.cross_bytes_per_iteration / 1e6,
                         static_ratio, r.fill.fragmentation);
    }
    ctx.print(table);
    ctx.headline = Headline(rows);
    return WriteExperimentOutputs(ctx, {{"dltap.csv", csv}, {"dltap.txt", table}});
  }
};

HETSCHED_REGISTER_IMPL(Experiment, kDltapExperimentRegistered,
                       (MethodInfo{"dltap", "E5: DLTAP vs Kubernetes spread, bin-pack, random (PS containers, 8 T4 servers)",
                                   "[REC] DLTAP (Qiao et al., ITM Web Conf. 2017) experiment, reconstructed; paper: ~12% less "
                                   "cross-node traffic [SRC]"}),
                       [](const Options&) -> Result<std::unique_ptr<Experiment>> {
                         return std::unique_ptr<Experiment>(std::make_unique<DltapExperiment>());
                       })

}  // namespace hetsched
