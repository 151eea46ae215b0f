// The agent's light way of reading Slurm 22.05's job queue: `squeue -h -O ...` with fields
// separated by '|', one job per line. Unlike `squeue --json` (which in 22.05 ignores -p/-t/-j and
// costs ~3 KB of JSON per job), it honours the filters and prints ~100 bytes per job.
//
// Free text (job names, comments: any character, newlines included) is never part of the poll:
// it is fetched separately for the jobs that need it (`FetchTextField`), one field per command,
// last on its line, and the answer is accepted only when it has exactly one line per job asked;
// otherwise each job is asked alone, and its whole answer is the text. The allocation detail
// (GPU indices per node) comes from `scontrol show job -d` for the jobs that need it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/slurm/command_runner.h"
#include "hetsched/slurm/slurm_json.h"
#include "hetsched/util/status.h"

namespace hetsched::slurm {

// squeue's argument vector for a poll of every job of `partition` (all partitions when empty) in
// any state Slurm still lists: pending, running, and ended for MinJobAge.
std::vector<std::string> SqueuePollCommand(const std::string& partition);
// Parses its output (every field of SlurmJob but name, comment and gres_detail). Times are
// squeue's local ISO times ("2026-11-23T08:59:13"; "N/A", "Unknown", "None" = 0). An error names
// `origin`, the line and the field.
Result<std::vector<SlurmJob>> ParseSqueuePoll(std::string_view text, const std::string& origin);

// squeue's argument vector printing `field` ("Comment", "Name") of the jobs `ids`, after the id.
std::vector<std::string> SqueueTextCommand(const std::vector<long long>& ids, const std::string& field);
// Output of SqueueTextCommand -> id -> text. Fails (the caller then asks job by job) unless every
// line is "<id>|<text>" with an id asked for, each id at most once. "(null)" reads as empty.
Result<std::map<long long, std::string>> ParseSqueueText(std::string_view text, const std::vector<long long>& ids);
// The text of `field` for each of `ids` (batched, then one by one when the batch is ambiguous:
// a text with a newline). Jobs Slurm no longer knows are left out.
Result<std::map<long long, std::string>> FetchTextField(CommandRunner& runner, const std::vector<long long>& ids,
                                                        const std::string& field);

// `scontrol show job -d ID` -> node name -> that node's GRES allocation ("gpu:a100:4(IDX:0-3)"),
// from its "Nodes=<host list> CPU_IDs=... GRES=..." lines.
Result<std::map<std::string, std::string>> ParseScontrolGresDetail(std::string_view text, const std::string& origin);

// slurmctld's start (epoch seconds) from `scontrol show config`'s line "BOOT_TIME = 2026-...".
Result<double> ParseBootTime(std::string_view show_config, const std::string& origin);

// "2026-11-23T08:59:13" (local time) -> epoch seconds; "N/A", "Unknown", "None", "" -> 0.
Result<double> ParseSlurmTime(std::string_view text, std::string_view what);

}  // namespace hetsched::slurm
