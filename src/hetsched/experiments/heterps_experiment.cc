// Experiment "heterps" (E1 of ALGORITHMS.md 2.7): the HeterPS planner (LSTM + REINFORCE) against
// the exact DP optimum and the greedy baselines, on every zoo model over a pool of 8 resource
// types (CPU node and 7 GPU types, catalog prices), at throughput limits that are multiples of
// what one V100 sustains on the whole model. All costs come from our cost model
// (planners/cost_model.h), not from measurements.
// Outputs in ctx.out_dir: heterps.csv (one row per model and limit), heterps.txt (the table and
// the distribution of the RL plan's gap to the DP optimum).
// Options: models (comma list, default every zoo model; quick: 2), limits (comma list of
// multiples, default 0.5,2,8; quick: 2), episodes (per training run; default the planner's, 6000; quick 300);
// rl.KEY options go to the planner (e.g. rl.restarts, rl.samples).
// Results and discussion: docs/experiments/heterps.md.
#include <algorithm>
#include <chrono>
#include <fmt/format.h>

#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/planner_experiments.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/planners/cost_model.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/planners/rl_common.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

constexpr const char* kPool[] = {"cpu-node", "k80", "t4", "p100", "v100-16gb", "a100-40gb", "a100-80gb", "rtx-a6000"};

Result<std::vector<double>> ParseDoubles(const std::string& text, const char* what) {
  std::vector<double> out;
  for (std::string_view item : Split(text, ',')) {
    auto v = ParseDouble(Trim(item), what);
    if (!v.ok()) return v.status();
    if (!(*v > 0)) return Status::InvalidArgument(std::string(what) + ": values must be > 0");
    out.push_back(*v);
  }
  return out;
}

class HeterPsExperiment : public Experiment {
 public:
  std::string_view name() const override { return "heterps"; }

