// Experiment "gavel": Gavel's policies on the msr traces (Narayanan et al., OSDI 2020,
// continuous-trace experiments), on 36 V100 + 36 P100 + 36 K80 in servers of 4.
// Load = arrival rate: the trace's first `jobs` jobs with their inter-arrival times scaled so that
// jobs arrive at `rate` jobs/hour (rates: option `rates`). Truth: Gavel's measured throughputs;
// the policies get the same table as their profile (Gavel assumes profiled throughputs).
// Outputs in ctx.out_dir: gavel.csv (one row per load and policy) and gavel.svg (average JCT and
// makespan against load). Results: docs/experiments/gavel.md.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "hetsched/experiments/experiment.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/model/cluster.h"
#include "hetsched/perf/validation.h"
#include "hetsched/report/format.h"
#include "hetsched/sched/registry.h"
#include "hetsched/sim/runner.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

constexpr const char* kPolicies[] = {"gavel-las", "gavel-las-agnostic", "gavel-makespan"};

struct GavelRow {
  double rate_per_h = 0;
  std::string policy;
  Summary summary;
};

// One SVG panel: y against load, one polyline per policy.
std::string Panel(const std::vector<GavelRow>& rows, const std::vector<double>& rates, double x0, const std::string& title,
                  double (*value)(const GavelRow&)) {
  const double w = 380, h = 260, left = 55, top = 30;
  double ymax = 0;
  for (const GavelRow& r : rows) ymax = std::max(ymax, value(r));
  ymax = ymax > 0 ? ymax * 1.1 : 1;
  const double xmin = rates.front(), xmax = rates.back() > rates.front() ? rates.back() : rates.front() + 1;
  auto px = [&](double x) { return x0 + left + (x - xmin) / (xmax - xmin) * (w - left - 20); };
  auto py = [&](double y) { return top + (1 - y / ymax) * (h - top - 40); };
  std::string s = fmt::format("<text x='{:.1f}' y='18' font-size='13'>{}</text>\n", x0 + left, title);
  s += fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{2:.1f}' y2='{1:.1f}' stroke='black'/>\n", px(xmin), py(0), px(xmax));
  s += fmt::format("<line x1='{0:.1f}' y1='{1:.1f}' x2='{0:.1f}' y2='{2:.1f}' stroke='black'/>\n", px(xmin), py(0), py(ymax));
  for (double r : rates) {
    s += fmt::format("<text x='{:.1f}' y='{:.1f}' font-size='10' text-anchor='middle'>{}</text>\n", px(r), py(0) + 14,
                     FormatTrimmed(r, 2));
  }
  s += fmt::format("<text x='{:.1f}' y='{:.1f}' font-size='10'>jobs/hour</text>\n", px(xmax) - 50, py(0) + 28);
  for (int i = 0; i <= 4; ++i) {
    const double y = ymax * i / 4;
    s += fmt::format("<text x='{:.1f}' y='{:.1f}' font-size='10' text-anchor='end'>{:.0f}</text>\n", px(xmin) - 4,
                     py(y) + 3, y);
  }
  const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c"};
  for (size_t p = 0; p < std::size(kPolicies); ++p) {
    std::string points;
    for (const GavelRow& r : rows) {
      if (r.policy == kPolicies[p]) points += fmt::format("{:.1f},{:.1f} ", px(r.rate_per_h), py(value(r)));
    }
    s += fmt::format("<polyline fill='none' stroke='{}' stroke-width='2' points='{}'/>\n", colours[p], points);
    s += fmt::format("<text x='{:.1f}' y='{:.1f}' font-size='10' fill='{}'>{}</text>\n", x0 + left + 8,
                     top + 12 + 12.0 * static_cast<double>(p), colours[p], kPolicies[p]);
  }
  return s;
}

class GavelExperiment final : public Experiment {
 public:
  std::string_view name() const override { return "gavel"; }

