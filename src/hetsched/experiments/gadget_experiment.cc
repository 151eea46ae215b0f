// Experiment "gadget" (E4 of ALGORITHMS.md 5.7): GADGET against the baselines of its line of
// work on ring-all-reduce jobs, on 20 V100-32GB servers of 4 to 32 GPUs (216 GPUs; NVLink 2
// inside a server, 25 GbE between, full bisection), with two workloads:
//   philly-mix: a Philly-derived synthetic mix: GPU counts 1..32 in the proportions of the msr
//     traces, runtimes drawn from the real Philly runtimes (data/real/philly/philly_runtime.csv),
//     Poisson arrivals at `rate` jobs/hour, ring-all-reduce models of the zoo;
//   msr: the first `jobs` jobs of a Gavel msr trace (Philly-derived, real arrivals and GPU counts).
// Methods: gadget+gadget-ring, its ablations (static: realloc=false; rigid: elastic=false and
// realloc=false; no consolidation: first-fit),
// First-Fit (fifo+first-fit), List-Scheduling (+first-fit), Random (fifo+random), FIFO and LAS with
// pack. Truth: the perf model (elastic runs have no measured throughputs).
// Every job is elastic (JobSpec::elastic) unless option elastic=false.
// Outputs in ctx.out_dir: gadget.csv (one row per workload and method), gadget.txt (the table).
// Results and discussion: docs/experiments/gadget.md.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "hetsched/experiments/experiment.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/model/cluster.h"
#include "hetsched/sched/registry.h"
#include "hetsched/sim/runner.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

struct Method {
  const char* label;
  const char* policy;
  const char* policy_options;  // "k=v;k=v" or ""
  const char* placer;
};

constexpr Method kMethods[] = {
    {"GADGET", "gadget", "", "gadget-ring"},
    {"GADGET-static", "gadget", "realloc=false", "gadget-ring"},
    {"GADGET-rigid", "gadget", "elastic=false;realloc=false", "gadget-ring"},
    {"GADGET-no-embed", "gadget", "", "first-fit"},
    {"First-Fit", "fifo", "backfill=none", "first-fit"},
    {"List-Scheduling", "list-scheduling", "", "first-fit"},
    {"Random", "fifo", "backfill=none", "random"},
    {"FIFO+pack", "fifo", "", "pack"},
    {"LAS+pack", "tiresias-las", "", "pack"},
};

// Server sizes: 6 x 4, 8 x 8, 4 x 16, 2 x 32 GPUs = 20 servers, 216 GPUs.
Result<Cluster> MakeE4Cluster() {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  HETSCHED_ASSIGN_OR_RETURN(const DeviceTypeId v100, devices.Lookup("v100-32gb"));
  HETSCHED_ASSIGN_OR_RETURN(const LinkClassId nvlink, links.Lookup("nvlink2"));
  HETSCHED_ASSIGN_OR_RETURN(const LinkClassId eth, links.Lookup("eth25"));
  Cluster cluster(&devices, &links);
  HETSCHED_ASSIGN_OR_RETURN(const LinkClassId uplink, links.Lookup("eth100"));
  Rack rack;
  rack.name = "e4";
  rack.uplink = uplink;  // one rack: the uplink is never crossed (full bisection between the servers)
  cluster.AddRack(rack);
  const std::pair<int, int> groups[] = {{6, 4}, {8, 8}, {4, 16}, {2, 32}};
  for (const auto& [count, size] : groups) {
    for (int i = 0; i < count; ++i) {
      Node node;
      node.name = fmt::format("s{}-{}", size, i);
      node.rack = 0;
      node.device_type = v100;
      node.num_devices = size;
      node.intra_link = nvlink;
      node.nic = eth;
      cluster.AddNode(node);
    }
  }
  HETSCHED_RETURN_IF_ERROR(cluster.Validate());
  return cluster;
}

