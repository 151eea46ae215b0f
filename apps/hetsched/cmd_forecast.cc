// `hetsched forecast`: RLPTO's task-volume forecaster (ALGORITHMS.md 3.2) on a real trace. The
// trace's arrivals are binned into windows (jobs or GPUs requested per window); the first
// (1 - test fraction) of the windows trains ARIMA (order by AIC), a GRU on the series ("GRU
// alone") and a GRU on the ARIMA residuals (the hybrid: ARIMA + GRU(residuals)); the last
// windows are held out and predicted one step ahead from the true history (the models are not
// refitted). Prints MAE and MAPE of each against the seasonal-naive baseline (the value one
// season earlier; default season one day).
#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "cli_common.h"
#include "commands.h"
#include "hetsched/forecast/arima.h"
#include "hetsched/forecast/series.h"
#include "hetsched/learn/gru_forecaster.h"
#include "hetsched/util/file_io.h"

namespace hetsched::cli {

namespace {
struct ForecastArgs {
  std::string trace;
  std::string format = "auto";
  long long max_jobs = -1;
  double window_s = 3600;
  std::string series = "jobs";
  double test_fraction = 0.2;
  int season = 0;
  int max_p = 3;
  int max_q = 3;
  int max_d = 1;
  learn::GruForecasterConfig gru;
  unsigned long long seed = 1;
  std::string save_gru;
  std::string csv;
};

struct MethodError {
  std::string method;
  forecast::ErrorMetrics metrics;
};

// The GRU alone on the series, and ARIMA's one-step predictions plus a GRU fitted to their
// residuals (0 where ARIMA has none yet): RLPTO's hybrid.
Status GruPredictions(const ForecastArgs& a, const std::vector<double>& y, size_t train,
                      const std::vector<double>& arima_pred, std::vector<double>* gru_pred,
                      std::vector<double>* hybrid) {
  const size_t n = y.size();
  learn::GruForecaster gru_alone(a.gru);
  HETSCHED_RETURN_IF_ERROR(gru_alone.Fit(std::span<const double>(y.data(), train)));
  *gru_pred = gru_alone.OneStepPredictions(y);
  std::vector<double> residual(n, 0.0);
  for (size_t t = 0; t < n; ++t) residual[t] = std::isfinite(arima_pred[t]) ? y[t] - arima_pred[t] : 0.0;
  learn::GruForecaster gru_resid(a.gru);
  HETSCHED_RETURN_IF_ERROR(gru_resid.Fit(std::span<const double>(residual.data(), train)));
  const std::vector<double> resid_pred = gru_resid.OneStepPredictions(residual);
  hybrid->assign(n, std::numeric_limits<double>::quiet_NaN());
  for (size_t t = 0; t < n; ++t) (*hybrid)[t] = arima_pred[t] + resid_pred[t];
  if (!a.save_gru.empty()) HETSCHED_RETURN_IF_ERROR(gru_resid.Save(a.save_gru));
  return Status::Ok();
}

void PrintForecastHeader(const ForecastArgs& a, size_t jobs, size_t n, size_t train, const forecast::ArimaModel& arima) {
  fmt::print("forecast: {} ({} jobs), series '{}' per {:g} s window: {} windows, {} train, {} held out\n", a.trace,
             jobs, a.series, a.window_s, n, train, n - train);
  fmt::print("ARIMA: {} (AIC {:.1f}, sigma^2 {:.4g}); GRU: window {}, hidden {}, {} epochs, seed {}, {} thread(s)\n",
             arima.order.ToString(), arima.aic, arima.sigma2, a.gru.window, a.gru.hidden, a.gru.epochs, a.seed,
             a.gru.threads);
}

// The error table on stdout (each method against seasonal naive, the first row), and as CSV for --csv.
int WriteForecastTable(const ForecastArgs& a, const std::vector<MethodError>& rows) {
  fmt::print("MAPE is over held-out windows with a nonzero count ({} of {}).\n", rows[0].metrics.mape_points,
             rows[0].metrics.points);
  fmt::print("{:<36} {:>10} {:>9} {:>14}\n", "method", "MAE", "MAPE %", "MAE vs naive");
  std::string csv = "method,mae,mape,points,mape_points\n";
  for (const MethodError& r : rows) {
    fmt::print("{:<36} {:>10.4f} {:>9.1f} {:>13.3f}x\n", r.method, r.metrics.mae, 100 * r.metrics.mape,
               r.metrics.mae / rows[0].metrics.mae);
    csv += fmt::format("\"{}\",{:.6f},{:.6f},{},{}\n", r.method, r.metrics.mae, r.metrics.mape, r.metrics.points,
                       r.metrics.mape_points);
  }
  if (!a.csv.empty()) {
    if (Status st = WriteFileAtomic(a.csv, csv); !st.ok()) return ReportError(st);
    fmt::print("outputs : {}\n", a.csv);
  }
  return kExitOk;
}

int RunForecast(ForecastArgs a) {
  TraceReadOptions read;
  read.max_jobs = a.max_jobs;
  auto workload = ReadTrace(a.trace, a.format, read, DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
  if (!workload.ok()) return ReportError(workload.status());
  std::vector<double> times, gpus;
  for (const Job& j : workload->jobs) {
    times.push_back(j.spec.submit_time_s);
    gpus.push_back(j.spec.num_gpus);
  }
  auto binned = forecast::BinArrivals(times, gpus, a.window_s);
  if (!binned.ok()) return ReportError(binned.status().WithContext(a.trace + ": "));
  const std::vector<double>& y = a.series == "jobs" ? binned->jobs : binned->gpu_demand;
  const int season = a.season > 0 ? a.season : std::max(1, static_cast<int>(std::lround(86400 / a.window_s)));
  const auto n = y.size();
  const auto train = static_cast<size_t>(std::floor(static_cast<double>(n) * (1 - a.test_fraction)));
  const size_t min_train = static_cast<size_t>(std::max(3 * season, 2 * a.gru.window + 20));
  if (train < min_train || train >= n) {
    return ReportError(Status::InvalidArgument(fmt::format(
        "{}: {} windows of {:g} s, {} for training: too few (needs >= {} training windows and a test window); "
        "use a longer trace or a smaller --window",
        a.trace, n, a.window_s, train, min_train)));
  }
  const std::span<const double> train_y(y.data(), train);

  auto arima = forecast::SelectArima(train_y, {.max_p = a.max_p, .max_d = a.max_d, .max_q = a.max_q});
  if (!arima.ok()) return ReportError(arima.status().WithContext(a.trace + ": "));
  const std::vector<double> arima_pred = forecast::OneStepPredictions(*arima, y);

  a.gru.seed = a.seed;
  std::vector<double> gru_pred, hybrid;
  if (Status st = GruPredictions(a, y, train, arima_pred, &gru_pred, &hybrid); !st.ok()) return ReportError(st);

  const std::vector<double> naive = forecast::SeasonalNaive(y, season);
  std::vector<MethodError> rows;
  const std::pair<std::string, const std::vector<double>*> methods[] = {
      {fmt::format("seasonal-naive (season {})", season), &naive},
      {arima->order.ToString(), &arima_pred},
      {"GRU alone", &gru_pred},
      {arima->order.ToString() + " + GRU(residuals)", &hybrid}};
  for (const auto& [label, pred] : methods) {
    auto m = forecast::CompareForecast(y, *pred, train, n);
    if (!m.ok()) return ReportError(m.status().WithContext(label + ": "));
    rows.push_back({label, *m});
  }

  PrintForecastHeader(a, workload->jobs.size(), n, train, *arima);
  return WriteForecastTable(a, rows);
}
}  // namespace

void AddForecastCommand(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand(
      "forecast", "Forecast task volume (RLPTO: ARIMA, GRU, ARIMA+GRU) on a trace; held-out MAE/MAPE vs seasonal naive");
  auto a = std::make_shared<ForecastArgs>();
  cmd->add_option("--trace", a->trace, "Trace file (e.g. data/real/gavel/traces/msr_seed0_6c71a0.trace)")->required();
  cmd->add_option("--format", a->format, "Trace format (default auto)");
  cmd->add_option("--max-jobs", a->max_jobs, "Read at most this many jobs")->check(WholeAtLeast(1));
  cmd->add_option("--window", a->window_s, "Window length in seconds (default 3600)")->check(NumberAbove(0));
  cmd->add_option("--series", a->series, "What to forecast: jobs (arrivals per window) or gpus (GPUs requested)")
      ->check(OneOf({"jobs", "gpus"}));
  cmd->add_option("--test-fraction", a->test_fraction, "Fraction of windows held out at the end (default 0.2)")
      ->check(NumberBetween(0, 1));
  cmd->add_option("--season", a->season, "Seasonal-naive period in windows (default: one day)")->check(WholeAtLeast(0));
  cmd->add_option("--max-p", a->max_p, "ARIMA search: largest AR order (default 3)")->check(WholeInRange(0, 8));
  cmd->add_option("--max-q", a->max_q, "ARIMA search: largest MA order (default 3)")->check(WholeInRange(0, 8));
  cmd->add_option("--max-d", a->max_d, "ARIMA search: largest differencing order (default 1)")->check(WholeInRange(0, 1));
  cmd->add_option("--gru-window", a->gru.window, "GRU input length in windows (default 12)")->check(WholeInRange(1, 10000));
  cmd->add_option("--gru-hidden", a->gru.hidden, "GRU hidden units (default 32)")->check(WholeInRange(1, 4096));
  cmd->add_option("--gru-epochs", a->gru.epochs, "GRU training epochs (default 60)")->check(WholeInRange(0, 100000));
  cmd->add_option("--threads", a->gru.threads, "LibTorch intra-op threads (default 1)")->check(WholeInRange(1, 1024));
  cmd->add_option("--seed", a->seed, "Seed of the GRUs' initialisation and shuffling")->check(SeedValue());
  cmd->add_option("--save-gru", a->save_gru, "Save the residual GRU (with its configuration) to this file");
  cmd->add_option("--csv", a->csv, "Also write the table as CSV to this file");
  cmd->callback([a, action] { *action = [a] { return RunForecast(*a); }; });
}

}  // namespace hetsched::cli
