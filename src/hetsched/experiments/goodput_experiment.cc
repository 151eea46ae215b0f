// Experiment "goodput" (#46 item 6): Sia's setting on data the project ships. Sia's cluster shape
// (Jayaram Subramanya et al., SOSP 2023, sec. 4.3: 6 nodes of 4 GPUs, 2 of 8 and 3 of 8, three
// types) with types whose profiles hetsched can give: Pollux's measured T4s (data/real/pollux,
// Apache-2.0), and V100 and P100 profiles derived from them by hetsched's roofline model
// (trace/derived_profiles.h, [REC]; Sia's own A100 and RTX 2080 Ti profiles carry no licence).
// Pollux's eight workloads (160 jobs each, written for 64 T4s) run under Sia's policy, Sia's
// heterogeneity-unaware Pollux (pollux, unaware=true, as Sia's experiments run it) and hetsched's
// sia-plus. `hetsched experiment goodput --seeds 1-3` repeats it per seed (the seed moves Pollux's
// search; Sia's program is deterministic).
// Option `ablation=true` adds sia-plus with each of its parts off in turn (sia-plus-no-PART: its
// share of the gain, docs/policies.md for the parts).
// Outputs in ctx.out_dir: goodput.csv (one row per workload and policy), goodput.svg (average JCT
// per workload, the three policies), cluster.yaml and profiles/ (the derived folder: a run can be repeated with
// `hetsched simulate`). Results: docs/experiments/goodput.md.
#include <algorithm>
#include <filesystem>
#include <span>
#include <string>
#include <vector>
#include <fmt/format.h>

#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/seeds.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/model/cluster.h"
#include "hetsched/report/format.h"
#include "hetsched/sched/registry.h"
#include "hetsched/sim/runner.h"
#include "hetsched/trace/derived_profiles.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

constexpr const char* kGoodputPolicies[] = {"sia", "pollux", "sia-plus"};

// sia-plus with one part off (ablation=true): the row's label suffix and the option that turns it off.
struct GoodputAblation {
  const char* part;
  const char* key;
  const char* off;
};
constexpr GoodputAblation kGoodputAblations[] = {{"resize", "resize", "restart"},  {"moves", "moves", "sia"},
                                                 {"handover", "handover", "off"}, {"split", "split", "off"},
                                                 {"history", "history", "off"},   {"remaining", "remaining", "0"}};
constexpr const char* kGoodputApplications[] = {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"};

// Sia's shape with the types above. Links as hetsched's defaults for such servers.
constexpr std::string_view kGoodputCluster = R"(# hetsched experiment goodput: Sia's 64 GPUs of three types (SOSP 2023, sec. 4.3) with Pollux's
# measured T4s and V100 and P100 servers whose profiles hetsched derives [REC], all in nodes of
# 4 GPUs (the shapes Pollux measured).
name: goodput-64
description: 24 t4 + 16 v100-16gb + 24 p100 GPUs
defaults:
  nic: eth25
  uplink: eth100
  uplink_count: 2
  oversubscription: 1
  cpu_cores: 48
  host_memory_gib: 192
racks:
  - name: t4
    nodes:
      - device: t4
        num_devices: 4
        count: 6
  - name: v100
    nodes:
      - device: v100-16gb
        num_devices: 4
        count: 4
  - name: p100
    nodes:
      - device: p100
        num_devices: 4
        count: 6
)";

constexpr int kGoodputMostOfAType = 24;  // the most GPUs of one type above

struct GoodputRow {
  int workload = 0;
  std::string policy;
  Summary summary;
};

class GoodputExperiment final : public Experiment {
 public:
  std::string_view name() const override { return "goodput"; }

