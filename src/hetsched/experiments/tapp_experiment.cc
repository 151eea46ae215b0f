// Experiment "tapp" (E3 of ALGORITHMS.md 4.5): pipeline allocation by the TAPP planner (policy
// gradient) against data-parallel BSP on the same devices (the paper's comparator), an even
// pipeline that assumes homogeneous devices (PipeDream-style: equal-FLOP stages, devices in
// order), and the exact DP optimum. Device sets: H1 = 2 x V100 + 2 x T4, H2 = A100 + V100 +
// 2 x P100; one node per type (a node holds one type in our cluster model), 25 GbE NICs.
// m = 8 micro-batches; global batch 256 (CNNs) or 64 (language models). Step times come from our
// performance model (perf/ pipeline and data-parallel estimates), not from measurements.
// Outputs in ctx.out_dir: tapp.csv (one row per model and device set), tapp.txt.
// Options: models (default vgg16,resnet50,bert-base,inception-v3,gpt2-small,transformer-nmt;
// quick: vgg16), episodes (default the planner's, 6000; quick 200). Discussion: docs/experiments/tapp.md.
#include <algorithm>
#include <chrono>
#include <fmt/format.h>

#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/planner_experiments.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/planners/rl_common.h"
#include "hetsched/planners/step_time_model.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

struct DeviceSet {
  const char* name;
  std::vector<std::pair<std::string, int>> devices;
};

// Layers cut into one stage per device with about equal FLOPs each, devices in cluster order.
std::vector<int> EvenPipeline(const ModelProfile& model, int devices) {
  double total = 0;
  for (const LayerProfile& l : model.layers) total += l.fwd_flops_per_sample + l.bwd_flops_per_sample;
  std::vector<int> a;
  double done = 0;
  for (const LayerProfile& l : model.layers) {
    const double mid = done + 0.5 * (l.fwd_flops_per_sample + l.bwd_flops_per_sample);
    a.push_back(std::min(devices - 1, static_cast<int>(mid / total * devices)));
    done += l.fwd_flops_per_sample + l.bwd_flops_per_sample;
  }
  return a;
}

class TappExperiment : public Experiment {
 public:
  std::string_view name() const override { return "tapp"; }