  Status Run(ExperimentContext& ctx) override {
    const std::string trace_path =
        ctx.options.GetString("trace", "data/real/gavel/traces/msr_seed0_6214e9.trace");
    const std::string table_path = ctx.options.GetString("throughputs", "data/real/gavel/throughputs.csv");
    HETSCHED_ASSIGN_OR_RETURN(const long long jobs, ctx.options.GetInt("jobs", ctx.quick ? 60 : 1000));
    const std::string rates_text = ctx.options.GetString("rates", ctx.quick ? "2;4;8" : "2;3;4");
    HETSCHED_ASSIGN_OR_RETURN(const double round_s, ctx.options.GetDouble("round", ctx.quick ? 1800 : 360));
    std::vector<double> rates;
    for (std::string_view item : Split(rates_text, ';')) {
      HETSCHED_ASSIGN_OR_RETURN(const double r, ParseDouble(item, "experiment gavel: option 'rates'"));
      if (!(r > 0)) return Status::InvalidArgument("experiment gavel: rates must be > 0");
      rates.push_back(r);
    }
    std::sort(rates.begin(), rates.end());
    if (ctx.check_only) return Status::Ok();  // options read and checked: nothing run

    const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
    HETSCHED_ASSIGN_OR_RETURN(const Cluster cluster,
                              MakeShorthandCluster({{"v100", 36}, {"p100", 36}, {"k80", 36}}, 4, devices,
                                                   LinkCatalog::BuiltIn()));
    TraceReadOptions read;
    read.max_jobs = jobs;
    HETSCHED_ASSIGN_OR_RETURN(const Workload base, ReadTrace(trace_path, "gavel", read, devices, ModelZoo::BuiltIn()));
    HETSCHED_ASSIGN_OR_RETURN(const MeasuredThroughputs table, MeasuredThroughputs::Load(table_path, devices));
    if (base.jobs.size() < 2) return Status::InvalidArgument("experiment gavel: the trace has fewer than 2 jobs");
    const double span_s = base.jobs.back().spec.submit_time_s - base.jobs.front().spec.submit_time_s;
    const double native_rate = static_cast<double>(base.jobs.size() - 1) / (span_s / 3600.0);

    SimOptions sim;
    sim.seed = ctx.seed;
    sim.measured_throughputs = &table;
    std::vector<GavelRow> rows;
    ctx.print(fmt::format("gavel: {} jobs of {} (native {:.2f} jobs/h), {}, rounds of {} s\n", base.jobs.size(),
                          trace_path, native_rate, cluster.Summary(), round_s));
    for (size_t part = 0; part < rates.size(); ++part) {
      const double rate = rates[part];
      Workload w = base;
      const double scale = native_rate / rate;
      for (Job& j : w.jobs) j.spec.submit_time_s *= scale;
      std::vector<MethodChoice> choices;
      for (const char* p : kPolicies) {
        MethodChoice c;
        c.policy = p;
        c.policy_options.Set("round", fmt::format("{}", round_s));
        c.policy_options.Set("profile", table_path);
        choices.push_back(std::move(c));
      }
      sim.progress = PartProgress(ctx, static_cast<int>(part), static_cast<int>(rates.size()));
      auto results = RunMany(cluster, ModelZoo::BuiltIn(), w, choices, sim, ctx.threads);
      for (size_t i = 0; i < results.size(); ++i) {
        if (!results[i].ok()) return results[i].status().WithContext(std::string("experiment gavel: ") + kPolicies[i]);
        HETSCHED_RETURN_IF_ERROR(
            WriteExperimentRun(ctx, fmt::format("rate-{}", FormatTrimmed(rate, 2)), kPolicies[i], *results[i]));
        rows.push_back(GavelRow{rate, kPolicies[i], Summarize(*results[i])});
      }
    }

    std::string table_text = "rate (jobs/h)  policy              avg JCT (h)  p95 JCT (h)  makespan (h)  util %\n";
    std::string csv = "rate_jobs_per_hour,policy,jobs,avg_jct_h,p95_jct_h,makespan_h,utilisation\n";
    for (const GavelRow& r : rows) {
      table_text += fmt::format("{:>13}  {:<18}  {:>11.1f}  {:>11.1f}  {:>12.1f}  {:>6.1f}\n", FormatTrimmed(r.rate_per_h, 2),
                                r.policy, r.summary.jct_s.mean / 3600, r.summary.jct_s.p95 / 3600,
                                r.summary.makespan_s / 3600, 100 * r.summary.utilisation);
      csv += fmt::format("{},{},{},{:.3f},{:.3f},{:.3f},{:.4f}\n", FormatTrimmed(r.rate_per_h, 2), r.policy,
                         r.summary.jobs_finished, r.summary.jct_s.mean / 3600, r.summary.jct_s.p95 / 3600,
                         r.summary.makespan_s / 3600, r.summary.utilisation);
    }
    ctx.print(table_text);
    std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' width='780' height='270' font-family='sans-serif'>\n";
    svg += Panel(rows, rates, 0, "average JCT (hours)", [](const GavelRow& r) { return r.summary.jct_s.mean / 3600; });
    svg += Panel(rows, rates, 390, "makespan (hours)", [](const GavelRow& r) { return r.summary.makespan_s / 3600; });
    svg += "</svg>\n";
    return WriteExperimentOutputs(ctx, {{"gavel.csv", csv}, {"gavel.svg", svg}});
  }
};

}  // namespace

HETSCHED_REGISTER_IMPL(Experiment, kGavelExperimentRegistered,
                       (MethodInfo{"gavel", "Gavel policies on the msr traces at three arrival rates (108 GPUs)",
                                   "[SRC] Gavel (Narayanan et al., OSDI 2020) continuous-trace experiments"}),
                       [](const Options&) -> Result<std::unique_ptr<Experiment>> {
                         return std::unique_ptr<Experiment>(std::make_unique<GavelExperiment>());
                       })

}  // namespace hetsched