  Status Run(ExperimentContext& ctx) override {
    const std::string workloads_text = ctx.options.GetString("workloads", ctx.quick ? "6" : "1-8");
    HETSCHED_ASSIGN_OR_RETURN(const long long max_jobs, ctx.options.GetInt("jobs", ctx.quick ? 30 : -1));
    // The list syntax of --seeds (ParseSeedList: "1-8", "1,6", "1-3,7"), each one of Pollux's 8.
    const Result<std::vector<unsigned long long>> listed = ParseSeedList(workloads_text);
    std::vector<int> workloads;
    if (listed.ok()) {
      for (unsigned long long w : *listed) workloads.push_back(w >= 1 && w <= 8 ? static_cast<int>(w) : 0);
    }
    if (!listed.ok() || std::count(workloads.begin(), workloads.end(), 0) > 0) {
      return Status::InvalidArgument("experiment goodput: option 'workloads' takes Pollux's workloads 1-8, e.g. '1-8' or '1,6'" +
                                     (listed.ok() ? std::string() : " (" + listed.status().message() + ")"));
    }
    if (max_jobs == 0 || max_jobs < -1) return Status::InvalidArgument("experiment goodput: option 'jobs' must be >= 1");
    const Result<bool> ablation = ctx.options.GetBool("ablation", false);
    if (!ablation.ok()) {
      return Status::InvalidArgument("experiment goodput: option 'ablation' must be true or false (" +
                                     ablation.status().message() + ")");
    }
    if (ctx.check_only) return Status::Ok();

    const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
    HETSCHED_ASSIGN_OR_RETURN(const Cluster cluster, ParseClusterSpec(kGoodputCluster, "experiment goodput cluster", devices,
                                                                      LinkCatalog::BuiltIn()));
    // The profiles: Pollux's T4 files and the derived V100 and P100 ones, under the output folder.
    const std::string profiles = (std::filesystem::path(ctx.out_dir) / "profiles").string();
    HETSCHED_ASSIGN_OR_RETURN(const std::string pollux, FindDataDirectory("data/real/pollux/traces"));
    HETSCHED_ASSIGN_OR_RETURN(const std::string workload_dir, FindDataDirectory("data/real/pollux/workloads"));
    HETSCHED_RETURN_IF_ERROR(DeriveGoodputProfiles(
        pollux, profiles, std::vector<std::string>(std::begin(kGoodputApplications), std::end(kGoodputApplications)),
        devices.type(devices.Find("t4")),
        {{"v100", &devices.type(devices.Find("v100-16gb"))}, {"p100", &devices.type(devices.Find("p100"))}},
        ModelZoo::BuiltIn()));
    TraceReadOptions read;
    read.max_jobs = max_jobs;
    read.goodput_profiles = profiles;
    read.goodput_types = {{"", "t4"}, {"v100", "v100-16gb"}, {"p100", "p100"}};

    SimOptions sim;
    sim.seed = ctx.seed;
    std::vector<MethodChoice> choices;
    std::vector<std::string> labels;
    for (const char* p : kGoodputPolicies) {
      MethodChoice c;
      c.policy = p;
      if (std::string_view(p) == "pollux") c.policy_options.Set("unaware", "true");  // as Sia's experiments run it
      choices.push_back(std::move(c));
      labels.emplace_back(p);
    }
    for (const GoodputAblation& a : *ablation ? std::span(kGoodputAblations) : std::span<const GoodputAblation>()) {
      MethodChoice c;
      c.policy = "sia-plus";
      c.policy_options.Set(a.key, a.off);
      choices.push_back(std::move(c));
      labels.push_back(std::string("sia-plus-no-") + a.part);
    }
    ctx.print(fmt::format("goodput: Pollux's workloads {} ({} jobs each) on {}, profiles derived in {}\n",
                          workloads_text, max_jobs < 0 ? std::string("all") : std::to_string(max_jobs),
                          cluster.Summary(), profiles));
    std::vector<GoodputRow> rows;
    for (size_t part = 0; part < workloads.size(); ++part) {
      const int w = workloads[part];
      const std::string path = (std::filesystem::path(workload_dir) / fmt::format("workload-{}.csv", w)).string();
      HETSCHED_ASSIGN_OR_RETURN(Workload workload, ReadTrace(path, "pollux", read, devices, ModelZoo::BuiltIn()));
      // Pollux's workloads ask up to 32 GPUs (of its 64 T4s); a type here has at most 24: such a
      // job asks for 24, the total batch its user tuned kept.
      for (Job& job : workload.jobs) {
        JobSpec& spec = job.spec;
        if (spec.num_gpus <= kGoodputMostOfAType) continue;
        spec.num_gpus = kGoodputMostOfAType;
        spec.batch_size = (spec.total_batch_size + spec.num_gpus - 1) / spec.num_gpus;
      }
      sim.progress = PartProgress(ctx, static_cast<int>(part), static_cast<int>(workloads.size()));
      auto results = RunMany(cluster, ModelZoo::BuiltIn(), workload, choices, sim, ctx.threads);
      for (size_t i = 0; i < results.size(); ++i) {
        if (!results[i].ok()) {
          return results[i].status().WithContext(fmt::format("experiment goodput: workload {}, {}", w, labels[i]));
        }
        HETSCHED_RETURN_IF_ERROR(WriteExperimentRun(ctx, fmt::format("workload-{}", w), labels[i], *results[i]));
        rows.push_back(GoodputRow{w, labels[i], Summarize(*results[i])});
      }
    }
    return Report(ctx, rows, workloads, labels);
  }

 private:
  static double MeanJct(const std::vector<GoodputRow>& rows, std::string_view policy) {
    double sum = 0;
    int n = 0;
    for (const GoodputRow& r : rows) {
      if (r.policy == policy) sum += r.summary.jct_s.mean, ++n;
    }
    return n > 0 ? sum / n : 0;
  }

