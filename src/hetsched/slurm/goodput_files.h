// The two files through which a goodput job and the agent talk (docs/slurm.md, "Goodput jobs"),
// both in the agent's goodput directory (`--goodput-dir DIR`), named by the Slurm job id:
//
// - DIR/<jobid>.metrics, written by the job: JSON Lines, one measurement per line, appended
//   (format v1; GoodputReport). The agent reads what is new at each poll (MetricsTail): a last
//   line without its newline is still being written, and waits for the next poll.
// - DIR/<jobid>.alloc, written by the agent before it releases the job, and again while it runs
//   whenever the agent re-picks its batch: one JSON object, the configuration the job is to run
//   in (format v1; GoodputAlloc; `seq` tells a new one), replaced atomically (a temp file renamed
//   over it), so that a job never reads half of one.
//
// Nothing here reaches a shell: paths are built from the directory and the numeric job id.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/model/job.h"
#include "hetsched/perf/goodput.h"
#include "hetsched/util/status.h"

namespace hetsched::slurm {

inline constexpr int kGoodputFormatVersion = 1;

// One measurement a job reports of itself: the configuration it ran in (GPUs, nodes, local batch,
// accumulation steps), its pass times there, its gradient statistics, and its progress.
struct GoodputReport {
  int gpus = 0, nodes = 0;
  int local_bsz = 0;                  // per GPU and pass (AdaptDL's atomic batch)
  int accum_steps = 0;                // passes accumulated before each synchronised one
  double accum_step_s = 0;            // one pass without the gradient synchronisation
  double optim_step_s = 0;            // one synchronised pass
  std::optional<GradientStats> grad;  // grad_sqr, grad_var (both, or neither)
  double progress = 0;                // iterations at the application's initial batch, efficiency-weighted
};

// Parses one line of a metrics file. Errors name `where` (file:line) and the field: a line that
// is not a JSON object, v other than 1, a field missing, unknown, of the wrong type or out of
// range (gpus >= nodes >= 1, local_bsz >= 1, accum_steps >= 0, times finite and > 0, gradient
// statistics finite and >= 0, progress finite and >= 0).
Result<GoodputReport> ParseGoodputReport(std::string_view line, const std::string& where);

// A metrics file read incrementally: each Read() returns the whole lines appended since the last
// (a missing file: none yet), leaving a last line without its newline for a later Read(). Cost: one
// stat() per Read(); the file is opened and read only when its size or modification time differs
// from what the last Read() saw (the agent polls every placed job's file: most have not grown).
class MetricsTail {
 public:
  struct Line {
    std::string text;
    int number = 0;     // 1-based line number in the file
    long long end = 0;  // the byte offset just after its newline
  };
  MetricsTail() = default;
  // Starts at byte `offset`, which ends line `line` (a restarted agent resumes where it stopped).
  MetricsTail(std::string path, long long offset = 0, int line = 0)
      : path_(std::move(path)), offset_(offset), line_(line) {}

  // Errors: the file cannot be read, or it is shorter than what was read of it (truncated).
  Result<std::vector<Line>> Read();
  // The times Read() opened and read the file (the rest saw it unchanged and returned no line).
  long long reads() const { return reads_; }
  const std::string& path() const { return path_; }
  long long offset() const { return offset_; }
  int line() const { return line_; }

 private:
  std::string path_;
  long long offset_ = 0;
  int line_ = 0;
  // The file's size and modification time (ns) when last read; -1: not read by this tail.
  long long seen_size_ = -1, seen_mtime_ns_ = -1;
  long long reads_ = 0;
};

// What the agent decided for a goodput job's run, for the job to read at its start and, while it
// runs, whenever `seq` grows (the agent re-picked its batch for the same placement).
struct GoodputAlloc {
  JobId job = 0;
  std::string type;            // catalog GPU type
  std::vector<int> placement;  // GPUs on each node, in the order of `nodes`
  std::vector<std::string> nodes;
  int batch_size = 0;  // the total batch: gpus x local_bsz x (accum_steps + 1)
  int local_bsz = 0, accum_steps = 0;
  bool adaptive = false;  // the job's batch was picked for its goodput (else its user's)
  int restarts = 0;       // placements before this one
  // One more with each allocation written for the job (each placement, each re-picked batch):
  // a job that runs with `seq` s and reads a higher one applies its batch (the same `restarts`:
  // the same placement). Added to v1 on 2026-12-04; a file without it reads as 0.
  int seq = 0;
};

std::string MetricsPath(const std::string& dir, JobId id);
std::string AllocPath(const std::string& dir, JobId id);
std::string EncodeGoodputAlloc(const GoodputAlloc& alloc);  // one JSON object and a newline
std::string GoodputAllocJson(const GoodputAlloc& alloc);    // the same without the newline (as journaled)
// Parses what EncodeGoodputAlloc wrote (without or with its newline). Errors name `where` and the
// field: not a JSON object, v other than 1, a field missing (`seq` may be), unknown, of the wrong
// type or out of range, `gpus` or `batch_size` that do not add up.
Result<GoodputAlloc> DecodeGoodputAlloc(std::string_view text, const std::string& where);
// Writes DIR/<job>.alloc atomically (util/file_io.h WriteFileAtomic).
Status WriteGoodputAlloc(const std::string& dir, const GoodputAlloc& alloc);
// Creates `dir` if missing and checks that the agent can write there (a probe file written and
// removed); the error names the directory and why.
Status PrepareGoodputDir(const std::string& dir);

}  // namespace hetsched::slurm
