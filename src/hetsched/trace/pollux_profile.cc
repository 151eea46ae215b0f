#include "hetsched/trace/pollux_profile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <span>

#include "hetsched/trace/reader_common.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched {

using trace_internal::ColumnMap;
using trace_internal::CsvRowSplitter;
using trace_internal::FieldError;
using trace_internal::ParseDoubleField;
using trace_internal::ParseIntField;
using trace_internal::RowRef;

namespace {

// The fields of one data row, by column name.
class ProfileRow {
 public:
  ProfileRow(const RowRef& ref, const ColumnMap& columns, const std::vector<std::string_view>& fields)
      : ref_(ref), columns_(columns), fields_(fields) {}
  std::string_view Text(std::string_view name) const {
    return fields_[static_cast<size_t>(columns_.Index(name))];
  }
  Status Whole(std::string_view name, long long min, long long* out) const {
    HETSCHED_RETURN_IF_ERROR(ParseIntField(ref_, name, Text(name), out));
    if (*out < min) return FieldError(ref_, name, "must be >= " + std::to_string(min) + ", got " + std::to_string(*out));
    return Status::Ok();
  }
  Status Int(std::string_view name, int min, int* out) const {
    long long v = 0;
    HETSCHED_RETURN_IF_ERROR(Whole(name, min, &v));
    if (v > 1'000'000'000) return FieldError(ref_, name, "is too large: " + std::to_string(v));
    *out = static_cast<int>(v);
    return Status::Ok();
  }
  // A finite number >= 0 (`positive`: > 0).
  Status Number(std::string_view name, bool positive, double* out) const {
    HETSCHED_RETURN_IF_ERROR(ParseDoubleField(ref_, name, Text(name), out));
    if (!std::isfinite(*out) || *out < 0 || (positive && *out == 0)) {
      return FieldError(ref_, name, std::string("must be a finite number ") + (positive ? "> 0" : ">= 0"));
    }
    return Status::Ok();
  }
  const RowRef& ref() const { return ref_; }

 private:
  const RowRef& ref_;
  const ColumnMap& columns_;
  const std::vector<std::string_view>& fields_;
};

// Each data row of a CSV table with exactly `columns` (any order), as a ProfileRow.
Status ForEachProfileRow(std::string_view text, const std::string& origin, std::span<const std::string_view> columns,
                  const std::function<Status(const ProfileRow&)>& on_row) {
  CsvRowSplitter splitter;
  std::optional<ColumnMap> header;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trace_internal::IsBlank(line)) continue;
    const RowRef ref{origin, line_no};
    if (!header) {
      HETSCHED_ASSIGN_OR_RETURN(ColumnMap map, ColumnMap::FromHeader(ref, line, columns, {}, false));
      header.emplace(std::move(map));
      continue;
    }
    HETSCHED_RETURN_IF_ERROR(splitter.Split(ref, line));
    if (static_cast<int>(splitter.fields().size()) != header->size()) {
      return trace_internal::RowError(ref, "wrong field count: " + std::to_string(splitter.fields().size()) +
                                               " fields, the header has " + std::to_string(header->size()));
    }
    HETSCHED_RETURN_IF_ERROR(on_row(ProfileRow(ref, *header, splitter.fields())));
  }
  if (!header) return Status::ParseError(origin + ": empty: no header row");
  return Status::Ok();
}

constexpr std::string_view kPlacementColumns[] = {"placement", "local_bsz", "step_time", "sync_time"};
constexpr std::string_view kScalabilityColumns[] = {"num_nodes", "num_replicas", "local_bsz", "step_time",
                                                    "sync_time"};
constexpr std::string_view kValidationColumns[] = {"progress", "iteration", "metric", "grad_sqr", "grad_var"};

}  // namespace

Result<std::vector<PolluxPlacementRow>> ParsePolluxPlacements(std::string_view text, const std::string& origin) {
  std::vector<PolluxPlacementRow> rows;
  const auto parse = [&](const ProfileRow& row) -> Status {
    PolluxPlacementRow r;
    r.placement = std::string(Trim(row.Text("placement")));
    if (r.placement.empty() || r.placement.size() > 64 ||
        !std::all_of(r.placement.begin(), r.placement.end(), [](char c) { return c >= '1' && c <= '9'; })) {
      return FieldError(row.ref(), "placement",
                        "must be one digit 1-9 per node (the GPUs used there), got " + Quoted(r.placement));
    }
    HETSCHED_RETURN_IF_ERROR(row.Int("local_bsz", 1, &r.local_bsz));
    HETSCHED_RETURN_IF_ERROR(row.Number("step_time", true, &r.step_time_s));
    HETSCHED_RETURN_IF_ERROR(row.Number("sync_time", false, &r.sync_time_s));
    rows.push_back(std::move(r));
    return Status::Ok();
  };
  HETSCHED_RETURN_IF_ERROR(ForEachProfileRow(text, origin, kPlacementColumns, parse));
  return rows;
}

