// Validation of the performance model against Gavel's measured throughputs
// (data/real/gavel/throughputs.csv, from stanford-futuredata/gavel; see data/real/SOURCES.md).
// Each Gavel job type is mapped to a zoo model and batch size, each Gavel GPU to a catalog
// device, and each measured row is predicted with EstimateIteration on a small cluster that
// reproduces the row's layout. The reading of Gavel's columns is in docs/perf-validation.md.
#pragma once

#include <map>
#include <optional>
#include <tuple>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/model/device.h"
#include "hetsched/model/link.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/util/flat_hash_map.h"
#include "hetsched/util/status.h"

namespace hetsched {

// One row of throughputs.csv. steps_per_second is Gavel's job throughput: the sum over the
// job's `scale_factor` workers of each worker's steps/s, i.e. scale_factor / iteration time.
// 0 means the run failed (Gavel records failures as 0).
struct GavelThroughputRow {
  std::string gpu_type;       // "k80", "p100", "v100"
  bool consolidated = false;  // all workers in one server
  std::string job_type;       // "ResNet-50 (batch size 32)"
  int scale_factor = 1;       // workers (one GPU each)
  double steps_per_second = 0;
  int line = 0;               // 1-based line in the file, for messages
};

// Parses the CSV (header gpu_type,consolidated,job_type,scale_factor,steps_per_second).
// Errors name `origin`, the line and the field.
Result<std::vector<GavelThroughputRow>> ParseGavelThroughputs(std::string_view csv_text,
                                                              const std::string& origin);

// One row of Gavel's co-location table (data/real/gavel/pair_throughputs.csv, flattened from the
// pair entries of its simulation_throughputs.json): each job type's steps/s while the two share a
// GPU (space sharing). 0: the pair cannot run together (Gavel skips it).
struct GavelPairRow {
  std::string gpu_type;
  std::string job_type, other_job_type;
  int scale_factor = 1;
  double steps_per_second = 0, other_steps_per_second = 0;
  int line = 0;
};

// Parses the CSV (header gpu_type,job_type,other_job_type,scale_factor,steps_per_second,
// other_steps_per_second). Errors name `origin`, the line and the field.
Result<std::vector<GavelPairRow>> ParseGavelPairThroughputs(std::string_view csv_text, const std::string& origin);

// Gavel's measured throughputs as a lookup table for the simulator's truth (and for a policy that
// is given a profiler's output): (job type, device type, GPU count, consolidated) -> steps/s.
// GPU types resolve through the device catalog's names and aliases.
class MeasuredThroughputs {
 public:
  static Result<MeasuredThroughputs> FromRows(std::span<const GavelThroughputRow> rows, const DeviceCatalog& devices,
                                              const std::string& origin);
  // Reads and parses a throughputs.csv file.
  static Result<MeasuredThroughputs> Load(const std::string& path, const DeviceCatalog& devices);

  // Adds Gavel's co-location rows (space sharing). Their job types must be in the table already (an
  // error names the file, line and field otherwise), as must their GPU types.
  Status AddPairs(std::span<const GavelPairRow> rows, const DeviceCatalog& devices, const std::string& origin);
  // Reads and adds a pair_throughputs.csv file (the built-in one by its data/ path).
  Status LoadPairs(const std::string& path, const DeviceCatalog& devices);
  bool has_pairs() const { return !pairs_.empty(); }
  // Steps/s of job types `a` and `b` while paired on `count` devices of `type`, in that order;
  // nullopt when the table has no entry for them ({0, 0}: measured as unable to run together).
  std::optional<std::pair<double, double>> PairStepsPerSecond(int a, int b, DeviceTypeId type, int count) const;

  // Index of a measured job type ("ResNet-50 (batch size 32)"), or -1.
  int JobTypeIndex(std::string_view job_type) const;
  // Steps/s (Gavel's job throughput: summed over the job's workers) of job type `index` on
  // `count` devices of `type`, consolidated in one server or not; when only the other layout was
  // measured, that one. 0 when not measured or when Gavel recorded a failure.
  double StepsPerSecond(int index, DeviceTypeId type, int count, bool consolidated) const;
  size_t num_job_types() const { return job_types_.size(); }
  size_t num_rows() const { return rates_.size(); }

