// Predicts Gavel's measured rows with EstimateIteration and summarises the errors
// (docs/perf-validation.md explains the setup and shows the current table).
#include "hetsched/perf/validation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "hetsched/model/cluster.h"

namespace hetsched {

namespace {

const GavelJobMapping* FindMapping(std::string_view job_type) {
  for (const GavelJobMapping& m : GavelJobMappings()) {
    if (m.job_type == job_type) return &m;
  }
  return nullptr;
}

// Per Gavel GPU type: one server of `server_devices` GPUs (consolidated rows) and as many
// one-GPU servers (non-consolidated rows), all on one switch.
struct GavelLayout {
  NodeId server = 0;
  std::vector<NodeId> singles;
};

struct GavelCluster {
  Cluster cluster;
  std::map<std::string, GavelLayout> by_gpu;  // keyed by Gavel's gpu_type
};

Result<GavelCluster> BuildCluster(std::span<const GavelThroughputRow> rows, const DeviceCatalog& devices,
                                  const LinkCatalog& links, const ValidationSetup& setup) {
  GavelCluster out{Cluster(&devices, &links), {}};
  HETSCHED_ASSIGN_OR_RETURN(const LinkClassId nic, links.Lookup(setup.nic));
  Rack rack;
  rack.name = "gavel";
  const RackId rack_id = out.cluster.AddRack(rack);
  for (const GavelThroughputRow& row : rows) {
    if (out.by_gpu.count(row.gpu_type) > 0) continue;
    auto type_id = devices.Lookup(row.gpu_type);
    if (!type_id.ok()) return type_id.status().WithContext("gavel throughputs line " + std::to_string(row.line));
    const DeviceType& type = devices.type(*type_id);
    auto peer = links.Lookup(type.peer_link);
    if (!peer.ok()) return peer.status().WithContext("device '" + type.name + "': peer_link");
    Node node;
    node.rack = rack_id;
    node.device_type = *type_id;
    node.intra_link = *peer;
    node.nic = nic;
    GavelLayout layout;
    node.name = row.gpu_type + "-server";
    node.num_devices = setup.server_devices;
    layout.server = out.cluster.AddNode(node);
    node.num_devices = 1;
    for (int i = 0; i < setup.server_devices; ++i) {
      node.name = row.gpu_type + "-single" + std::to_string(i);
      layout.singles.push_back(out.cluster.AddNode(node));
    }
    out.by_gpu.emplace(row.gpu_type, std::move(layout));
  }
  return out;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

ValidationError Summarise(std::string job_type, std::string zoo_model, const std::vector<double>& log_ratios) {
  ValidationError e;
  e.job_type = std::move(job_type);
  e.zoo_model = std::move(zoo_model);
  e.points = static_cast<int>(log_ratios.size());
  std::vector<double> abs_values;
  double sum = 0;
  for (double r : log_ratios) {
    abs_values.push_back(std::fabs(r));
    e.max_abs_log_ratio = std::max(e.max_abs_log_ratio, std::fabs(r));
    sum += r;
  }
  e.median_abs_log_ratio = Median(abs_values);
  e.mean_log_ratio = log_ratios.empty() ? 0 : sum / static_cast<double>(log_ratios.size());
  return e;
}

}  // namespace

Result<ValidationReport> ValidateAgainstGavel(std::span<const GavelThroughputRow> rows,
                                              const ModelZoo& zoo, const DeviceCatalog& devices,
                                              const LinkCatalog& links, const ValidationSetup& setup) {
  ValidationReport report;
  for (const GavelJobMapping& m : GavelJobMappings()) {
    if (zoo.Find(m.zoo_model) == nullptr) report.missing_models.emplace_back(m.zoo_model);
  }
  HETSCHED_ASSIGN_OR_RETURN(const GavelCluster gavel, BuildCluster(rows, devices, links, setup));
  for (const GavelThroughputRow& row : rows) {
    const GavelJobMapping* mapping = FindMapping(row.job_type);
    if (mapping == nullptr) continue;
    const ModelProfile* model = zoo.Find(mapping->zoo_model);
    if (model == nullptr) continue;
    if (row.scale_factor > setup.server_devices) {
      return Status::InvalidArgument(fmt::format("gavel throughputs line {}: scale_factor {} exceeds the {} GPUs per server of the validation setup",
                                                 row.line, row.scale_factor, setup.server_devices));
    }
    const GavelLayout& layout = gavel.by_gpu.at(row.gpu_type);
    Plan plan;
    plan.parallelism = row.scale_factor == 1 ? Parallelism::kSingle : Parallelism::kDataRing;
    plan.batch_per_device = mapping->batch_size > 0 ? mapping->batch_size : model->default_batch_size;
    for (int i = 0; i < row.scale_factor; ++i) {
      plan.devices.push_back(row.consolidated ? gavel.cluster.node(layout.server).first_device + i
                                              : gavel.cluster.node(layout.singles[static_cast<size_t>(i)]).first_device);
    }
    const IterationEstimate est = EstimateIteration(*model, plan, gavel.cluster, {}, setup.perf);
    if (row.steps_per_second <= 0) {
      ++report.measured_failures;
      if (!est.fits_in_memory) ++report.failures_predicted_out_of_memory;
      continue;
    }
    if (!est.fits_in_memory) ++report.fitting_rows_predicted_out_of_memory;
    ValidationPoint p;
    p.row = row;
    p.zoo_model = model->name;
    p.predicted_fits = est.fits_in_memory;
    // Gavel's steps/s sums the workers' steps: scale_factor iterations per iteration time.
    p.predicted_steps_per_s = est.iteration_s > 0 ? row.scale_factor / est.iteration_s : 0;
    p.log_ratio = p.predicted_steps_per_s > 0 ? std::log(p.predicted_steps_per_s / row.steps_per_second) : -std::numeric_limits<double>::infinity();
    report.points.push_back(std::move(p));
  }
  std::vector<double> all;
  for (const GavelJobMapping& m : GavelJobMappings()) {
    std::vector<double> ratios;
    for (const ValidationPoint& p : report.points) {
      if (p.row.job_type == m.job_type) ratios.push_back(p.log_ratio);
    }
    if (ratios.empty()) continue;
    all.insert(all.end(), ratios.begin(), ratios.end());
    report.per_model.push_back(Summarise(std::string(m.job_type), std::string(m.zoo_model), ratios));
  }
  report.overall = Summarise("all", "", all);
  return report;
}

namespace {

// True when the row's job type maps to a zoo model that declares a host-side cost.
bool IsHostBound(const GavelThroughputRow& row, const ModelZoo& zoo) {
  const GavelJobMapping* mapping = FindMapping(row.job_type);
  if (mapping == nullptr) return false;
  const ModelProfile* model = zoo.Find(mapping->zoo_model);
  return model != nullptr && model->host_seconds_per_iteration > 0;
}

double SumOfSquares(const std::vector<double>& log_ratios) {
  double sum = 0;
  for (double r : log_ratios) sum += r * r;
  return sum;
}

double MedianAbs(const std::vector<double>& log_ratios) {
  std::vector<double> abs_values;
  abs_values.reserve(log_ratios.size());
  for (double r : log_ratios) abs_values.push_back(std::fabs(r));
  return Median(std::move(abs_values));
}

double Score(const std::vector<double>& log_ratios, FitObjective objective) {
  return objective == FitObjective::kLeastSquaresLogRatio ? SumOfSquares(log_ratios) : MedianAbs(log_ratios);
}

std::vector<double> LogRatiosOf(const ValidationReport& report) {
  std::vector<double> out;
  out.reserve(report.points.size());
  for (const ValidationPoint& p : report.points) out.push_back(p.log_ratio);
  return out;
}

}  // namespace

Result<std::vector<EfficiencyRecommendation>> RecommendEfficiencies(
    std::span<const GavelThroughputRow> rows, const ModelZoo& zoo, const DeviceCatalog& devices,
    const LinkCatalog& links, const ValidationSetup& setup, FitObjective objective) {
  std::vector<std::string> gpus;
  for (const GavelThroughputRow& row : rows) {
    if (std::find(gpus.begin(), gpus.end(), row.gpu_type) == gpus.end()) gpus.push_back(row.gpu_type);
  }
  std::vector<EfficiencyRecommendation> out;
  for (const std::string& gpu : gpus) {
    std::vector<GavelThroughputRow> single;
    for (const GavelThroughputRow& row : rows) {
      if (row.gpu_type == gpu && row.scale_factor == 1 && !IsHostBound(row, zoo)) single.push_back(row);
    }
    HETSCHED_ASSIGN_OR_RETURN(const DeviceTypeId type_id, devices.Lookup(gpu));
    EfficiencyRecommendation rec;
    rec.gpu_type = gpu;
    rec.catalog_efficiency = devices.type(type_id).efficiency;
    HETSCHED_ASSIGN_OR_RETURN(const ValidationReport base, ValidateAgainstGavel(single, zoo, devices, links, setup));
    rec.catalog_median_abs_log_ratio = base.overall.median_abs_log_ratio;
    rec.points = base.overall.points;
    rec.recommended_efficiency = rec.catalog_efficiency;
    rec.recommended_median_abs_log_ratio = rec.catalog_median_abs_log_ratio;
    rec.recommended_sum_squared_log_ratio = SumOfSquares(LogRatiosOf(base));
    if (rec.points == 0) {  // nothing to fit: keep the catalog's value
      out.push_back(rec);
      continue;
    }
    double best = std::numeric_limits<double>::infinity();
    for (int percent = 5; percent <= 100; ++percent) {
      DeviceCatalog trial;
      for (DeviceType t : devices.types()) {
        if (t.name == devices.type(type_id).name) t.efficiency = percent / 100.0;
        trial.Add(std::move(t));
      }
      HETSCHED_ASSIGN_OR_RETURN(const ValidationReport r, ValidateAgainstGavel(single, zoo, trial, links, setup));
      const std::vector<double> ratios = LogRatiosOf(r);
      const double score = Score(ratios, objective);
      if (score < best - 1e-12) {  // ascending grid, strict: the smallest of tied values
        best = score;
        rec.recommended_efficiency = percent / 100.0;
        rec.recommended_median_abs_log_ratio = r.overall.median_abs_log_ratio;
        rec.recommended_sum_squared_log_ratio = SumOfSquares(ratios);
      }
    }
    out.push_back(rec);
  }
  return out;
}

Result<HostSecondsFit> FitHostSeconds(std::span<const GavelThroughputRow> rows, std::string_view job_type,
                                      const ModelZoo& zoo, const DeviceCatalog& devices,
                                      const LinkCatalog& links, const ValidationSetup& setup,
                                      FitObjective objective) {
  const GavelJobMapping* mapping = FindMapping(job_type);
  if (mapping == nullptr) {
    return Status::NotFound(fmt::format("gavel job type '{}' is not mapped to a zoo model", job_type));
  }
  const ModelProfile* model = zoo.Find(mapping->zoo_model);
  if (model == nullptr) {
    return Status::NotFound(fmt::format("gavel job type '{}': zoo model '{}' is not in the zoo", job_type, mapping->zoo_model));
  }
  std::vector<GavelThroughputRow> single;
  for (const GavelThroughputRow& row : rows) {
    if (row.job_type == job_type && row.scale_factor == 1 && row.steps_per_second > 0) single.push_back(row);
  }
  if (single.empty()) {
    return Status::InvalidArgument(fmt::format("gavel job type '{}': no measured single-GPU row", job_type));
  }
  HostSecondsFit fit;
  fit.job_type = std::string(job_type);
  fit.zoo_model = model->name;
  fit.zoo_host_seconds = model->host_seconds_per_iteration;
  HETSCHED_ASSIGN_OR_RETURN(const ValidationReport as_is, ValidateAgainstGavel(single, zoo, devices, links, setup));
  fit.zoo_median_abs_log_ratio = as_is.overall.median_abs_log_ratio;
  fit.points = as_is.overall.points;

  // One GPU, no communication: the predicted iteration is the device's time plus the host
  // cost, so predict once without it and add each trial value.
  ModelZoo without;
  for (ModelProfile m : zoo.models()) {
    if (m.name == model->name) m.host_seconds_per_iteration = 0;
    without.Add(std::move(m));
  }
  HETSCHED_ASSIGN_OR_RETURN(const ValidationReport base, ValidateAgainstGavel(single, without, devices, links, setup));
  std::vector<double> device_s, measured_s;
  for (const ValidationPoint& p : base.points) {
    device_s.push_back(1.0 / p.predicted_steps_per_s);
    measured_s.push_back(1.0 / p.row.steps_per_second);
  }
  constexpr double kStepS = 1e-4;
  const double limit_s = *std::max_element(measured_s.begin(), measured_s.end());
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> ratios(device_s.size());
  for (int k = 0; k * kStepS <= limit_s; ++k) {
    const double host_s = k * kStepS;
    for (size_t i = 0; i < ratios.size(); ++i) ratios[i] = std::log(measured_s[i] / (device_s[i] + host_s));
    const double score = Score(ratios, objective);
    if (score < best - 1e-12) {  // ascending grid, strict: the smallest of tied values
      best = score;
      fit.fitted_host_seconds = host_s;
      const ValidationError e = Summarise(fit.job_type, fit.zoo_model, ratios);
      fit.fitted_median_abs_log_ratio = e.median_abs_log_ratio;
      fit.fitted_mean_log_ratio = e.mean_log_ratio;
    }
  }
  return fit;
}

std::string FormatValidationMarkdown(const ValidationReport& report) {
  std::string out =
      "| Gavel job type | zoo model | points | median abs ln(pred/meas) | max abs ln(pred/meas) | mean ln(pred/meas) |\n"
      "| --- | --- | ---: | ---: | ---: | ---: |\n";
  auto line = [&](const ValidationError& e) {
    out += fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {:+.3f} |\n", e.job_type, e.zoo_model, e.points,
                       e.median_abs_log_ratio, e.max_abs_log_ratio, e.mean_log_ratio);
  };
  for (const ValidationError& e : report.per_model) line(e);
  line(report.overall);
  out += fmt::format("\nMeasured failures (0 steps/s): {}, of which predicted out of memory: {}. "
                     "Rows measured fine but predicted out of memory: {}.\n",
                     report.measured_failures, report.failures_predicted_out_of_memory,
                     report.fitting_rows_predicted_out_of_memory);
  if (!report.missing_models.empty()) {
    out += "Zoo models missing: " + fmt::format("{}", fmt::join(report.missing_models, ", ")) + ".\n";
  }
  out += "\n| gpu | consolidated | job type | workers | measured steps/s | predicted steps/s | ln(pred/meas) |\n"
         "| --- | --- | --- | ---: | ---: | ---: | ---: |\n";
  for (const ValidationPoint& p : report.points) {
    out += fmt::format("| {} | {} | {} | {} | {:.3f} | {:.3f} | {:+.3f}{} |\n", p.row.gpu_type,
                       p.row.consolidated ? "yes" : "no", p.row.job_type, p.row.scale_factor,
                       p.row.steps_per_second, p.predicted_steps_per_s, p.log_ratio,
                       p.predicted_fits ? "" : " (predicted OOM)");
  }
  return out;
}

}  // namespace hetsched
