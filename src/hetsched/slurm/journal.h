// The agent's append-only journal: one JSON object per line, appended with write() (and fsync()
// when asked, or at Sync()), so that a restarted agent (after kill -9) knows every decision it
// made; the agent syncs before each release and once per poll (agent.h). Replayed on start and reconciled with what Slurm reports
// (docs/slurm.md, "Journal format").
//
// A last line cut short by a crash (no trailing newline or not valid JSON) is dropped with a
// warning and the file truncated to the last whole record; a bad line anywhere else is an error
// naming the file and the line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/model/job.h"
#include "hetsched/util/status.h"

namespace hetsched::slurm {

struct JournalRecord {
  std::string event;                 // "agent_start", "admit", "reject", "place", "release",
                                     // "unplace", "start", "preempt", "hold", "requeue", "finish",
                                     // "measure", "measure_bad", "repick"
  JobId job = -1;
  double time_s = 0;                 // epoch seconds (the agent's clock, or Slurm's time)
  std::vector<std::string> nodes;    // place/start: Slurm node names
  std::vector<int> devices;          // place/start: hetsched device ids
  std::string type;                  // place/start: catalog device type name
  std::string state;                 // finish: Slurm's final state
  std::string text;                  // reject/unplace: the reason; agent_start: the methods;
                                     // place of a goodput job, repick: its .alloc as written
  long long value = 0;               // finish: Slurm's exit_code (a wait status); start, preempt,
                                     // hold, requeue: Slurm's restart count; repick: the alloc's seq
  // admit: what the job asked for (so that metrics survive the job leaving squeue)
  std::string name;
  std::string model;
  int gpus = 0;
  long long iterations = 0;
  double submit_s = 0;               // Slurm submit time, epoch seconds
  // admit of a goodput job (docs/slurm.md, "Goodput jobs"): its comment's goodput fields, so that
  // a restarted agent rebuilds its state without Slurm's comment.
  std::string application;
  int total_batch = 0;
  bool adaptive = false, elastic = false;
  // measure (`text` = the line, `type` = the GPU type it was measured on) and measure_bad (`text`
  // = why): where that line of the job's metrics file ends, and its number.
  long long offset = 0;
  int line = 0;

  static JournalRecord Of(std::string ev, JobId id = -1, std::string why = {}) {
    JournalRecord r;
    r.event = std::move(ev);
    r.job = id;
    r.text = std::move(why);
    return r;
  }
};

class Journal {
 public:
  // Opens (creating) `path` for appending and reads what it holds. `warning` receives a message
  // when a torn last record was dropped.
  static Result<Journal> Open(const std::string& path, std::string* warning);
  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&& other) noexcept;
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal();

  const std::vector<JournalRecord>& replayed() const { return replayed_; }
  // Appends one record and (when `sync`) fsyncs. A write that fails (a full disk) leaves no part
  // of the record behind: the file is cut back to its last whole record, and the journal stays
  // usable; if even that cut fails, every later Append and Sync fails. Records appended with
  // sync=false are durable after the next Sync(). The agent stops on any error (agent.h).
  Status Append(const JournalRecord& record, bool sync = true);
  Status Sync();
  const std::string& path() const { return path_; }

  static std::string Encode(const JournalRecord& record);  // one line, no newline
  static Result<JournalRecord> Decode(const std::string& line, const std::string& where);

  // What a journal's text holds: the whole records, where they end (the file is cut there) and
  // the warning for a torn last record (empty when none). A bad record before the last is an
  // error naming `path` and the line. Open() reads the file through this.
  struct Replay {
    std::vector<JournalRecord> records;
    size_t good_end = 0;
    std::string warning;
  };
  static Result<Replay> Parse(std::string_view text, const std::string& path);

 private:
  Journal() = default;
  std::string path_;
  int fd_ = -1;
  size_t size_ = 0;  // bytes of whole records in the file
  Status broken_;    // set when a failed write could not be undone
  std::vector<JournalRecord> replayed_;
};

}  // namespace hetsched::slurm