  static Status Report(ExperimentContext& ctx, const std::vector<GoodputRow>& rows, const std::vector<int>& workloads,
                       const std::vector<std::string>& labels) {
    size_t width = 8;
    for (const std::string& l : labels) width = std::max(width, l.size());
    std::string text = fmt::format("workload  {:<{}}  finished  avg JCT (h)  p99 JCT (h)  makespan (h)  util %\n", "policy", width);
    std::string csv = "workload,policy,jobs_finished,avg_jct_s,p99_jct_s,makespan_s,utilisation\n";
    for (const GoodputRow& r : rows) {
      text += fmt::format("{:>8}  {:<{}}  {:>8}  {:>11.3f}  {:>11.3f}  {:>12.3f}  {:>6.1f}\n", r.workload, r.policy, width,
                          r.summary.jobs_finished, r.summary.jct_s.mean / 3600, r.summary.jct_s.p99 / 3600,
                          r.summary.makespan_s / 3600, 100 * r.summary.utilisation);
      csv += fmt::format("{},{},{},{:.1f},{:.1f},{:.1f},{:.4f}\n", r.workload, r.policy, r.summary.jobs_finished,
                         r.summary.jct_s.mean, r.summary.jct_s.p99, r.summary.makespan_s, r.summary.utilisation);
    }
    const double sia = MeanJct(rows, "sia"), plus = MeanJct(rows, "sia-plus");
    // The ablation: each variant's mean average JCT against sia-plus's and sia's.
    for (size_t i = std::size(kGoodputPolicies); i < labels.size() && sia > 0 && plus > 0; ++i) {
      const double v = MeanJct(rows, labels[i]);
      text += fmt::format("{:<24}  mean average JCT {:.1f} s: {:+.1f}% against sia-plus, {:+.1f}% against sia\n", labels[i],
                          v, 100 * (v / plus - 1), 100 * (v / sia - 1));
    }
    ctx.print(text);
    if (sia > 0) {
      ctx.headline = fmt::format("sia-plus's average JCT is {:.1f}% {} Sia's (mean over {} workload{})",
                                 std::abs(100 * (plus / sia - 1)), plus <= sia ? "below" : "above", workloads.size(),
                                 workloads.size() == 1 ? "" : "s");
    }
    // One bar per policy and workload: average JCT in hours.
    double top = 0;
    for (const GoodputRow& r : rows) top = std::max(top, r.summary.jct_s.mean / 3600);
    top = top > 0 ? top * 1.1 : 1;
    const double w = 60.0 + 70.0 * static_cast<double>(workloads.size()), h = 240, base = 200;
    std::string svg = fmt::format("<svg xmlns='http://www.w3.org/2000/svg' width='{:.0f}' height='{:.0f}' font-family='sans-serif'>\n", w, h);
    svg += "<text x='50' y='16' font-size='13'>average JCT (hours) per Pollux workload</text>\n";
    const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c"};
    for (size_t k = 0; k < workloads.size(); ++k) {
      const double x0 = 50 + 70.0 * static_cast<double>(k);
      for (size_t p = 0; p < std::size(kGoodputPolicies); ++p) {
        for (const GoodputRow& r : rows) {
          if (r.workload != workloads[k] || r.policy != kGoodputPolicies[p]) continue;
          const double bar = (r.summary.jct_s.mean / 3600) / top * (base - 30);
          svg += fmt::format("<rect x='{:.1f}' y='{:.1f}' width='18' height='{:.1f}' fill='{}'/>\n",
                             x0 + 20.0 * static_cast<double>(p), base - bar, bar, colours[p]);
        }
      }
      svg += fmt::format("<text x='{:.1f}' y='{:.0f}' font-size='10'>w{}</text>\n", x0 + 20, base + 14, workloads[k]);
    }
    for (size_t p = 0; p < std::size(kGoodputPolicies); ++p) {
      svg += fmt::format("<text x='{:.0f}' y='{:.0f}' font-size='10' fill='{}'>{}</text>\n", 50 + 80.0 * static_cast<double>(p),
                         base + 32, colours[p], kGoodputPolicies[p]);
    }
    svg += "</svg>\n";
    return WriteExperimentOutputs(ctx, {{"goodput.csv", csv}, {"goodput.svg", svg}, {"cluster.yaml", std::string(kGoodputCluster)}},
                                  {"profiles/"});
  }
};

}  // namespace

HETSCHED_REGISTER_IMPL(Experiment, kGoodputExperimentRegistered,
                       (MethodInfo{"goodput",
                                   "Sia, Sia's unaware Pollux and sia-plus on Pollux's workloads, 64 GPUs of three types "
                                   "(T4 measured; V100 and P100 derived)",
                                   "[SRC] Sia (SOSP 2023) sec. 4.3's cluster shape and baselines; Pollux's profiles and "
                                   "workloads (Apache-2.0); [REC] the derived V100 and P100 profiles and sia-plus"}),
                       [](const Options&) -> Result<std::unique_ptr<Experiment>> {
                         return std::unique_ptr<Experiment>(std::make_unique<GoodputExperiment>());
                       })

}  // namespace hetsched
