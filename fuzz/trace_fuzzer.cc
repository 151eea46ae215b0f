// Fuzzes one trace reader (HETSCHED_FUZZ_FORMAT: native, gavel, tiresias, philly-runtime,
// helios, pai, auto) through ParseTrace, under both bad-row policies. Whatever it accepts must be
// a well-formed workload (ids 0..n-1 in submit order, counts >= 1, finite times) that the native
// writer writes and the native reader reads back to the same jobs.
//
// pai: the input is the job table, a form feed, then the task table; besides the in-memory parse,
// the same tables are written as files to a private directory and the job table is read from
// there, so that the reader's lookup of its task table beside the job table is fuzzed too (it
// must agree with the in-memory parse, and name the missing file when there is no form feed). auto: the first byte picks
// the file name the detector sees (by extension and prefix), the rest is the text.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_common.h"
#include "hetsched/model/device.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/trace/formats.h"
#include "hetsched/trace/trace.h"

namespace {

using namespace hetsched;

void CheckWorkload(const Workload& w) {
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const JobSpec& s = w.jobs[i].spec;
    fuzz::Check(s.id == static_cast<JobId>(i), "ids are 0..n-1");
    fuzz::Check(i == 0 || w.jobs[i - 1].spec.submit_time_s <= s.submit_time_s, "jobs sorted by submit time");
    fuzz::Check(std::isfinite(s.submit_time_s) && s.submit_time_s >= 0, "submit time finite and >= 0");
    fuzz::Check(s.num_gpus >= 1, "num_gpus >= 1");
    fuzz::Check(s.iterations >= 1, "iterations >= 1");
    fuzz::Check(std::isfinite(w.jobs[i].truth.total_iterations) && w.jobs[i].truth.total_iterations > 0,
                "true iterations finite and > 0");
  }
  fuzz::Check(w.rows_skipped <= w.rows_read, "skipped rows <= rows read");
}

// The native writer keeps one job per line: a line break inside a name becomes a space
// (docs/formats-trace.md, native).
std::string OnOneLine(std::string text) {
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return text;
}

// What the native writer writes, the native reader must read back to the same jobs.
void CheckRoundTrip(const Workload& w, const DeviceCatalog& devices, const ModelZoo& zoo) {
  const std::string text = ToNativeTrace(w, devices);
  Result<Workload> back = ParseTrace(text, "roundtrip.csv", "native", TraceReadOptions{}, devices, zoo);
  if (!back.ok()) fuzz::Fail("native round trip refused", back.status().message());
  fuzz::Check(back->jobs.size() == w.jobs.size(), "native round trip keeps every job");
  for (size_t i = 0; i < w.jobs.size(); ++i) {
    const JobSpec& a = w.jobs[i].spec;
    const JobSpec& b = back->jobs[i].spec;
    if (!(OnOneLine(a.name) == b.name && OnOneLine(a.user) == b.user && a.model == b.model && a.num_gpus == b.num_gpus &&
          a.iterations == b.iterations && a.allowed_types == b.allowed_types && a.application == b.application &&
          a.adaptive_batch == b.adaptive_batch && a.elastic == b.elastic &&
          (a.application.empty() || a.total_batch_size == b.total_batch_size))) {
      fuzz::Fail("native round trip changes a job", "name '" + a.name + "' -> '" + b.name + "', user '" + a.user +
                                                        "' -> '" + b.user + "', model " + a.model + " -> " + b.model);
    }
  }
}

// A private directory for the PAI tables as files (made once per process).
const std::string& PaiDir() {
  // Never destroyed: the exit handler below still reads it.
  static const std::string& dir = *new std::string([] {
    std::string templ = (std::filesystem::temp_directory_path() / "hetsched_fuzz_pai_XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) fuzz::Fail("cannot make a temporary directory", templ);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(PaiDir(), ec);
    });
    return templ;
  }());
  return dir;
}

void WriteWhole(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) fuzz::Fail("cannot write", path.string());
}

// The PAI job table read from a file, its task table looked up beside it (absent when the input
// has no form feed); checked against the in-memory parse `memory`.
void CheckPaiFiles(std::string_view text, const TraceReadOptions& options, const Result<Workload>& memory) {
  const size_t split = text.find('\f');
  const std::filesystem::path dir = PaiDir();
  const std::filesystem::path jobs_path = dir / "pai_job_table.csv", tasks_path = dir / "pai_task_table.csv";
  WriteWhole(jobs_path, text.substr(0, split));
  std::filesystem::remove(tasks_path);
  if (split != std::string_view::npos) WriteWhole(tasks_path, text.substr(split + 1));
  Result<Workload> files = ParseTrace(text.substr(0, split), jobs_path.string(), "pai", options, DeviceCatalog::BuiltIn(),
                                      ModelZoo::BuiltIn());
  fuzz::CheckMessage(files.status());
  if (split == std::string_view::npos) {
    fuzz::Check(!files.ok(), "a PAI job table without its task table is refused");
    return;
  }
  fuzz::Check(files.ok() == memory.ok(), "the PAI reader agrees on files and in memory");
  if (files.ok()) fuzz::Check(files->jobs.size() == memory->jobs.size(), "the same PAI jobs from files and memory");
}

Result<Workload> Parse(std::string_view text, const TraceReadOptions& options) {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const ModelZoo& zoo = ModelZoo::BuiltIn();
  const std::string format = HETSCHED_FUZZ_FORMAT;
  if (format == "pai") {
    const size_t split = text.find('\f');
    const std::string_view jobs = text.substr(0, split);
    const std::string_view tasks = split == std::string_view::npos ? std::string_view() : text.substr(split + 1);
    const std::string origin = "pai_job_table.csv";
    const trace_internal::FormatInput in{jobs, origin, options, devices, zoo};
    return trace_internal::ParsePaiTables(in, tasks, "pai_task_table.csv");
  }
  if (format == "auto") {
    static const char* const kNames[] = {"t.trace", "t.csv", "t.txt", "pai_job_table.csv"};
    if (text.empty()) return Status::InvalidArgument("empty");
    const std::string origin = kNames[static_cast<unsigned char>(text[0]) % 4];
    // The PAI reader would look for its task table on disk: the pai target covers it.
    if (origin == "pai_job_table.csv") {
      Result<std::string> detected = trace_internal::DetectFormat(text.substr(1), origin);
      if (!detected.ok()) return detected.status();
      return Status::InvalidArgument("pai detected");
    }
    return ParseTrace(text.substr(1), origin, format, options, devices, zoo);
  }
  return ParseTrace(text, "fuzz.trace", format, options, devices, zoo);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::AsText(data, size);
  for (BadRowPolicy policy : {BadRowPolicy::kStop, BadRowPolicy::kSkip}) {
    TraceReadOptions options;
    options.on_bad_row = policy;
    Result<Workload> w = Parse(text, options);
    fuzz::CheckMessage(w.status());
    if (std::string_view(HETSCHED_FUZZ_FORMAT) == "pai") CheckPaiFiles(text, options, w);
    if (!w.ok()) continue;
    CheckWorkload(*w);
    for (const std::string& reason : w->skipped_reasons) fuzz::CheckMessage(Status::ParseError(reason));
    CheckRoundTrip(*w, DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
  }
  return 0;
}
