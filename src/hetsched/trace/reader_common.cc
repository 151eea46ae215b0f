#include "hetsched/trace/reader_common.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::trace_internal {

Status FieldError(const RowRef& row, std::string_view field, std::string_view what) {
  return Status::ParseError(fmt::format("{}:{}: field '{}': {}", row.origin, row.line, field, what));
}

Status RowError(const RowRef& row, std::string_view what) {
  return Status::ParseError(fmt::format("{}:{}: {}", row.origin, row.line, what));
}

namespace {

// Trim without touching the heap; the readers see "  12" in hand-edited files.
std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Status ParseIntField(const RowRef& row, std::string_view field, std::string_view text,
                     long long* out) {
  std::string_view t = TrimSpaces(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) {
    // Integers written as "4.0" (pandas exports) are accepted when integral.
    double d = 0;
    auto [dptr, dec] = std::from_chars(t.data(), t.data() + t.size(), d);
    if (!t.empty() && dec == std::errc() && dptr == t.data() + t.size() && std::isfinite(d) &&
        d == std::floor(d) && std::fabs(d) < 9e15) {
      *out = static_cast<long long>(d);
      return Status::Ok();
    }
    return FieldError(row, field, "expected an integer, got " + Quoted(text));
  }
  return Status::Ok();
}

Status ParseDoubleField(const RowRef& row, std::string_view field, std::string_view text,
                        double* out) {
  std::string_view t = TrimSpaces(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(*out)) {
    return FieldError(row, field, "expected a number, got " + Quoted(text));
  }
  return Status::Ok();
}

Status ParseSecondsField(const RowRef& row, std::string_view field, std::string_view text,
                         double* out) {
  HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row, field, text, out));
  if (*out < 0) return FieldError(row, field, fmt::format("must be >= 0 seconds, got {}", *out));
  return Status::Ok();
}

Status ParseGpuCountField(const RowRef& row, std::string_view field, std::string_view text,
                          int* out) {
  long long v = 0;
  HETSCHED_RETURN_IF_ERROR(ParseIntField(row, field, text, &v));
  if (v < 0) return FieldError(row, field, fmt::format("GPU count must be >= 1, got {} (negative)", v));
  if (v == 0) return FieldError(row, field, "GPU count must be >= 1, got 0 (a job needs a GPU)");
  // Far beyond any cluster in the literature; guards the int conversion.
  if (v > 1'000'000) return FieldError(row, field, fmt::format("GPU count {} is implausibly large", v));
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status ParseIterationsField(const RowRef& row, std::string_view field, std::string_view text,
                            int64_t* out) {
  long long v = 0;
  HETSCHED_RETURN_IF_ERROR(ParseIntField(row, field, text, &v));
  if (v < 1) return FieldError(row, field, fmt::format("must be >= 1 iteration, got {}", v));
  *out = v;
  return Status::Ok();
}

void SplitInto(std::string_view line, char sep, std::vector<std::string_view>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    size_t p = line.find(sep, start);
    if (p == std::string_view::npos) {
      out->push_back(line.substr(start));
      return;
    }
    out->push_back(line.substr(start, p - start));
    start = p + 1;
  }
}

Status CsvRowSplitter::Split(const RowRef& row, std::string_view line) {
  if (line.find('"') == std::string_view::npos) {
    SplitInto(line, ',', &fields_);
    return Status::Ok();
  }
  Result<std::vector<std::string>> parts = SplitCsvLine(line);
  if (!parts.ok()) return RowError(row, parts.status().message());
  unquoted_ = std::move(parts).value();
  fields_.clear();
  for (const std::string& p : unquoted_) fields_.push_back(p);
  return Status::Ok();
}

Result<ColumnMap> ColumnMap::FromHeader(const RowRef& row, std::string_view line,
                                        std::span<const std::string_view> required,
                                        std::span<const std::string_view> optional,
                                        bool allow_unknown) {
  ColumnMap map;
  for (std::string_view name : Split(line, ',')) {
    std::string n(Trim(name));
    if (n.size() >= 2 && n.front() == '"' && n.back() == '"') n = n.substr(1, n.size() - 2);
    const bool known = std::find(required.begin(), required.end(), n) != required.end() ||
                       std::find(optional.begin(), optional.end(), n) != optional.end();
    if (!known && !allow_unknown) {
      return RowError(row, fmt::format("missing or bad header row: unknown column {} (known: {}, {})",
                                       Quoted(n), fmt::join(required, ", "), fmt::join(optional, ", ")));
    }
    if (map.Index(n) >= 0) return RowError(row, fmt::format("header: column {} appears twice", Quoted(n)));
    map.names_.push_back(std::move(n));
  }
  for (std::string_view r : required) {
    if (map.Index(r) < 0) {
      return RowError(row, fmt::format("missing header row or column '{}' (expected a header "
                                       "naming at least: {}; got {})",
                                       r, fmt::join(required, ","), Quoted(line)));
    }
  }
  return map;
}

