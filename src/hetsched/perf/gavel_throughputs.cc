// Reader of Gavel's measured throughput table (data/real/gavel/throughputs.csv) and the
// mapping of Gavel's job types onto the model zoo.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "hetsched/perf/validation.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {

namespace {

constexpr std::string_view kHeader = "gpu_type,consolidated,job_type,scale_factor,steps_per_second";

// Gavel's workloads (Narayanan et al., OSDI 2020, Table 2) against our zoo. Batch sizes are
// per worker: Gavel launches the same command, with the same --batch_size, on every worker.
constexpr std::array<GavelJobMapping, 7> kMappings = {{
    {"ResNet-18 (batch size 64)", "resnet18-cifar", 64},
    {"ResNet-50 (batch size 32)", "resnet50", 32},
    {"Transformer (batch size 128)", "transformer-nmt", 128},
    {"LM (batch size 20)", "lstm-lm", 20},
    {"Recommendation (batch size 2048)", "recommendation-vae", 2048},
    {"A3C", "a3c", 0},          // 0: the zoo model's default batch
    {"CycleGAN", "cyclegan", 0},
}};

// Calls `row(fields, where, line)` for each non-empty line after `header` (which must be the first
// non-empty line), each with exactly `count` fields; errors name `origin` and the line.
template <typename RowFn>
Status ForEachGavelCsvRow(std::string_view csv_text, const std::string& origin, std::string_view header, size_t count,
                          RowFn row) {
  LineReader reader(csv_text);
  std::string_view line;
  bool seen_header = false;
  while (reader.Next(&line)) {
    const std::string where = origin + ":" + std::to_string(reader.line_number());
    if (Trim(line).empty()) continue;
    if (!seen_header) {
      if (Trim(line) != header) {
        return Status::ParseError(where + ": expected the header '" + std::string(header) + "', got '" +
                                  std::string(line) + "'");
      }
      seen_header = true;
      continue;
    }
    auto fields = SplitCsvLine(line);
    if (!fields.ok()) return fields.status().WithContext(where);
    if (fields->size() != count) {
      return Status::ParseError(where + ": expected " + std::to_string(count) + " fields, got " +
                                std::to_string(fields->size()));
    }
    HETSCHED_RETURN_IF_ERROR(row(*fields, where, reader.line_number()));
  }
  if (!seen_header) return Status::ParseError(origin + ": empty file (no header)");
  return Status::Ok();
}

}  // namespace

std::span<const GavelJobMapping> GavelJobMappings() { return kMappings; }

Result<std::vector<GavelThroughputRow>> ParseGavelThroughputs(std::string_view csv_text,
                                                              const std::string& origin) {
  std::vector<GavelThroughputRow> rows;
  HETSCHED_RETURN_IF_ERROR(ForEachGavelCsvRow(csv_text, origin, kHeader, 5, [&](const auto& fields, const std::string& where, int line) -> Status {
    GavelThroughputRow row;
    row.line = line;
    row.gpu_type = ToLower(Trim(fields[0]));
    if (row.gpu_type.empty()) return Status::ParseError(where + ": field 'gpu_type' is empty");
    const std::string consolidated = ToLower(Trim(fields[1]));
    if (consolidated != "yes" && consolidated != "no") {
      return Status::ParseError(where + ": field 'consolidated' must be 'yes' or 'no', got '" + fields[1] + "'");
    }
    row.consolidated = consolidated == "yes";
    row.job_type = std::string(Trim(fields[2]));
    if (row.job_type.empty()) return Status::ParseError(where + ": field 'job_type' is empty");
    HETSCHED_ASSIGN_OR_RETURN(const long long scale, ParseInt(fields[3], where + ": field 'scale_factor'"));
    if (scale < 1 || scale > 1024) {
      return Status::ParseError(where + ": field 'scale_factor' must be in 1..1024, got " + std::to_string(scale));
    }
    row.scale_factor = static_cast<int>(scale);
    HETSCHED_ASSIGN_OR_RETURN(row.steps_per_second, ParseDouble(fields[4], where + ": field 'steps_per_second'"));
    if (row.steps_per_second < 0) return Status::ParseError(where + ": field 'steps_per_second' must be >= 0");
    rows.push_back(std::move(row));
    return Status::Ok();
  }));
  return rows;
}

Result<std::vector<GavelPairRow>> ParseGavelPairThroughputs(std::string_view csv_text, const std::string& origin) {
  constexpr std::string_view kPairHeader =
      "gpu_type,job_type,other_job_type,scale_factor,steps_per_second,other_steps_per_second";
  std::vector<GavelPairRow> rows;
  HETSCHED_RETURN_IF_ERROR(ForEachGavelCsvRow(csv_text, origin, kPairHeader, 6, [&](const auto& fields, const std::string& where, int line) -> Status {
    GavelPairRow row;
    row.line = line;
    row.gpu_type = ToLower(Trim(fields[0]));
    row.job_type = std::string(Trim(fields[1]));
    row.other_job_type = std::string(Trim(fields[2]));
    const std::pair<const char*, const std::string*> names[] = {
        {"gpu_type", &row.gpu_type}, {"job_type", &row.job_type}, {"other_job_type", &row.other_job_type}};
    for (const auto& [field, value] : names) {
      if (value->empty()) return Status::ParseError(where + ": field '" + field + "' is empty");
    }
    HETSCHED_ASSIGN_OR_RETURN(const long long scale, ParseInt(fields[3], where + ": field 'scale_factor'"));
    if (scale < 1 || scale > 1024) {
      return Status::ParseError(where + ": field 'scale_factor' must be in 1..1024, got " + std::to_string(scale));
    }
    row.scale_factor = static_cast<int>(scale);
    HETSCHED_ASSIGN_OR_RETURN(row.steps_per_second, ParseDouble(fields[4], where + ": field 'steps_per_second'"));
    HETSCHED_ASSIGN_OR_RETURN(row.other_steps_per_second,
                              ParseDouble(fields[5], where + ": field 'other_steps_per_second'"));
    if (row.steps_per_second < 0) return Status::ParseError(where + ": field 'steps_per_second' must be >= 0");
    if (row.other_steps_per_second < 0) {
      return Status::ParseError(where + ": field 'other_steps_per_second' must be >= 0");
    }
    rows.push_back(std::move(row));
    return Status::Ok();
  }));
  return rows;
}

