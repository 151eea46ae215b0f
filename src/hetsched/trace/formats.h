// Private to trace/: one parser per trace format (each in <format>_format.cc), dispatched by
// ParseTrace in trace.cc. Every parser reports bad rows as "origin:LINE: field 'NAME': ..." and
// applies TraceReadOptions through WorkloadBuilder. Formats: docs/formats-trace.md.
#pragma once

#include <string>
#include <string_view>

#include "hetsched/trace/trace.h"

namespace hetsched::trace_internal {

struct FormatInput {
  std::string_view text;
  const std::string& origin;  // path or name, for messages; the PAI parser finds its task table next to it
  const TraceReadOptions& options;
  const DeviceCatalog& devices;
  const ModelZoo& zoo;
};

Result<Workload> ParseNative(const FormatInput& in);
Result<Workload> ParseGavel(const FormatInput& in);
Result<Workload> ParseTiresias(const FormatInput& in);
Result<Workload> ParsePhillyRuntime(const FormatInput& in);
Result<Workload> ParsePai(const FormatInput& in);
Result<Workload> ParseHelios(const FormatInput& in);
Result<Workload> ParsePolluxWorkload(const FormatInput& in);
// ParsePai's work once the task table is read (`task_path` names it in errors); the fuzzer
// calls it with both tables in memory.
Result<Workload> ParsePaiTables(const FormatInput& in, std::string_view task_text, const std::string& task_path);

// What the format-less traces (philly-runtime, pai, helios) draw their missing sizes, models and
// arrivals from: the synthetic defaults, seed kFillInSeed, the reader's reference device.
inline constexpr unsigned long long kFillInSeed = 1;
SyntheticOptions FillInOptions(const TraceReadOptions& options);

// "auto": picks a format from the file name and the first non-blank line; an error lists the
// formats when nothing matches.
Result<std::string> DetectFormat(std::string_view text, const std::string& origin);

}  // namespace hetsched::trace_internal
