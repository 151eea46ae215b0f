#include "hetsched/slurm/slurm_json.h"

#include <algorithm>
#include <optional>
#include <nlohmann/json.hpp>

#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::slurm {

namespace {

using nlohmann::json;

// Field readers that tolerate Slurm's nulls and report a wrong type with the field's path.
std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}
double Num(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : 0.0;
}
// A whole number within [min, max] (absent or null: 0). Out of range is an error rather than a
// conversion whose result C++ leaves undefined.
Result<long long> Whole(const json& o, const char* key, double min, double max, const std::string& where) {
  const double v = Num(o, key);
  if (!(v >= min && v <= max)) {
    return Status::ParseError(where + ": field '" + key + "' out of range [" + std::to_string(static_cast<long long>(min)) +
                              ", " + std::to_string(static_cast<long long>(max)) + "]");
  }
  return static_cast<long long>(v);
}
constexpr double kMaxSmall = 1e7;                // node counts, restarts, CPUs
constexpr double kMaxId = 9007199254740992.0;    // 2^53: ids and priorities JSON numbers hold exactly
constexpr double kSlurmIntMax = 2147483647.0;

std::vector<std::string> StrList(const json& o, const char* key) {
  std::vector<std::string> out;
  auto it = o.find(key);
  if (it == o.end()) return out;
  if (it->is_array()) {
    for (const auto& e : *it) {
      if (e.is_string()) out.push_back(e.get<std::string>());
    }
  } else if (it->is_string()) {  // "features": "a100,nvlink"
    const std::string joined = it->get<std::string>();  // Split's views point into it
    for (auto part : Split(joined, ',')) {
      if (!Trim(part).empty()) out.emplace_back(Trim(part));
    }
  }
  return out;
}

Result<json> ParseTop(std::string_view text, const std::string& origin, const char* list_key) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::ParseError(origin + ": not valid JSON");
  if (!doc.is_object()) return Status::ParseError(origin + ": top level is not an object");
  if (auto errs = doc.find("errors"); errs != doc.end() && errs->is_array() && !errs->empty()) {
    return Status::IoError(origin + ": Slurm reported errors: " +
                           Printable(errs->dump(-1, ' ', /*ensure_ascii=*/true), kMaxQuotedBytes * 4));
  }
  auto list = doc.find(list_key);
  if (list == doc.end() || !list->is_array()) {
    return Status::ParseError(origin + ": field '" + list_key + "' missing or not an array");
  }
  return doc;
}

// lo..hi is a range of at most 100,001 values within the int range (the difference taken without
// overflow).
bool RangeOk(long long lo, long long hi) {
  return lo >= 0 && hi >= lo && hi <= static_cast<long long>(kSlurmIntMax) &&
         static_cast<unsigned long long>(hi) - static_cast<unsigned long long>(lo) <= 100000;
}

Result<std::vector<int>> ParseIndexList(std::string_view list, std::string_view what) {
  std::vector<int> out;
  for (auto part : Split(list, ',')) {
    part = Trim(part);
    const size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      HETSCHED_ASSIGN_OR_RETURN(long long v, ParseInt(part, what));
      if (v < 0 || v > kSlurmIntMax) return Status::ParseError(std::string(what) + ": bad index " + Quoted(part));
      out.push_back(static_cast<int>(v));
    } else {
      HETSCHED_ASSIGN_OR_RETURN(long long lo, ParseInt(part.substr(0, dash), what));
      HETSCHED_ASSIGN_OR_RETURN(long long hi, ParseInt(part.substr(dash + 1), what));
      if (!RangeOk(lo, hi)) return Status::ParseError(std::string(what) + ": bad range " + Quoted(part));
      for (long long v = lo; v <= hi; ++v) out.push_back(static_cast<int>(v));
    }
  }
  return out;
}

}  // namespace

bool SlurmJob::Held() const {
  if (!Pending()) return false;
  if (state == "REQUEUE_HOLD") return true;
  // JobHeldUser, JobHeldAdmin, JobHoldMaxRequeue, "launch failed requeued held": every reason
  // Slurm gives a held job names the hold; no other reason does.
  const std::string r = ToLower(reason);
  return r.find("held") != std::string::npos || r.find("hold") != std::string::npos;
}

std::string DescribeExit(int wait_status) {
  const unsigned status = static_cast<unsigned>(wait_status);
  const unsigned signal = status & 0x7fu;
  if (signal != 0 && signal != 0x7fu) return "signal " + std::to_string(signal);
  return "exit code " + std::to_string((status >> 8) & 0xffu);
}

bool SlurmNode::Usable() const {
  static const char* kBadStates[] = {"down", "drained", "draining", "fail", "failing", "future", "unknown"};
  const std::string s = ToLower(state);
  for (const char* bad : kBadStates) {
    if (s == bad) return false;
  }
  for (const auto& f : state_flags) {
    const std::string flag = ToLower(f);
    if (flag == "drain" || flag == "not_responding" || flag == "fail" || flag == "maint" ||
        flag == "reboot_requested" || flag == "powered_down") {
      return false;
    }
  }
  return true;
}

