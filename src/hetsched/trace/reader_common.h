// Private to trace/: what every trace reader shares. Row-located error messages
// ("origin:LINE: field 'NAME': what is wrong"), strict field parsing without heap traffic on the
// success path, CSV header and row splitting, cached model / device-type lookups, and the
// WorkloadBuilder that applies the bad-row policy, max_jobs, the sort and the renumbering.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/trace/trace.h"

namespace hetsched::trace_internal {

// Where a row came from, for error messages.
struct RowRef {
  std::string_view origin;
  int line = 0;
};

// "origin:line: field 'field': what"
Status FieldError(const RowRef& row, std::string_view field, std::string_view what);
// "origin:line: what"
Status RowError(const RowRef& row, std::string_view what);

// Strict parses: the field (spaces trimmed) must be a whole number. Nothing is allocated unless
// the parse fails.
Status ParseIntField(const RowRef& row, std::string_view field, std::string_view text,
                     long long* out);
Status ParseDoubleField(const RowRef& row, std::string_view field, std::string_view text,
                        double* out);
// A time or duration in seconds: finite and >= 0.
Status ParseSecondsField(const RowRef& row, std::string_view field, std::string_view text,
                         double* out);
// A requested GPU count: an integer >= 1 (negative and zero are errors with their own message).
Status ParseGpuCountField(const RowRef& row, std::string_view field, std::string_view text,
                          int* out);
// An iteration count: an integer >= 1.
Status ParseIterationsField(const RowRef& row, std::string_view field, std::string_view text,
                            int64_t* out);

// Splits on `sep` into `out` (cleared first); no quoting rules, no allocation once `out` has
// grown to the row width.
void SplitInto(std::string_view line, char sep, std::vector<std::string_view>* out);

// Splits CSV rows: a fast path for rows without quotes, RFC 4180 quoting otherwise. The views
// returned stay valid until the next call.
class CsvRowSplitter {
 public:
  Status Split(const RowRef& row, std::string_view line);
  const std::vector<std::string_view>& fields() const { return fields_; }

 private:
  std::vector<std::string_view> fields_;
  std::vector<std::string> unquoted_;
};

// A header row: column name -> index. Names are matched case-sensitively after trimming.
class ColumnMap {
 public:
  // Every name in `required` must be present. Names in neither list are an error unless
  // `allow_unknown` (the real Helios files carry more columns than we read).
  static Result<ColumnMap> FromHeader(const RowRef& row, std::string_view line,
                                      std::span<const std::string_view> required,
                                      std::span<const std::string_view> optional,
                                      bool allow_unknown);
  int Index(std::string_view name) const;  // -1 when absent
  int size() const { return static_cast<int>(names_.size()); }

 private:
  std::vector<std::string> names_;
};

// Zoo lookups cached by the text the trace uses. An unknown model is an error naming the field.
class ModelResolver {
 public:
  explicit ModelResolver(const ModelZoo& zoo) : zoo_(zoo) {}
  Status Resolve(const RowRef& row, std::string_view field, std::string_view name,
                 const ModelProfile** out);

 private:
  const ModelZoo& zoo_;
  std::map<std::string, const ModelProfile*, std::less<>> cache_;
};

// Parses a ';'-separated list of device type names (empty = any), cached by the whole text.
class DeviceListResolver {
 public:
  explicit DeviceListResolver(const DeviceCatalog& devices) : devices_(devices) {}
  Status Resolve(const RowRef& row, std::string_view field, std::string_view text,
                 const std::vector<DeviceTypeId>** out);

 private:
  const DeviceCatalog& devices_;
  std::map<std::string, std::vector<DeviceTypeId>, std::less<>> cache_;
};

// Data parallel over a ring for multi-GPU jobs, a single device otherwise.
Parallelism DefaultParallelism(int num_gpus);

// True when `text` holds nothing but white space.
bool IsBlank(std::string_view text);

// Collects the jobs of one read and applies TraceReadOptions.
class WorkloadBuilder {
 public:
  static constexpr int kMaxSkippedReasons = 10;

  WorkloadBuilder(std::string origin, const TraceReadOptions& options);

  void CountRow() { ++rows_read_; }
  // A bad row: under kStop returns `error` (the read stops); under kSkip counts it, keeps the
  // message if fewer than kMaxSkippedReasons are kept, and returns Ok.
  Status BadRow(Status error);
  // A well-formed row left out by design (a zero-second job, a CPU-only job): counted as
  // skipped under either policy, never an error.
  void FilteredRow(std::string reason);
  // max_jobs reached: the reader stops.
  bool Full() const;
  void Add(Job job) { jobs_.push_back(std::move(job)); }
  std::vector<Job>& jobs() { return jobs_; }
  // For traces stamped with dates or an arbitrary origin: the earliest submission becomes 0.
  void ShiftSubmitTimesToZero();

  // Sorts by (submit time, order added), renumbers ids 0..n-1 in that order.
  Workload Finish();

 private:
  void KeepReason(std::string reason);

  std::string origin_;
  const TraceReadOptions& options_;
  std::vector<Job> jobs_;
  long long rows_read_ = 0;
  long long rows_skipped_ = 0;
  std::vector<std::string> reasons_;
};

// What a reader's row callback did with its row.
enum class RowOutcome {
  kAdd,      // the job is filled in: add it
  kLeftOut,  // a well-formed row left out by design; the callback called FilteredRow
};

// The row loop every reader shares. Lines that are blank (or, with `comments`, start with '#')
// are not rows. `on_header`, when set, gets the first row and returns whether it was a header
// (consumed) or a data row; its error stops the read. For each data row: the read stops once
// max_jobs jobs are in, the row is counted, and `on_row` fills a job; its error goes to the
// bad-row policy (kStop: returned; kSkip: counted and kept as a reason).
using HeaderFn = std::function<Result<bool>(const RowRef& row, std::string_view line)>;
using RowFn = std::function<Result<RowOutcome>(const RowRef& row, std::string_view line, Job* job)>;
Status ForEachRow(std::string_view origin, std::string_view text, bool comments, WorkloadBuilder* builder,
                  const HeaderFn& on_header, const RowFn& on_row);

// ForEachRow for a CSV table whose first row is a header (ColumnMap::FromHeader with these
// columns). `on_header` gets the column map; each data row is split (RFC 4180 quoting) and must
// have as many fields as the header ("wrong field count" otherwise) before `on_row` sees them.
struct CsvTable {
  std::span<const std::string_view> required;
  std::span<const std::string_view> optional;
  bool allow_unknown = false;  // columns in neither list are allowed
  bool comments = false;       // lines starting with '#' are comments
};
using CsvHeaderFn = std::function<Status(const RowRef& row, const ColumnMap& columns)>;
using CsvRowFn =
    std::function<Result<RowOutcome>(const RowRef& row, const std::vector<std::string_view>& fields, Job* job)>;
// Returns whether a header was found (false: no rows at all), or the error that stopped the read.
Result<bool> ForEachCsvRow(std::string_view origin, std::string_view text, const CsvTable& table,
                           WorkloadBuilder* builder, const CsvHeaderFn& on_header, const CsvRowFn& on_row);

}  // namespace hetsched::trace_internal