Result<std::vector<double>> ReadRuntimes(const std::string& path) {
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFileOrEmbedded(path));
  std::vector<double> out;
  long long line = 0;
  for (std::string_view row : Split(text, '\n')) {
    ++line;
    row = Trim(row);
    if (row.empty() || line == 1) continue;  // header "runtime"
    HETSCHED_ASSIGN_OR_RETURN(const double s, ParseDouble(row, fmt::format("{}:{}: field 'runtime'", path, line)));
    if (s > 0) out.push_back(s);
  }
  if (out.empty()) return Status::InvalidArgument(path + ": no positive runtimes");
  return out;
}

struct GadgetRow {
  std::string workload;
  std::string method;
  Summary summary;
  double mean_span = 0;
  long long resizes = 0;       // changes of running rings (GADGET's re-allocation)
  double resize_pause_h = 0;   // the jobs' time without progress those changes cost, summed
};

}  // namespace

class GadgetExperiment final : public Experiment {
 public:
  std::string_view name() const override { return "gadget"; }

  Status Run(ExperimentContext& ctx) override {
    const std::string runtimes_path = ctx.options.GetString("runtimes", "data/real/philly/philly_runtime.csv");
    const std::string trace_path = ctx.options.GetString("trace", "data/real/gavel/traces/msr_seed0_6214e9.trace");
    HETSCHED_ASSIGN_OR_RETURN(const long long jobs, ctx.options.GetInt("jobs", ctx.quick ? 80 : 1000));
    HETSCHED_ASSIGN_OR_RETURN(const double rate, ctx.options.GetDouble("rate", 60));
    HETSCHED_ASSIGN_OR_RETURN(const bool elastic_jobs, ctx.options.GetBool("elastic", true));
    if (jobs < 2) return Status::InvalidArgument("experiment gadget: option 'jobs' must be >= 2");
    if (!(rate > 0)) return Status::InvalidArgument("experiment gadget: option 'rate' must be > 0 jobs/hour");
    if (ctx.check_only) return Status::Ok();  // options read and checked: nothing run
    HETSCHED_ASSIGN_OR_RETURN(const Cluster cluster, MakeE4Cluster());
    const ModelZoo& zoo = ModelZoo::BuiltIn();
    const DeviceCatalog& devices = DeviceCatalog::BuiltIn();

    SyntheticOptions mix;
    mix.num_jobs = jobs;
    mix.arrival_rate_per_hour = rate;
    mix.seed = ctx.seed;
    mix.model_mix = {{"resnet50", 1},   {"vgg16", 1},          {"inception-v3", 1}, {"bert-base", 1},
                     {"bert-large", 1}, {"transformer-nmt", 1}, {"gpt2-small", 1},   {"resnet18-cifar", 1}};
    HETSCHED_ASSIGN_OR_RETURN(mix.runtime_sample_s, ReadRuntimes(runtimes_path));
    mix.reference_device = "v100-32gb";
    HETSCHED_ASSIGN_OR_RETURN(Workload philly, GenerateSynthetic(mix, devices, zoo));
    TraceReadOptions read;
    read.max_jobs = jobs;
    HETSCHED_ASSIGN_OR_RETURN(Workload msr, ReadTrace(trace_path, "gavel", read, devices, zoo));
    // Every job is a data-parallel ring that tolerates a change of workers (Horovod Elastic /
    // TorchElastic style): GADGET's re-allocation pays an elastic resize where a worker survives
    // (docs/elastic.md). The other methods never resize, so this changes nothing for them.
    // Option elastic=false: no job is elastic, every change is a checkpoint restart.
    for (Workload* w : {&philly, &msr}) {
      for (Job& job : w->jobs) job.spec.elastic = elastic_jobs && !job.spec.is_container_job();
    }

    ctx.print(fmt::format("gadget (E4): {}; philly-mix: {} jobs at {} jobs/h (Philly runtimes); msr: {} jobs of {}\n",
                          cluster.Summary(), philly.jobs.size(), FormatRate(rate), msr.jobs.size(), trace_path));
    SimOptions sim;
    sim.seed = ctx.seed;
    std::vector<MethodChoice> choices;
    for (const Method& m : kMethods) {
      MethodChoice c;
      c.policy = m.policy;
      c.placer = m.placer;
      for (std::string_view kv : Split(m.policy_options, ';')) {
        if (kv.empty()) continue;
        const size_t eq = kv.find('=');
        c.policy_options.Set(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
      }
      choices.push_back(std::move(c));
    }
    std::vector<GadgetRow> rows;
    int part = 0;
    for (const auto& [label, workload] : {std::pair<const char*, const Workload*>{"philly-mix", &philly},
                                          std::pair<const char*, const Workload*>{"msr", &msr}}) {
      sim.progress = PartProgress(ctx, part++, 2);
      auto results = RunMany(cluster, zoo, *workload, choices, sim, ctx.threads);
      for (size_t i = 0; i < results.size(); ++i) {
        if (!results[i].ok()) {
          return results[i].status().WithContext(fmt::format("experiment gadget: {} on {}", kMethods[i].label, label));
        }
        HETSCHED_RETURN_IF_ERROR(WriteExperimentRun(ctx, label, kMethods[i].label, *results[i]));
        GadgetRow row{label, kMethods[i].label, Summarize(*results[i]), 0};
        double spans = 0;
        long long n = 0;
        for (const JobRecord& j : results[i]->jobs) {
          row.resizes += j.resizes;
          row.resize_pause_h += j.resize_pause_s / 3600;
          if (j.max_span_nodes > 0) {
            spans += j.max_span_nodes;
            ++n;
          }
        }
        row.mean_span = n > 0 ? spans / static_cast<double>(n) : 0;
        rows.push_back(std::move(row));
      }
    }

    std::string table =
        "workload    method            avg JCT (h)  makespan (h)  util %  energy (GJ)  cross-server (TB)  mean span  "
        "resizes  pause (h)\n";
    std::string csv =
        "workload,method,jobs_finished,avg_jct_h,p95_jct_h,makespan_h,utilisation,energy_gj,cross_server_tb,mean_span,"
        "resizes,resize_pause_h\n";
    for (const GadgetRow& r : rows) {
      const Summary& s = r.summary;
      table += fmt::format("{:<10}  {:<16}  {:>11.2f}  {:>12.1f}  {:>6.1f}  {:>11.2f}  {:>17.1f}  {:>9.2f}  {:>7}  {:>9.1f}\n",
                           r.workload, r.method, s.jct_s.mean / 3600, s.makespan_s / 3600, 100 * s.utilisation,
                           s.energy_joules / 1e9, s.cross_node_bytes / 1e12, r.mean_span, r.resizes, r.resize_pause_h);
      csv += fmt::format("{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.3f},{},{:.4f}\n", r.workload, r.method,
                         s.jobs_finished, s.jct_s.mean / 3600, s.jct_s.p95 / 3600, s.makespan_s / 3600, s.utilisation,
                         s.energy_joules / 1e9, s.cross_node_bytes / 1e12, r.mean_span, r.resizes, r.resize_pause_h);
    }
    ctx.print(table);
    return WriteExperimentOutputs(ctx, {{"gadget.csv", csv}, {"gadget.txt", table}});
  }

 private:
  static std::string FormatRate(double r) { return fmt::format("{:g}", r); }
};

HETSCHED_REGISTER_IMPL(Experiment, kGadgetExperimentRegistered,
                       (MethodInfo{"gadget", "E4: GADGET vs First-Fit, List-Scheduling, Random, FIFO/LAS+pack (216 GPUs)",
                                   "[REC] GADGET (Yu et al., INFOCOM 2022) trace-driven experiment, reconstructed"}),
                       [](const Options&) -> Result<std::unique_ptr<Experiment>> {
                         return std::unique_ptr<Experiment>(std::make_unique<GadgetExperiment>());
                       })

}  // namespace hetsched
