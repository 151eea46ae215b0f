// Trace reading entry points: format dispatch and "auto" detection. The per-format parsers live
// in <format>_format.cc; docs/formats-trace.md documents every format.
#include "hetsched/trace/trace.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "hetsched/trace/formats.h"
#include "hetsched/trace/reader_common.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/memory.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched {

std::vector<std::string> TraceFormats() {
  return {"auto", "native", "gavel", "tiresias", "philly-runtime", "pai", "helios", "pollux"};
}

namespace trace_internal {

Result<std::string> DetectFormat(std::string_view text, const std::string& origin) {
  const std::filesystem::path path(origin);
  const std::string file = ToLower(path.filename().string());
  const std::string ext = ToLower(path.extension().string());
  if (ext == ".trace") return std::string("gavel");
  if (file.rfind("pai_job_table", 0) == 0) return std::string("pai");
  LineReader lines(text);
  std::string_view first;
  while (lines.Next(&first) && IsBlank(first)) {
  }
  if (first.find('\t') != std::string_view::npos) return std::string("gavel");
  std::vector<std::string> names;
  for (std::string_view n : Split(first, ',')) names.push_back(ToLower(Trim(n)));
  auto has = [&](std::string_view n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  if (has("submit_time_s") && has("model")) return std::string("native");
  if (has("model_name") && has("num_gpu")) return std::string("tiresias");
  if (has("gpu_num") && has("submit_time")) return std::string("helios");
  if (has("application") && has("num_replicas") && has("batch_size")) return std::string("pollux");
  if (has("runtime")) return std::string("philly-runtime");
  return Status::InvalidArgument(fmt::format(
      "{}: cannot tell the trace format from the name or the first line {}; give one of: {}",
      origin, Quoted(first), fmt::join(TraceFormats(), ", ")));
}

}  // namespace trace_internal

Result<Workload> ParseTrace(std::string_view text, const std::string& origin,
                            const std::string& format, const TraceReadOptions& options,
                            const DeviceCatalog& devices, const ModelZoo& zoo) {
  // Limits up front: every line may be a job.
  double rows = static_cast<double>(std::count(text.begin(), text.end(), '\n') + 1);
  if (options.max_jobs >= 0) rows = std::min(rows, static_cast<double>(options.max_jobs));
  HETSCHED_RETURN_IF_ERROR(CheckMemory(fmt::format("{}: a trace of {:.0f} rows", origin, rows),
                                       static_cast<double>(text.size()) + rows * kBytesPerJob,
                                       options.memory_limit_bytes));
  std::string fmt_name = ToLower(format);
  if (fmt_name == "auto") {
    HETSCHED_ASSIGN_OR_RETURN(fmt_name, trace_internal::DetectFormat(text, origin));
  }
  const trace_internal::FormatInput in{text, origin, options, devices, zoo};
  if (fmt_name == "native") return trace_internal::ParseNative(in);
  if (fmt_name == "gavel") return trace_internal::ParseGavel(in);
  if (fmt_name == "tiresias") return trace_internal::ParseTiresias(in);
  if (fmt_name == "pollux") return trace_internal::ParsePolluxWorkload(in);
  if (fmt_name == "philly-runtime" || fmt_name == "philly") return trace_internal::ParsePhillyRuntime(in);
  if (fmt_name == "pai") return trace_internal::ParsePai(in);
  if (fmt_name == "helios") return trace_internal::ParseHelios(in);
  return Status::InvalidArgument(fmt::format("unknown trace format {} (known: {})", Quoted(format),
                                             fmt::join(TraceFormats(), ", ")));
}

Result<Workload> ReadTrace(const std::string& path, const std::string& format,
                           const TraceReadOptions& options, const DeviceCatalog& devices,
                           const ModelZoo& zoo) {
  // Limits up front: the text itself must fit before it is read.
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) {
    HETSCHED_RETURN_IF_ERROR(CheckMemory(fmt::format("{}: a trace file of {}", path, FormatBytes(static_cast<double>(size))),
                                         static_cast<double>(size), options.memory_limit_bytes));
  }
  // Embedded copies (data/traces/...) let the demo run from any directory.
  HETSCHED_ASSIGN_OR_RETURN(std::string text, ReadFileOrEmbedded(path));
  return ParseTrace(text, path, format, options, devices, zoo);
}

}  // namespace hetsched