Result<std::vector<SlurmNode>> ParseSinfoJson(std::string_view text, const std::string& origin) {
  HETSCHED_ASSIGN_OR_RETURN(json doc, ParseTop(text, origin, "nodes"));
  std::vector<SlurmNode> nodes;
  int i = 0;
  for (const json& n : doc["nodes"]) {
    const std::string where = origin + ": nodes[" + std::to_string(i++) + "]";
    if (!n.is_object()) return Status::ParseError(where + " is not an object");
    SlurmNode node;
    node.name = Str(n, "name");
    if (node.name.empty()) return Status::ParseError(where + ": field 'name' missing");
    node.state = Str(n, "state");
    node.state_flags = StrList(n, "state_flags");
    node.gres = Str(n, "gres");
    if (auto u = n.find("gres_used"); u != n.end() && u->is_string()) {
      auto used = CountGpuGres(u->get<std::string>());
      if (!used.ok()) return used.status().WithContext(where + ": field 'gres_used'");
      node.gpus_used = *used;
    }
    node.features = StrList(n, "active_features");
    if (node.features.empty()) node.features = StrList(n, "features");
    node.partitions = StrList(n, "partitions");
    HETSCHED_ASSIGN_OR_RETURN(const long long cpus, Whole(n, "cpus", 0, kMaxSmall, where));
    node.cpus = static_cast<int>(cpus);
    node.real_memory_mb = Num(n, "real_memory");
    node.reason = Str(n, "reason");
    nodes.push_back(std::move(node));
  }
  return nodes;
}