  Status Run(ExperimentContext& ctx) override {
    const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
    const LinkCatalog& links = LinkCatalog::BuiltIn();
    std::string models_opt = ctx.options.GetString("models", ctx.quick ? "wide-deep,resnet18-cifar" : "");
    const std::string limits_opt = ctx.options.GetString("limits", ctx.quick ? "2" : "0.5,2,8");
    HETSCHED_ASSIGN_OR_RETURN(const long long episodes, ctx.options.GetInt("episodes", ctx.quick ? 300 : kHeterPsDefaults.episodes));
    HETSCHED_ASSIGN_OR_RETURN(const std::vector<double> limits, ParseDoubles(limits_opt, "limits"));
    std::vector<const ModelProfile*> models;
    if (models_opt.empty()) {
      for (const ModelProfile& m : ModelZoo::BuiltIn().models()) models.push_back(&m);
    } else {
      for (std::string_view name : Split(models_opt, ',')) {
        HETSCHED_ASSIGN_OR_RETURN(const ModelProfile* m, ModelZoo::BuiltIn().Lookup(Trim(name)));
        models.push_back(m);
      }
    }
    HETSCHED_ASSIGN_OR_RETURN(const LinkClassId eth, links.Lookup("eth25"));
    HETSCHED_ASSIGN_OR_RETURN(const DeviceTypeId v100, catalog.Lookup("v100-16gb"));
    std::vector<PoolType> pool;
    for (const char* t : kPool) {
      HETSCHED_ASSIGN_OR_RETURN(const DeviceTypeId id, catalog.Lookup(t));
      pool.push_back({id, 0});
    }
    ctx.print(fmt::format("heterps (E1): {} model(s) x {} limit(s), pool of {} types, {} episodes, seed {}\n",
                          models.size(), limits.size(), pool.size(), episodes, ctx.seed));
    const Options rl_options = LearnedPlannerOptionsOf(ctx, episodes);
    if (ctx.check_only) return Status::Ok();  // options read and checked: nothing run

    std::string csv =
        "model,layers,limit_x_v100,limit_samples_per_s,dp_cost,rl_trained_cost,rl_cost,rl_polished_cost,rl_gap,rl_polished_gap,"
        "greedy_fastest,greedy_cheapest,greedy_per_layer,all_cpu,dp_stages,rl_stages,episodes_to_best,rl_wall_s\n";
    std::string table = fmt::format("{:<18} {:>5} {:>11} {:>10} {:>10} {:>7} {:>10} {:>10} {:>10} {:>10} {:>6} {:>7}\n",
                                    "model", "lim x", "dp $/h", "rl $/h", "rl+ls $/h", "rl gap", "fastest", "cheapest",
                                    "per-layer", "all-cpu", "ep.", "rl s");
    std::vector<double> trained_gaps, gaps, polished_gaps, episodes_to_best, cpu_ratio, gpu_ratio;
    // Progress by case (a training run each, seconds to minutes): the time left shows after the first.
    const long long cases = static_cast<long long>(models.size() * limits.size());
    long long cases_done = 0;
    for (const ModelProfile* model : models) {
      for (double x : limits) {
        PlanningProblem p;
        p.model = model;
        p.catalog = &catalog;
        p.network = &links.link(eth);
        p.pool = pool;
        // One V100 on the whole model at the model's batch: the reference rate.
        const double v100_rate = model->default_batch_size /
                                 ComputeTime(*model, 0, static_cast<int>(model->layers.size()) - 1,
                                             model->default_batch_size, catalog.type(v100));
        p.throughput_limit = x * v100_rate;
        HETSCHED_ASSIGN_OR_RETURN(const HeteroPlan dp, SolveWith("dp", p));
        const auto start = std::chrono::steady_clock::now();
        HETSCHED_ASSIGN_OR_RETURN(const HeteroPlan rl, SolveWith("heterps", p, rl_options));
        const double rl_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        auto cost_of = [&](const char* planner) {
          auto plan = SolveWith(planner, p);
          return plan.ok() ? plan->cost_per_hour : StageCostModel::kInfeasible;
        };
        const double fastest = cost_of("greedy-fastest"), cheapest = cost_of("greedy-cheapest");
        const double per_layer = cost_of("greedy-per-layer");
        HETSCHED_ASSIGN_OR_RETURN(const StageCostModel cm, StageCostModel::Build(p));
        const double all_cpu = cm.AssignmentCost(std::vector<int>(model->layers.size(), 0));  // kPool[0]
        const double gap = rl.learned_objective / dp.cost_per_hour - 1.0;
        const double pgap = rl.cost_per_hour / dp.cost_per_hour - 1.0;
        gaps.push_back(gap);
        trained_gaps.push_back(rl.trained_objective / dp.cost_per_hour - 1.0);
        polished_gaps.push_back(pgap);
        episodes_to_best.push_back(rl.episodes_to_best);
        if (all_cpu < StageCostModel::kInfeasible) cpu_ratio.push_back(all_cpu / rl.learned_objective);
        if (fastest < StageCostModel::kInfeasible) gpu_ratio.push_back(fastest / rl.learned_objective);
        const size_t rl_stages = rl.stages.size();  // of the returned (polished) plan
        csv += fmt::format("{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{:.3f}\n",
                           model->name, model->layers.size(), x, p.throughput_limit, dp.cost_per_hour,
                           rl.trained_objective, rl.learned_objective, rl.cost_per_hour, gap, pgap, fastest, cheapest, per_layer, all_cpu,
                           dp.stages.size(), rl_stages, rl.episodes_to_best, rl_s);
        table += fmt::format("{:<18} {:>5.3g} {:>11.5g} {:>10.5g} {:>10.5g} {:>6.2f}% {:>10.5g} {:>10.5g} {:>10.5g} {:>10.5g} {:>6} {:>7.1f}\n",
                             model->name, x, dp.cost_per_hour, rl.learned_objective, rl.cost_per_hour, 100 * gap,
                             fastest, cheapest, per_layer, all_cpu, rl.episodes_to_best, rl_s);
        if (ctx.progress) ctx.progress(++cases_done, cases);
      }
    }
    const auto within = [](const std::vector<double>& v, double bound) {
      return std::count_if(v.begin(), v.end(), [bound](double g) { return g <= bound + 1e-12; });
    };
    table += fmt::format(
        "\nRL plan's gap to the DP optimum over {} cases: median {:.2f}%, p90 {:.2f}%, max {:.2f}%; within 2%: {}/{}\n",
        gaps.size(), 100 * Quantile(gaps, 0.5), 100 * Quantile(gaps, 0.9), 100 * Quantile(gaps, 1.0),
        within(gaps, 0.02), gaps.size());
    table += fmt::format("best of the training episodes alone (no inference sampling): median gap {:.2f}%, max {:.2f}%; within 2%: {}/{}\n",
                         100 * Quantile(trained_gaps, 0.5), 100 * Quantile(trained_gaps, 1.0), within(trained_gaps, 0.02),
                         trained_gaps.size());
    table += fmt::format("after local search: max gap {:.2f}%; within 2%: {}/{}\n", 100 * Quantile(polished_gaps, 1.0),
                         within(polished_gaps, 0.02), polished_gaps.size());
    table += fmt::format("sequences until the RL plan was first sampled: median {:.0f}, max {:.0f} (training episodes then inference samples, over restarts)\n",
                         Quantile(episodes_to_best, 0.5), Quantile(episodes_to_best, 1.0));
    table += fmt::format("cost of all-CPU / RL plan: median {:.3g}x, max {:.3g}x; all-fastest-GPU / RL: median {:.3g}x, max {:.3g}x\n",
                         Quantile(cpu_ratio, 0.5), Quantile(cpu_ratio, 1.0), Quantile(gpu_ratio, 0.5),
                         Quantile(gpu_ratio, 1.0));
    ctx.print(table);
    return WriteExperimentOutputs(ctx, {{"heterps.csv", csv}, {"heterps.txt", table}});
  }
};

}  // namespace

HETSCHED_REGISTER_IMPL(Experiment, kHeterPsExperimentRegistered,
                       (MethodInfo{"heterps", "E1: HeterPS (LSTM + REINFORCE) vs the DP optimum and greedy baselines, zoo x 8 types",
                                   "[SRC] HeterPS (Feng et al., FGCS 2023); [REC] cost model and set-up, ALGORITHMS.md 2.7"}),
                       [](const Options&) -> Result<std::unique_ptr<Experiment>> {
                         return std::unique_ptr<Experiment>(std::make_unique<HeterPsExperiment>());
                       })

}  // namespace hetsched