 private:
  std::map<std::string, int, std::less<>> job_types_;
  // (job type index, device type, GPU count, consolidated): looked up at every start of a job.
  struct RateKey {
    int job_type = 0;
    DeviceTypeId type = 0;
    int count = 0;
    bool consolidated = false;
    bool operator==(const RateKey&) const = default;
  };
  struct RateKeyHash {
    size_t operator()(const RateKey& k) const {
      return (static_cast<size_t>(static_cast<unsigned>(k.job_type)) << 40) ^
             (static_cast<size_t>(static_cast<unsigned>(k.type)) << 24) ^
             (static_cast<size_t>(static_cast<unsigned>(k.count)) << 1) ^ static_cast<size_t>(k.consolidated);
    }
  };
  FlatHashMap<RateKey, double, RateKeyHash> rates_;
  // (lower job type, higher job type, device type, count) -> (lower's rate, higher's rate)
  std::map<std::tuple<int, int, DeviceTypeId, int>, std::pair<double, double>> pairs_;
};

// A profiler's per-type speeds for one job (`modelled[k]`: the model's iterations/s on `types[k]`,
// <= 0 where the job cannot run there, which stays 0): the measured steps/s where the table has
// the job's configuration (job type `job_type`, `num_gpus`, consolidated first); elsewhere 0 when
// `unmeasured_unusable` (Gavel's own mechanism), else the model's speed in the table's units:
// times the geometric mean of measured / modelled over the types measured for the job ([REC];
// 1 when none is). A job type the table lacks (-1) keeps the model's speeds.
std::vector<double> ProfiledSpeeds(const MeasuredThroughputs& table, int job_type, int num_gpus,
                                   std::span<const DeviceTypeId> types, std::span<const double> modelled,
                                   bool unmeasured_unusable);

// Gavel job type -> zoo model and per-worker batch size.
struct GavelJobMapping {
  std::string_view job_type;
  std::string_view zoo_model;
  int batch_size = 0;
};
std::span<const GavelJobMapping> GavelJobMappings();

struct ValidationSetup {
  std::string nic = "eth10";  // every server's NIC; non-consolidated rows cross it
  int server_devices = 8;                      // GPUs in the consolidated server
  PerfOptions perf;                            // overlap, optimizer state
};

struct ValidationPoint {
  GavelThroughputRow row;
  std::string zoo_model;
  double predicted_steps_per_s = 0;
  bool predicted_fits = true;
  double log_ratio = 0;  // ln(predicted / measured); 0 when the measurement failed
};

// Error of one job type (or of all points): absolute natural-log ratios, so 0.1 is about 10%
// off in either direction; mean_log_ratio > 0 means the model is optimistic (too fast).
struct ValidationError {
  std::string job_type;  // "all" for the overall line
  std::string zoo_model;
  int points = 0;
  double median_abs_log_ratio = 0;
  double max_abs_log_ratio = 0;
  double mean_log_ratio = 0;
};

struct ValidationReport {
  std::vector<ValidationPoint> points;     // rows of mapped job types with a measurement > 0
  std::vector<ValidationError> per_model;  // in GavelJobMappings() order
  ValidationError overall;
  std::vector<std::string> missing_models;  // mapped zoo keys the zoo does not have
  int measured_failures = 0;                // mapped rows Gavel recorded as 0 steps/s
  int failures_predicted_out_of_memory = 0; // of those, how many the model calls infeasible
  int fitting_rows_predicted_out_of_memory = 0;  // measured > 0 but predicted infeasible
};

// Predicts every row of a mapped job type. Errors: an unknown Gavel GPU type or link name.
// Models missing from the zoo are listed in the report, not errors (the zoo may be partial).
Result<ValidationReport> ValidateAgainstGavel(std::span<const GavelThroughputRow> rows,
                                              const ModelZoo& zoo, const DeviceCatalog& devices,
                                              const LinkCatalog& links,
                                              const ValidationSetup& setup = {});

// How a calibration scores a trial value over a set of rows (r = ln(predicted / measured)).
enum class FitObjective {
  // Smallest median |r|: Rousseeuw's least median of squares (JASA 79(388), 1984). Robust:
  // up to half of the rows may be off for reasons the model does not have (docs/perf-validation.md).
  kLeastMedianAbsLogRatio,
  // Smallest sum of r^2 (least squares in log): uses every row, so outliers pull it.
  kLeastSquaresLogRatio,
};

// Per Gavel GPU type: the efficiency (fraction of FP32 peak) that best fits that type's
// single-GPU rows (grid 0.05..1.00 by 0.01; on a tie the smallest), with the errors at the
// catalog's value and at the recommended one (the catalog's value when no row is left). Rows of models that declare a host-side cost
// (ModelProfile::host_seconds_per_iteration > 0) are left out: the device does not set their
// time, and their host cost is itself fitted after the efficiencies (FitHostSeconds). This is
// how data/devices.json's k80, p100 and v100 efficiencies were obtained (the objective is
// kLeastMedianAbsLogRatio; docs/perf-validation.md).
struct EfficiencyRecommendation {
  std::string gpu_type;
  double catalog_efficiency = 0;
  double catalog_median_abs_log_ratio = 0;
  double recommended_efficiency = 0;
  double recommended_median_abs_log_ratio = 0;
  double recommended_sum_squared_log_ratio = 0;
  int points = 0;
};
Result<std::vector<EfficiencyRecommendation>> RecommendEfficiencies(
    std::span<const GavelThroughputRow> rows, const ModelZoo& zoo, const DeviceCatalog& devices,
    const LinkCatalog& links, const ValidationSetup& setup = {},
    FitObjective objective = FitObjective::kLeastMedianAbsLogRatio);

// The host-side seconds per iteration (ModelProfile::host_seconds_per_iteration) of the zoo
// model mapped to `job_type` that best fit its single-GPU rows on every GPU type, the devices'
// efficiencies as given (grid 0..max measured iteration time by 0.1 ms; on a tie the
// smallest). The default objective is least squares in log: no row is known to be off for
// another reason, so every GPU counts and the mean log ratio comes out near 0. This is how
// the a3c profile's value was obtained (docs/models.md).
// Errors: `job_type` not mapped, its model not in the zoo, or no single-GPU row of it.
struct HostSecondsFit {
  std::string job_type;
  std::string zoo_model;
  double zoo_host_seconds = 0;     // the profile's current value
  double zoo_median_abs_log_ratio = 0;
  double fitted_host_seconds = 0;
  double fitted_median_abs_log_ratio = 0;
  double fitted_mean_log_ratio = 0;
  int points = 0;
};
Result<HostSecondsFit> FitHostSeconds(std::span<const GavelThroughputRow> rows, std::string_view job_type,
                                      const ModelZoo& zoo, const DeviceCatalog& devices,
                                      const LinkCatalog& links, const ValidationSetup& setup = {},
                                      FitObjective objective = FitObjective::kLeastSquaresLogRatio);

// Markdown tables: per-model errors, then every point.
std::string FormatValidationMarkdown(const ValidationReport& report);

}  // namespace hetsched
