#include "hetsched/slurm/squeue_text.h"

#include <climits>
#include <ctime>

#include <algorithm>

#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::slurm {

namespace {

// The poll's fields, in order; every one is printed with the suffix '|' and none can contain it.
constexpr const char* kPollFields[] = {"JobID",      "ArrayJobID", "ArrayTaskID", "State",       "Reason",
                                       "Partition",  "UserName",   "NumNodes",    "tres-per-job", "tres-per-node",
                                       "RestartCnt", "exit_code",  "SubmitTime",  "StartTime",   "EndTime",
                                       "PriorityLong", "NodeList"};
constexpr size_t kNumPollFields = sizeof kPollFields / sizeof kPollFields[0];

// Slurm's ways of saying "no value" (22.05 prints both "None" and "NONE" for an end time).
bool IsNone(std::string_view v) {
  const std::string lower = ToLower(v);
  return lower.empty() || lower == "n/a" || lower == "(null)" || lower == "none" || lower == "unknown";
}

std::string Value(std::string_view v) { return IsNone(v) ? std::string() : std::string(v); }

// A count or code that must fit an int: [min, max].
Result<int> Int(std::string_view v, const std::string& what, long long min, long long max) {
  if (IsNone(v)) return 0;
  HETSCHED_ASSIGN_OR_RETURN(const long long n, ParseInt(v, what));
  if (n < min || n > max) {
    return Status::ParseError(what + ": " + std::to_string(n) + " is outside [" + std::to_string(min) + ", " +
                              std::to_string(max) + "]");
  }
  return static_cast<int>(n);
}
constexpr long long kMaxCount = 10'000'000;

std::string Joined(const std::vector<long long>& ids) {
  std::string out;
  for (long long id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

}  // namespace

Result<double> ParseSlurmTime(std::string_view text, std::string_view what) {
  if (IsNone(text)) return 0.0;
  std::tm tm{};
  const std::string s(text);
  const char* end = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr || *end != '\0') {
    return Status::ParseError(std::string(what) + ": " + Quoted(s) + " is not a time like 2026-11-23T08:59:13");
  }
  tm.tm_isdst = -1;  // squeue prints local time, daylight saving as it applies then
  return static_cast<double>(std::mktime(&tm));
}

std::vector<std::string> SqueuePollCommand(const std::string& partition) {
  std::string format;
  for (const char* f : kPollFields) format += (format.empty() ? "" : ",") + std::string(f) + ":|";
  std::vector<std::string> argv = {"squeue", "-h", "-t", "all", "-O", format};
  if (!partition.empty()) {
    argv.push_back("-p");
    argv.push_back(partition);
  }
  return argv;
}

Result<std::vector<SlurmJob>> ParseSqueuePoll(std::string_view text, const std::string& origin) {
  std::vector<SlurmJob> jobs;
  int line_no = 0;
  for (std::string_view line : Split(text, '\n')) {
    ++line_no;
    if (Trim(line).empty()) continue;
    const std::string where = origin + ": line " + std::to_string(line_no);
    std::vector<std::string_view> f = Split(line, '|');
    // Every field ends with '|': kNumPollFields fields, then an empty remainder.
    if (f.size() != kNumPollFields + 1 || !Trim(f.back()).empty()) {
      return Status::ParseError(where + ": expected " + std::to_string(kNumPollFields) + " fields separated by '|', got " +
                                std::to_string(f.size() - 1));
    }
    for (auto& v : f) v = Trim(v);
    auto field = [&](size_t i) { return where + ", field '" + kPollFields[i] + "'"; };
    SlurmJob job;
    HETSCHED_ASSIGN_OR_RETURN(job.id, ParseInt(f[0], field(0)));
    if (!IsNone(f[2])) {
      HETSCHED_ASSIGN_OR_RETURN(job.array_job_id, ParseInt(f[1], field(1)));
    }
    job.state = Value(f[3]);
    if (job.state.empty()) return Status::ParseError(field(3) + ": empty");
    job.reason = Value(f[4]);
    if (job.reason.empty()) job.reason = "None";
    job.partition = Value(f[5]);
    job.user = Value(f[6]);
    HETSCHED_ASSIGN_OR_RETURN(job.node_count, Int(f[7], field(7), 0, kMaxCount));
    job.tres_per_job = Value(f[8]);
    job.tres_per_node = Value(f[9]);
    HETSCHED_ASSIGN_OR_RETURN(job.restart_count, Int(f[10], field(10), 0, kMaxCount));
    HETSCHED_ASSIGN_OR_RETURN(job.exit_code, Int(f[11], field(11), INT_MIN, INT_MAX));
    HETSCHED_ASSIGN_OR_RETURN(job.submit_time_s, ParseSlurmTime(f[12], field(12)));
    HETSCHED_ASSIGN_OR_RETURN(job.start_time_s, ParseSlurmTime(f[13], field(13)));
    HETSCHED_ASSIGN_OR_RETURN(job.end_time_s, ParseSlurmTime(f[14], field(14)));
    if (!IsNone(f[15])) {
      HETSCHED_ASSIGN_OR_RETURN(job.priority, ParseInt(f[15], field(15)));
    }
    if (!IsNone(f[16])) {
      auto expanded = ExpandHostlist(f[16]);
      if (!expanded.ok()) return expanded.status().WithContext(field(16));
      job.nodes = std::move(expanded).value();
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<std::string> SqueueTextCommand(const std::vector<long long>& ids, const std::string& field) {
  return {"squeue", "-h", "-t", "all", "-j", Joined(ids), "-O", "JobID:|," + field + ":0"};
}

Result<std::map<long long, std::string>> ParseSqueueText(std::string_view text, const std::vector<long long>& ids) {
  std::map<long long, std::string> out;
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.empty()) return out;
  for (std::string_view line : Split(text, '\n')) {
    const size_t bar = line.find('|');
    if (bar == std::string_view::npos) return Status::ParseError("squeue text: a line without '|'");
    auto id = ParseInt(Trim(line.substr(0, bar)), "squeue text: job id");
    if (!id.ok()) return id.status();
    if (std::find(ids.begin(), ids.end(), *id) == ids.end() || out.count(*id) > 0) {
      return Status::ParseError("squeue text: job " + std::to_string(*id) + " unexpected or listed twice");
    }
    const std::string_view value = line.substr(bar + 1);
    out[*id] = value == "(null)" ? std::string() : std::string(value);
  }
  return out;
}

Result<std::map<long long, std::string>> FetchTextField(CommandRunner& runner, const std::vector<long long>& ids,
                                                        const std::string& field) {
  if (ids.empty()) return std::map<long long, std::string>{};
  auto all = runner.Run(SqueueTextCommand(ids, field));
  if (!all.ok()) return all.status();
  if (all->exit_code == 0) {
    auto parsed = ParseSqueueText(all->out, ids);
    if (parsed.ok()) return parsed;
  }
  // Ambiguous (a text with a newline) or refused (a job gone: squeue -j fails on an unknown id):
  // one job at a time, where the whole answer is that job's text.
  std::map<long long, std::string> out;
  for (long long id : ids) {
    auto one = runner.Run({"squeue", "-h", "-t", "all", "-j", std::to_string(id), "-O", field + ":0"});
    if (!one.ok()) return one.status();
    if (one->exit_code != 0 || one->out.empty()) continue;
    std::string value = one->out;
    if (value.back() == '\n') value.pop_back();
    out[id] = value == "(null)" ? std::string() : value;
  }
  return out;
}

Result<std::map<std::string, std::string>> ParseScontrolGresDetail(std::string_view text, const std::string& origin) {
  std::map<std::string, std::string> out;
  for (std::string_view line : Split(text, '\n')) {
    line = Trim(line);
    if (line.substr(0, 6) != "Nodes=" || line.find(" CPU_IDs=") == std::string_view::npos) continue;
    const size_t space = line.find(' ');
    const std::string_view hosts = line.substr(6, space - 6);
    const size_t gres = line.find(" GRES=");
    if (gres == std::string_view::npos) continue;  // a node without GRES
    std::string_view value = line.substr(gres + 6);
    value = value.substr(0, value.find(' '));
    auto names = ExpandHostlist(hosts);
    if (!names.ok()) return names.status().WithContext(origin);
    for (const std::string& n : *names) out[n] = std::string(value);
  }
  return out;
}

Result<double> ParseBootTime(std::string_view show_config, const std::string& origin) {
  for (std::string_view line : Split(show_config, '\n')) {
    line = Trim(line);
    if (line.substr(0, 9) != "BOOT_TIME") continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) break;
    HETSCHED_ASSIGN_OR_RETURN(const double t, ParseSlurmTime(Trim(line.substr(eq + 1)), origin + ", BOOT_TIME"));
    if (t > 0) return t;
    break;
  }
  return Status::ParseError(origin + ": no BOOT_TIME line with a time");
}

}  // namespace hetsched::slurm