Result<std::vector<SlurmJob>> ParseSqueueJson(std::string_view text, const std::string& origin) {
  HETSCHED_ASSIGN_OR_RETURN(json doc, ParseTop(text, origin, "jobs"));
  std::vector<SlurmJob> jobs;
  int i = 0;
  for (const json& j : doc["jobs"]) {
    const std::string where = origin + ": jobs[" + std::to_string(i++) + "]";
    if (!j.is_object()) return Status::ParseError(where + " is not an object");
    auto id = j.find("job_id");
    if (id == j.end() || !id->is_number_integer()) return Status::ParseError(where + ": field 'job_id' missing");
    SlurmJob job;
    job.id = id->get<long long>();
    HETSCHED_ASSIGN_OR_RETURN(job.array_job_id, Whole(j, "array_job_id", 0, kMaxId, where));
    job.name = Str(j, "name");
    job.comment = Str(j, "comment");
    job.state = Str(j, "job_state");
    job.reason = Str(j, "state_reason");
    job.partition = Str(j, "partition");
    job.user = Str(j, "user_name");
    const std::string nodes = Str(j, "nodes");
    if (!nodes.empty()) {
      auto expanded = ExpandHostlist(nodes);
      if (!expanded.ok()) return expanded.status().WithContext(where + ": field 'nodes'");
      job.nodes = std::move(expanded).value();
    }
    job.tres_per_job = Str(j, "tres_per_job");
    job.tres_per_node = Str(j, "tres_per_node");
    HETSCHED_ASSIGN_OR_RETURN(const long long node_count, Whole(j, "node_count", 0, kMaxSmall, where));
    job.node_count = static_cast<int>(node_count);
    job.gres_detail = StrList(j, "gres_detail");
    HETSCHED_ASSIGN_OR_RETURN(const long long restarts, Whole(j, "restart_cnt", 0, kMaxSmall, where));
    job.restart_count = static_cast<int>(restarts);
    HETSCHED_ASSIGN_OR_RETURN(const long long exit_code, Whole(j, "exit_code", -kSlurmIntMax - 1, kSlurmIntMax, where));
    job.exit_code = static_cast<int>(exit_code);
    job.submit_time_s = Num(j, "submit_time");
    job.start_time_s = Num(j, "start_time");
    job.end_time_s = Num(j, "end_time");
    HETSCHED_ASSIGN_OR_RETURN(job.priority, Whole(j, "priority", -kMaxId, kMaxId, where));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

Result<std::vector<std::string>> ExpandHostlist(std::string_view expr) {
  // A partition of Slurm's largest clusters has ~10^4 nodes; the cap keeps a bad list from
  // taking the agent's memory.
  constexpr size_t kMaxHosts = 100000;
  std::vector<std::string> out;
  const std::string what = "host list " + Quoted(expr);
  size_t i = 0;
  while (i < expr.size()) {
    // One item: prefix[ranges]suffix up to the next comma outside brackets.
    size_t end = i;
    int depth = 0;
    while (end < expr.size() && (expr[end] != ',' || depth > 0)) {
      if (expr[end] == '[') ++depth;
      if (expr[end] == ']' && --depth < 0) return Status::ParseError(what + ": unbalanced ']'");
      ++end;
    }
    if (depth != 0) return Status::ParseError(what + ": unbalanced '['");
    const std::string_view item = expr.substr(i, end - i);
    const size_t open = item.find('[');
    if (open == std::string_view::npos) {
      if (!item.empty()) out.emplace_back(item);
    } else {
      const size_t close = item.find(']', open);
      const std::string_view prefix = item.substr(0, open);
      const std::string_view ranges = item.substr(open + 1, close - open - 1);
      const std::string_view suffix = item.substr(close + 1);
      if (suffix.find('[') != std::string_view::npos) {
        return Status::ParseError(what + ": more than one bracket group in " + Quoted(item));
      }
      for (auto part : Split(ranges, ',')) {
        part = Trim(part);
        const size_t dash = part.find('-');
        const std::string_view lo_s = part.substr(0, dash);
        const std::string_view hi_s = dash == std::string_view::npos ? lo_s : part.substr(dash + 1);
        HETSCHED_ASSIGN_OR_RETURN(long long lo, ParseInt(lo_s, what));
        HETSCHED_ASSIGN_OR_RETURN(long long hi, ParseInt(hi_s, what));
        if (!RangeOk(lo, hi)) return Status::ParseError(what + ": bad range " + Quoted(part));
        if (out.size() + static_cast<size_t>(hi - lo) >= kMaxHosts) {
          return Status::ParseError(what + ": more than " + std::to_string(kMaxHosts) + " hosts");
        }
        const size_t width = lo_s.size();
        for (long long v = lo; v <= hi; ++v) {
          std::string num = std::to_string(v);
          if (num.size() < width) num.insert(0, width - num.size(), '0');
          out.push_back(std::string(prefix) + num + std::string(suffix));
        }
      }
    }
    i = end + 1;
  }
  return out;
}

namespace {

// One entry of a GRES string, its index list cut off ("gpu:a100:4(IDX:0-3)" -> "gpu:a100:4"): the
// GPU request it names, or nothing when it is another GRES ("shard:2", "gpumem...") or the tail
// of an index list that the split at commas cut ("2-3)").
Result<std::optional<GpuGres>> ParseGpuEntry(std::string_view entry, const std::string& what) {
  entry = Trim(entry);
  if (const size_t paren = entry.find('('); paren != std::string_view::npos) entry = entry.substr(0, paren);
  if (entry.substr(0, 5) == "gres:" || entry.substr(0, 5) == "gres/") entry.remove_prefix(5);
  if (entry.substr(0, 3) != "gpu") return std::optional<GpuGres>{};
  entry.remove_prefix(3);
  GpuGres out;
  if (entry.empty()) {  // "gpu" alone means one
    out.count = 1;
    return std::optional<GpuGres>{out};
  }
  if (entry[0] != ':' && entry[0] != '=') return std::optional<GpuGres>{};
  entry.remove_prefix(1);
  // "a100:4", "4", "a100=4" (TRES form)
  std::string_view type, count = entry;
  if (const size_t sep = entry.find_last_of(":="); sep != std::string_view::npos) {
    type = entry.substr(0, sep);
    count = entry.substr(sep + 1);
  }
  HETSCHED_ASSIGN_OR_RETURN(long long n, ParseInt(count, what + ": GPU count"));
  if (n < 0) return Status::ParseError(what + ": negative GPU count");
  if (n > static_cast<long long>(kMaxSmall)) return Status::ParseError(what + ": GPU count out of range");
  out.type = std::string(type);
  out.count = static_cast<int>(n);
  return std::optional<GpuGres>{out};
}

}  // namespace

Result<GpuGres> ParseGpuGres(std::string_view gres) {
  const std::string what = "GRES " + Quoted(gres);
  for (auto entry : Split(gres, ',')) {
    HETSCHED_ASSIGN_OR_RETURN(std::optional<GpuGres> gpu, ParseGpuEntry(entry, what));
    if (gpu) return *gpu;
  }
  return GpuGres{};
}

Result<int> CountGpuGres(std::string_view gres) {
  const std::string what = "GRES " + Quoted(gres);
  long long total = 0;
  for (auto entry : Split(gres, ',')) {
    HETSCHED_ASSIGN_OR_RETURN(std::optional<GpuGres> gpu, ParseGpuEntry(entry, what));
    if (gpu) total += gpu->count;
  }
  if (total > static_cast<long long>(kMaxSmall)) return Status::ParseError(what + ": GPU count out of range");
  return static_cast<int>(total);
}

Result<std::vector<int>> ParseGresIndices(std::string_view detail) {
  const std::string what = "gres_detail " + Quoted(detail);
  const size_t idx = detail.find("IDX:");
  if (idx == std::string_view::npos) return Status::ParseError(what + ": no IDX");
  const size_t close = detail.find(')', idx);
  if (close == std::string_view::npos) return Status::ParseError(what + ": unterminated IDX");
  const std::string_view list = detail.substr(idx + 4, close - idx - 4);
  if (list == "N/A") return std::vector<int>{};
  return ParseIndexList(list, what);
}

}  // namespace hetsched::slurm