int ColumnMap::Index(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

Status ModelResolver::Resolve(const RowRef& row, std::string_view field, std::string_view name,
                              const ModelProfile** out) {
  auto it = cache_.find(name);
  if (it != cache_.end()) {
    *out = it->second;
    return Status::Ok();
  }
  Result<const ModelProfile*> found = zoo_.Lookup(Trim(name));
  if (!found.ok()) return FieldError(row, field, found.status().message());
  cache_.emplace(std::string(name), *found);
  *out = *found;
  return Status::Ok();
}

Status DeviceListResolver::Resolve(const RowRef& row, std::string_view field,
                                   std::string_view text, const std::vector<DeviceTypeId>** out) {
  auto it = cache_.find(text);
  if (it != cache_.end()) {
    *out = &it->second;
    return Status::Ok();
  }
  std::vector<DeviceTypeId> ids;
  if (!Trim(text).empty()) {
    for (std::string_view part : Split(text, ';')) {
      Result<DeviceTypeId> id = devices_.Lookup(Trim(part));
      if (!id.ok()) return FieldError(row, field, id.status().message());
      if (std::find(ids.begin(), ids.end(), *id) == ids.end()) ids.push_back(*id);
    }
  }
  auto [pos, inserted] = cache_.emplace(std::string(text), std::move(ids));
  (void)inserted;
  *out = &pos->second;
  return Status::Ok();
}

Parallelism DefaultParallelism(int num_gpus) {
  return num_gpus > 1 ? Parallelism::kDataRing : Parallelism::kSingle;
}

bool IsBlank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

WorkloadBuilder::WorkloadBuilder(std::string origin, const TraceReadOptions& options)
    : origin_(std::move(origin)), options_(options) {}

Status WorkloadBuilder::BadRow(Status error) {
  if (options_.on_bad_row == BadRowPolicy::kStop) return error;
  ++rows_skipped_;
  KeepReason(error.message());
  return Status::Ok();
}

void WorkloadBuilder::FilteredRow(std::string reason) {
  ++rows_skipped_;
  KeepReason(std::move(reason));
}

void WorkloadBuilder::KeepReason(std::string reason) {
  if (static_cast<int>(reasons_.size()) < kMaxSkippedReasons) reasons_.push_back(std::move(reason));
}

bool WorkloadBuilder::Full() const {
  return options_.max_jobs >= 0 && static_cast<long long>(jobs_.size()) >= options_.max_jobs;
}

void WorkloadBuilder::ShiftSubmitTimesToZero() {
  if (jobs_.empty()) return;
  double first_s = jobs_.front().spec.submit_time_s;
  for (const Job& j : jobs_) first_s = std::min(first_s, j.spec.submit_time_s);
  for (Job& j : jobs_) j.spec.submit_time_s -= first_s;
}

Workload WorkloadBuilder::Finish() {
  auto earlier = [](const Job& a, const Job& b) { return a.spec.submit_time_s < b.spec.submit_time_s; };
  // Traces are usually in arrival order already; skip the sort then.
  if (!std::is_sorted(jobs_.begin(), jobs_.end(), earlier)) {
    std::stable_sort(jobs_.begin(), jobs_.end(), earlier);
  }
  for (size_t i = 0; i < jobs_.size(); ++i) jobs_[i].spec.id = static_cast<JobId>(i);
  Workload w;
  w.jobs = std::move(jobs_);
  w.source = origin_;
  w.rows_read = rows_read_;
  w.rows_skipped = rows_skipped_;
  w.skipped_reasons = std::move(reasons_);
  const bool has_runtimes =
      std::any_of(w.jobs.begin(), w.jobs.end(), [](const Job& j) { return j.truth.runtime_s > 0; });
  if (has_runtimes) w.runtime_device = options_.reference_device;
  return w;
}

Status ForEachRow(std::string_view origin, std::string_view text, bool comments, WorkloadBuilder* builder,
                  const HeaderFn& on_header, const RowFn& on_row) {
  LineReader lines(text);
  std::string_view line;
  bool first = true;
  while (lines.Next(&line)) {
    const RowRef row{origin, lines.line_number()};
    if (IsBlank(line) || (comments && line.front() == '#')) continue;
    if (first) {
      first = false;
      if (on_header) {
        HETSCHED_ASSIGN_OR_RETURN(const bool was_header, on_header(row, line));
        if (was_header) continue;
      }
    }
    if (builder->Full()) break;
    builder->CountRow();
    Job job;
    Result<RowOutcome> outcome = on_row(row, line, &job);
    if (!outcome.ok()) {
      HETSCHED_RETURN_IF_ERROR(builder->BadRow(outcome.status()));
      continue;
    }
    if (*outcome == RowOutcome::kAdd) builder->Add(std::move(job));
  }
  return Status::Ok();
}

Result<bool> ForEachCsvRow(std::string_view origin, std::string_view text, const CsvTable& table,
                           WorkloadBuilder* builder, const CsvHeaderFn& on_header, const CsvRowFn& on_row) {
  CsvRowSplitter splitter;
  size_t width = 0;
  bool found_header = false;
  auto header = [&](const RowRef& row, std::string_view line) -> Result<bool> {
    HETSCHED_ASSIGN_OR_RETURN(ColumnMap columns,
                              ColumnMap::FromHeader(row, line, table.required, table.optional, table.allow_unknown));
    HETSCHED_RETURN_IF_ERROR(on_header(row, columns));
    width = static_cast<size_t>(columns.size());
    found_header = true;
    return true;
  };
  auto data = [&](const RowRef& row, std::string_view line, Job* job) -> Result<RowOutcome> {
    HETSCHED_RETURN_IF_ERROR(splitter.Split(row, line));
    if (splitter.fields().size() != width) {
      return RowError(row, fmt::format("wrong field count: expected {} comma-separated fields (as in the "
                                       "header), got {}", width, splitter.fields().size()));
    }
    return on_row(row, splitter.fields(), job);
  };
  HETSCHED_RETURN_IF_ERROR(ForEachRow(origin, text, table.comments, builder, header, data));
  return found_header;
}

}  // namespace hetsched::trace_internal