Result<MeasuredThroughputs> MeasuredThroughputs::FromRows(std::span<const GavelThroughputRow> rows,
                                                         const DeviceCatalog& devices, const std::string& origin) {
  MeasuredThroughputs table;
  for (const GavelThroughputRow& row : rows) {
    const DeviceTypeId type = devices.Find(row.gpu_type);
    if (type == kNoDeviceType) {
      return Status::InvalidArgument(origin + ":" + std::to_string(row.line) + ": field 'gpu_type': unknown device type '" +
                                     row.gpu_type + "'");
    }
    auto [it, added] = table.job_types_.try_emplace(row.job_type, static_cast<int>(table.job_types_.size()));
    (void)added;
    table.rates_.Set({it->second, type, row.scale_factor, row.consolidated}, row.steps_per_second);
  }
  return table;
}

Result<MeasuredThroughputs> MeasuredThroughputs::Load(const std::string& path, const DeviceCatalog& devices) {
  // The Gavel table is compiled into the binary, so `path` may name it from any directory.
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFileOrEmbedded(path));
  HETSCHED_ASSIGN_OR_RETURN(const std::vector<GavelThroughputRow> rows, ParseGavelThroughputs(text, path));
  return FromRows(rows, devices, path);
}

Status MeasuredThroughputs::AddPairs(std::span<const GavelPairRow> rows, const DeviceCatalog& devices,
                                     const std::string& origin) {
  for (const GavelPairRow& row : rows) {
    const std::string where = origin + ":" + std::to_string(row.line);
    const DeviceTypeId type = devices.Find(row.gpu_type);
    if (type == kNoDeviceType) {
      return Status::InvalidArgument(where + ": field 'gpu_type': unknown device type '" + row.gpu_type + "'");
    }
    const int a = JobTypeIndex(row.job_type), b = JobTypeIndex(row.other_job_type);
    if (a < 0) return Status::InvalidArgument(where + ": field 'job_type': '" + row.job_type + "' is not in the throughput table");
    if (b < 0) {
      return Status::InvalidArgument(where + ": field 'other_job_type': '" + row.other_job_type +
                                     "' is not in the throughput table");
    }
    if (a <= b) {
      pairs_[{a, b, type, row.scale_factor}] = {row.steps_per_second, row.other_steps_per_second};
    } else {
      pairs_[{b, a, type, row.scale_factor}] = {row.other_steps_per_second, row.steps_per_second};
    }
  }
  return Status::Ok();
}

Status MeasuredThroughputs::LoadPairs(const std::string& path, const DeviceCatalog& devices) {
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFileOrEmbedded(path));
  HETSCHED_ASSIGN_OR_RETURN(const std::vector<GavelPairRow> rows, ParseGavelPairThroughputs(text, path));
  return AddPairs(rows, devices, path);
}

std::optional<std::pair<double, double>> MeasuredThroughputs::PairStepsPerSecond(int a, int b, DeviceTypeId type,
                                                                                 int count) const {
  const bool swapped = a > b;
  auto it = pairs_.find({swapped ? b : a, swapped ? a : b, type, count});
  if (it == pairs_.end()) return std::nullopt;
  return swapped ? std::make_pair(it->second.second, it->second.first) : it->second;
}

int MeasuredThroughputs::JobTypeIndex(std::string_view job_type) const {
  auto it = job_types_.find(job_type);
  return it == job_types_.end() ? -1 : it->second;
}

double MeasuredThroughputs::StepsPerSecond(int index, DeviceTypeId type, int count, bool consolidated) const {
  const double* rate = rates_.Find({index, type, count, consolidated});
  if (rate == nullptr) rate = rates_.Find({index, type, count, !consolidated});
  return rate == nullptr ? 0.0 : *rate;
}

std::vector<double> ProfiledSpeeds(const MeasuredThroughputs& table, int job_type, int num_gpus,
                                   std::span<const DeviceTypeId> types, std::span<const double> modelled,
                                   bool unmeasured_unusable) {
  std::vector<double> speed(types.size(), 0.0), measured(types.size(), 0.0);
  double log_ratio_sum = 0;
  int ratios = 0;
  for (size_t k = 0; k < types.size(); ++k) {
    if (modelled[k] <= 0) continue;
    speed[k] = modelled[k];
    if (job_type < 0) continue;
    measured[k] = table.StepsPerSecond(job_type, types[k], num_gpus, true);
    if (measured[k] > 0) {
      log_ratio_sum += std::log(measured[k] / modelled[k]);
      ++ratios;
    }
  }
  if (job_type < 0) return speed;
  const double unmeasured_scale = ratios > 0 ? std::exp(log_ratio_sum / ratios) : 1.0;
  for (size_t k = 0; k < types.size(); ++k) {
    if (modelled[k] <= 0) continue;
    if (measured[k] > 0) {
      speed[k] = measured[k];
    } else {
      speed[k] = unmeasured_unusable ? 0.0 : modelled[k] * unmeasured_scale;
    }
  }
  return speed;
}

}  // namespace hetsched