Result<std::vector<PolluxScalabilityRow>> ParsePolluxScalability(std::string_view text, const std::string& origin) {
  std::vector<PolluxScalabilityRow> rows;
  const auto parse = [&](const ProfileRow& row) -> Status {
    PolluxScalabilityRow r;
    HETSCHED_RETURN_IF_ERROR(row.Int("num_nodes", 1, &r.num_nodes));
    HETSCHED_RETURN_IF_ERROR(row.Int("num_replicas", 1, &r.num_replicas));
    if (r.num_replicas < r.num_nodes) {
      return FieldError(row.ref(), "num_replicas",
                        "must be >= num_nodes (" + std::to_string(r.num_nodes) + "), got " +
                            std::to_string(r.num_replicas));
    }
    HETSCHED_RETURN_IF_ERROR(row.Int("local_bsz", 1, &r.local_bsz));
    HETSCHED_RETURN_IF_ERROR(row.Number("step_time", true, &r.step_time_s));
    HETSCHED_RETURN_IF_ERROR(row.Number("sync_time", false, &r.sync_time_s));
    rows.push_back(r);
    return Status::Ok();
  };
  HETSCHED_RETURN_IF_ERROR(ForEachProfileRow(text, origin, kScalabilityColumns, parse));
  return rows;
}

Result<std::vector<PolluxValidationRow>> ParsePolluxValidation(std::string_view text, const std::string& origin) {
  std::vector<PolluxValidationRow> rows;
  const auto parse = [&](const ProfileRow& row) -> Status {
    PolluxValidationRow r;
    HETSCHED_RETURN_IF_ERROR(row.Number("progress", false, &r.progress));
    HETSCHED_RETURN_IF_ERROR(row.Whole("iteration", 0, &r.iteration));
    HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row.ref(), "metric", row.Text("metric"), &r.metric));
    HETSCHED_RETURN_IF_ERROR(row.Number("grad_sqr", false, &r.grad_sqr));
    HETSCHED_RETURN_IF_ERROR(row.Number("grad_var", false, &r.grad_var));
    if (!rows.empty() && (r.progress < rows.back().progress || r.iteration < rows.back().iteration)) {
      return FieldError(row.ref(), r.progress < rows.back().progress ? "progress" : "iteration",
                        "decreases from the row before (epochs are in order, their counts cumulative)");
    }
    rows.push_back(r);
    return Status::Ok();
  };
  HETSCHED_RETURN_IF_ERROR(ForEachProfileRow(text, origin, kValidationColumns, parse));
  return rows;
}

Result<PolluxModelProfile> LoadPolluxModelProfile(const std::string& dir, const std::string& model,
                                                  const std::string& gpu_type) {
  namespace fs = std::filesystem;
  PolluxModelProfile profile;
  profile.model = model;
  const std::string base = dir + "/" + model + "/";
  const std::string suffix = gpu_type.empty() ? "" : "-" + gpu_type;
  const std::string placements = base + "placements" + suffix + ".csv";
  const std::string scalability = base + "scalability" + suffix + ".csv";
  HETSCHED_ASSIGN_OR_RETURN(const std::string placements_text, ReadFile(placements));
  HETSCHED_ASSIGN_OR_RETURN(profile.placements, ParsePolluxPlacements(placements_text, placements));
  HETSCHED_ASSIGN_OR_RETURN(const std::string scalability_text, ReadFile(scalability));
  HETSCHED_ASSIGN_OR_RETURN(profile.scalability, ParsePolluxScalability(scalability_text, scalability));
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(base, ec)) names.push_back(entry.path().filename().string());
  if (ec) return Status::IoError(base + ": cannot list: " + ec.message());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    constexpr std::string_view kPrefix = "validation-", kSuffix = ".csv";
    if (name.rfind(kPrefix, 0) != 0 || name.size() <= kPrefix.size() + kSuffix.size() ||
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
      continue;
    }
    const std::string bsz = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
    const Result<long long> batch = ParseInt(bsz, "batch size");
    if (!batch.ok() || *batch < 1 || *batch > 1'000'000'000) {
      return Status::InvalidArgument(base + name + ": the name's batch size must be a whole number >= 1, got " +
                                     Quoted(bsz));
    }
    HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFile(base + name));
    HETSCHED_ASSIGN_OR_RETURN(profile.validation[static_cast<int>(*batch)], ParsePolluxValidation(text, base + name));
  }
  if (profile.validation.empty()) return Status::InvalidArgument(base + ": no validation-BSZ.csv");
  return profile;
}

}  // namespace hetsched