  Status Run(ExperimentContext& ctx) override {
    const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
    const LinkCatalog& links = LinkCatalog::BuiltIn();
    const std::string models_opt = ctx.options.GetString(
        "models", ctx.quick ? "vgg16" : "vgg16,resnet50,bert-base,inception-v3,gpt2-small,transformer-nmt");
    HETSCHED_ASSIGN_OR_RETURN(const long long episodes, ctx.options.GetInt("episodes", ctx.quick ? 200 : kTappDefaults.episodes));
    const std::vector<DeviceSet> sets = {{"H1", {{"v100-16gb", 2}, {"t4", 2}}},
                                         {"H2", {{"a100-40gb", 1}, {"v100-16gb", 1}, {"p100", 2}}}};
    const Options rl_options = LearnedPlannerOptionsOf(ctx, episodes);
    if (ctx.check_only) return Status::Ok();  // options read and checked: nothing run
    ctx.print(fmt::format("tapp (E3): models {}; device sets H1 (2 V100 + 2 T4), H2 (A100 + V100 + 2 P100); m = 8; "
                          "{} episodes, seed {}\n", models_opt, episodes, ctx.seed));
    std::string csv =
        "model,devices,global_batch,bsp_step_s,bsp_comm_share,even_step_s,tapp_step_s,tapp_polished_step_s,"
        "tapp_comm_share,dp_step_s,dp_comm_share,speedup_vs_bsp,comm_share_reduction,tapp_gap,stages,episodes_to_best,"
        "rl_wall_s\n";
    std::string table = fmt::format("{:<16} {:<3} {:>9} {:>7} {:>9} {:>9} {:>9} {:>7} {:>9} {:>8} {:>8} {:>6}\n", "model",
                                    "set", "BSP s", "comm%", "even s", "TAPP s", "TAPP+ls", "comm%", "DP s", "BSP/TAPP",
                                    "gap", "ep.");
    std::vector<double> speedups, reductions, gaps, polished_gaps, episodes_to_best;
    // Progress by case (a training run each, seconds to minutes): the time left shows after the first.
    const auto names = Split(models_opt, ',');
    const long long cases = static_cast<long long>(names.size() * sets.size());
    long long cases_done = 0;
    for (std::string_view name : names) {
      HETSCHED_ASSIGN_OR_RETURN(const ModelProfile* model, ModelZoo::BuiltIn().Lookup(Trim(name)));
      for (const DeviceSet& set : sets) {
        HETSCHED_ASSIGN_OR_RETURN(Cluster cluster, MakeShorthandCluster(set.devices, 8, catalog, links));
        PlanningProblem p;
        p.model = model;
        p.objective = PlanObjective::kStepTime;
        p.cluster = &cluster;
        p.global_batch = model->domain == "vision" ? 256 : 64;
        p.micro_batches = 8;
        HETSCHED_ASSIGN_OR_RETURN(const HeteroPlan bsp, SolveWith("bsp", p));
        HETSCHED_ASSIGN_OR_RETURN(const HeteroPlan dp, SolveWith("dp", p));
        const auto start = std::chrono::steady_clock::now();
        HETSCHED_ASSIGN_OR_RETURN(const HeteroPlan rl, SolveWith("tapp", p, rl_options));
        const double rl_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        HETSCHED_ASSIGN_OR_RETURN(const StepTimeModel sm, StepTimeModel::Build(p));
        const double even = sm.AssignmentStepTime(EvenPipeline(*model, cluster.num_devices()));
        // The RL plan's own communication share is that of the returned plan when no local-search
        // move was made; speed-up and share are reported for the learned plan (before polish).
        const double speedup = bsp.step_time_s / rl.learned_objective;
        const double reduction = bsp.communication_share > 0 ? 1.0 - rl.communication_share / bsp.communication_share : 0;
        const double gap = rl.learned_objective / dp.step_time_s - 1.0;
        speedups.push_back(speedup);
        reductions.push_back(reduction);
        gaps.push_back(gap);
        polished_gaps.push_back(rl.step_time_s / dp.step_time_s - 1.0);
        episodes_to_best.push_back(rl.episodes_to_best);
        csv += fmt::format("{},{},{},{:.6g},{:.4f},{:.6g},{:.6g},{:.6g},{:.4f},{:.6g},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{:.3f}\n",
                           model->name, set.name, p.global_batch, bsp.step_time_s, bsp.communication_share, even,
                           rl.learned_objective, rl.step_time_s, rl.communication_share, dp.step_time_s,
                           dp.communication_share, speedup, reduction, gap, rl.stages.size(), rl.episodes_to_best, rl_s);
        table += fmt::format("{:<16} {:<3} {:>9.4g} {:>6.1f}% {:>9.4g} {:>9.4g} {:>9.4g} {:>6.1f}% {:>9.4g} {:>7.2f}x {:>7.2f}% {:>6}\n",
                             model->name, set.name, bsp.step_time_s, 100 * bsp.communication_share, even,
                             rl.learned_objective, rl.step_time_s, 100 * rl.communication_share, dp.step_time_s, speedup,
                             100 * gap, rl.episodes_to_best);
        if (ctx.progress) ctx.progress(++cases_done, cases);
      }
    }
    double mean_speedup = 0, mean_reduction = 0, max_gap = 0;
    for (size_t i = 0; i < speedups.size(); ++i) {
      mean_speedup += speedups[i] / static_cast<double>(speedups.size());
      mean_reduction += reductions[i] / static_cast<double>(reductions.size());
      max_gap = std::max(max_gap, gaps[i]);
    }
    table += fmt::format(
        "\nmean BSP/TAPP step time {:.3f}x (paper: 1.37x); mean relative drop of the communication share {:.1f}% "
        "(paper: 48.92%); TAPP's largest gap to the DP optimum {:.2f}%\n"
        "(comm% of TAPP is that of the returned plan, after local search)\n",
        mean_speedup, 100 * mean_reduction, 100 * max_gap);
    const auto within = [](const std::vector<double>& v, double bound) {
      return std::count_if(v.begin(), v.end(), [bound](double g) { return g <= bound + 1e-12; });
    };
    table += fmt::format(
        "learned plan's gap to the DP optimum over {} cases: median {:.2f}%, p90 {:.2f}%, max {:.2f}%; within 1%: {}/{}, "
        "within 5%: {}/{}\nafter local search: max gap {:.2f}%; within 1%: {}/{}\n"
        "episodes until the learned plan was first sampled: median {:.0f}, max {:.0f} (of {})\n",
        gaps.size(), 100 * Quantile(gaps, 0.5), 100 * Quantile(gaps, 0.9), 100 * Quantile(gaps, 1.0), within(gaps, 0.01),
        gaps.size(), within(gaps, 0.05), gaps.size(), 100 * Quantile(polished_gaps, 1.0), within(polished_gaps, 0.01),
        polished_gaps.size(), Quantile(episodes_to_best, 0.5), Quantile(episodes_to_best, 1.0), episodes);
    ctx.print(table);
    return WriteExperimentOutputs(ctx, {{"tapp.csv", csv}, {"tapp.txt", table}});
  }
};

}  // namespace

HETSCHED_REGISTER_IMPL(Experiment, kTappExperimentRegistered,
                       (MethodInfo{"tapp", "E3: TAPP pipeline allocation vs data-parallel BSP, even pipeline and the DP optimum",
                                   "[SRC] TAPP (Mao et al., Appl. Sci. 2021); [REC] step-time model and set-up, ALGORITHMS.md 4.5"}),
                       [](const Options&) -> Result<std::unique_ptr<Experiment>> {
                         return std::unique_ptr<Experiment>(std::make_unique<TappExperiment>());
                       })

}  // namespace hetsched
