#include "hetsched/slurm/goodput_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"

namespace hetsched::slurm {

namespace {

using nlohmann::json;

// The fields of a v1 line (or allocation), and whether each is required.
struct KnownField {
  const char* key;
  bool required;
};
constexpr KnownField kReportFields[] = {
    {"v", true},           {"gpus", true},         {"nodes", true},        {"local_bsz", true},
    {"accum_steps", true}, {"accum_step_s", true}, {"optim_step_s", true}, {"grad_sqr", false},
    {"grad_var", false},   {"progress", true}};

// The key and any value quoted (Quoted, Printable): a job's file could otherwise put terminal
// escapes on the operator's screen (fuzz_goodput_files' first find).
Status FieldError(const std::string& where, const std::string& key, const std::string& what) {
  return Status::ParseError(where + ": field " + Quoted(key) + ": " + what);
}

// A JSON value as it was given, made safe to quote.
std::string ValueText(const json& v) { return Printable(v.dump()); }

Result<long long> IntOf(const json& j, const std::string& key, long long min, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_number_integer()) return FieldError(where, key, "must be an integer, got " + ValueText(v));
  const long long x = v.get<long long>();
  if (x < min || x > 1'000'000'000) {
    return FieldError(where, key, "must be in [" + std::to_string(min) + ", 1e9], got " + std::to_string(x));
  }
  return x;
}

Result<double> NumberOf(const json& j, const std::string& key, bool positive, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_number()) return FieldError(where, key, "must be a number, got " + ValueText(v));
  const double x = v.get<double>();
  if (!std::isfinite(x) || (positive ? !(x > 0) : x < 0)) {
    return FieldError(where, key,
                      std::string("must be finite and ") + (positive ? "> 0" : ">= 0") + ", got " + ValueText(v));
  }
  return x;
}

// `text` as one JSON object of format v1: every key one of `fields` (an unknown one would be
// silently ignored by this version), every required one there, `v` 1.
template <size_t N>
Result<json> ParseV1Object(std::string_view text, const KnownField (&fields)[N], const std::string& where) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::ParseError(where + ": not a JSON object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const KnownField& f : fields) known = known || key == f.key;
    if (!known) return FieldError(where, key, "unknown field (format v1)");
  }
  for (const KnownField& f : fields) {
    if (f.required && !j.contains(f.key)) return FieldError(where, f.key, "missing");
  }
  HETSCHED_ASSIGN_OR_RETURN(const long long version, IntOf(j, "v", 0, where));
  if (version != kGoodputFormatVersion) {
    return FieldError(where, "v",
                      "format version " + std::to_string(version) + " is not supported (this agent reads 1)");
  }
  return j;
}

}  // namespace

Result<GoodputReport> ParseGoodputReport(std::string_view line, const std::string& where) {
  HETSCHED_ASSIGN_OR_RETURN(const json j, ParseV1Object(line, kReportFields, where));
  GoodputReport r;
  HETSCHED_ASSIGN_OR_RETURN(const long long gpus, IntOf(j, "gpus", 1, where));
  HETSCHED_ASSIGN_OR_RETURN(const long long nodes, IntOf(j, "nodes", 1, where));
  if (nodes > gpus)
    return FieldError(where, "nodes",
                      "more nodes than GPUs (" + std::to_string(nodes) + " > " + std::to_string(gpus) + ")");
  HETSCHED_ASSIGN_OR_RETURN(const long long local_bsz, IntOf(j, "local_bsz", 1, where));
  HETSCHED_ASSIGN_OR_RETURN(const long long accum_steps, IntOf(j, "accum_steps", 0, where));
  r.gpus = static_cast<int>(gpus);
  r.nodes = static_cast<int>(nodes);
  r.local_bsz = static_cast<int>(local_bsz);
  r.accum_steps = static_cast<int>(accum_steps);
  HETSCHED_ASSIGN_OR_RETURN(r.accum_step_s, NumberOf(j, "accum_step_s", true, where));
  HETSCHED_ASSIGN_OR_RETURN(r.optim_step_s, NumberOf(j, "optim_step_s", true, where));
  HETSCHED_ASSIGN_OR_RETURN(r.progress, NumberOf(j, "progress", false, where));
  const bool sqr = j.contains("grad_sqr"), var = j.contains("grad_var");
  if (sqr != var)
    return FieldError(where, sqr ? "grad_var" : "grad_sqr", "missing (grad_sqr and grad_var come together)");
  if (sqr) {
    GradientStats g;
    HETSCHED_ASSIGN_OR_RETURN(g.sqr, NumberOf(j, "grad_sqr", false, where));
    HETSCHED_ASSIGN_OR_RETURN(g.var, NumberOf(j, "grad_var", false, where));
    r.grad = g;
  }
  return r;
}

Result<std::vector<MetricsTail::Line>> MetricsTail::Read() {
  std::vector<Line> out;
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    if (errno == ENOENT && offset_ == 0) return out;  // the job has reported nothing yet
    return Status::IoError(path_ + ": cannot open: " + std::strerror(errno));
  }
  const long long mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec;
  if (st.st_size == seen_size_ && mtime_ns == seen_mtime_ns_) return out;  // not written since the last read
  if (st.st_size < offset_) {
    return Status::IoError(path_ + ": the file is shorter (" + std::to_string(st.st_size) +
                           " bytes) than the " + std::to_string(offset_) +
                           " already read: it was truncated or replaced");
  }
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(path_ + ": cannot open: " + std::strerror(errno));
  ++reads_;
  std::string text;
  char buf[1 << 16];
  off_t at = static_cast<off_t>(offset_);
  Status failed;
  while (true) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed = Status::IoError(path_ + ": read failed: " + std::strerror(errno));
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    at += n;
  }
  ::close(fd);
  if (!failed.ok()) return failed;
  // What was read stands for this size and time: a write after the stat changes one of them, and
  // the next Read() reads on from the offset (at worst once more than needed).
  seen_size_ = st.st_size;
  seen_mtime_ns_ = mtime_ns;
  size_t pos = 0;
  while (true) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // a last line still being written: read it next time
    Line line;
    line.text = text.substr(pos, nl - pos);
    line.number = ++line_;
    offset_ += static_cast<long long>(nl + 1 - pos);
    line.end = offset_;
    pos = nl + 1;
    out.push_back(std::move(line));
  }
  return out;
}

std::string MetricsPath(const std::string& dir, JobId id) {
  return dir + "/" + std::to_string(id) + ".metrics";
}
std::string AllocPath(const std::string& dir, JobId id) { return dir + "/" + std::to_string(id) + ".alloc"; }

std::string EncodeGoodputAlloc(const GoodputAlloc& a) { return GoodputAllocJson(a) + "\n"; }

std::string GoodputAllocJson(const GoodputAlloc& a) {
  json j;
  j["v"] = kGoodputFormatVersion;
  j["job"] = a.job;
  j["type"] = a.type;
  j["nodes"] = a.nodes;
  j["placement"] = a.placement;
  int gpus = 0;
  for (int g : a.placement) gpus += g;
  j["gpus"] = gpus;
  j["batch_size"] = a.batch_size;
  j["local_bsz"] = a.local_bsz;
  j["accum_steps"] = a.accum_steps;
  j["adaptive"] = a.adaptive;
  j["restarts"] = a.restarts;
  j["seq"] = a.seq;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<GoodputAlloc> DecodeGoodputAlloc(std::string_view text, const std::string& where) {
  static constexpr KnownField kAllocFields[] = {
      {"v", true},           {"job", true},      {"type", true},       {"nodes", true},
      {"placement", true},   {"gpus", true},     {"batch_size", true}, {"local_bsz", true},
      {"accum_steps", true}, {"adaptive", true}, {"restarts", true},   {"seq", false}};
  HETSCHED_ASSIGN_OR_RETURN(const json j, ParseV1Object(text, kAllocFields, where));
  GoodputAlloc a;
  HETSCHED_ASSIGN_OR_RETURN(a.job, IntOf(j, "job", 0, where));
  if (!j.at("type").is_string())
    return FieldError(where, "type", "must be a string, got " + ValueText(j.at("type")));
  a.type = j.at("type").get<std::string>();
  const json& nodes = j.at("nodes");
  const json& placement = j.at("placement");
  if (!nodes.is_array() || !placement.is_array() || nodes.size() != placement.size() || nodes.empty()) {
    return FieldError(where, "placement", "must list GPUs per node, one for each of 'nodes'");
  }
  long long gpus_sum = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].is_string())
      return FieldError(where, "nodes", "must list node names, got " + ValueText(nodes[i]));
    if (!placement[i].is_number_integer() || placement[i].get<long long>() < 1 ||
        placement[i].get<long long>() > 1'000'000) {
      return FieldError(where, "placement", "must list GPU counts >= 1, got " + ValueText(placement[i]));
    }
    a.nodes.push_back(nodes[i].get<std::string>());
    a.placement.push_back(placement[i].get<int>());
    gpus_sum += a.placement.back();
  }
  HETSCHED_ASSIGN_OR_RETURN(const long long gpus, IntOf(j, "gpus", 1, where));
  if (gpus != gpus_sum)
    return FieldError(where, "gpus", "is not the sum of 'placement' (" + std::to_string(gpus_sum) + ")");
  HETSCHED_ASSIGN_OR_RETURN(const long long local_bsz, IntOf(j, "local_bsz", 1, where));
  HETSCHED_ASSIGN_OR_RETURN(const long long accum_steps, IntOf(j, "accum_steps", 0, where));
  HETSCHED_ASSIGN_OR_RETURN(const long long batch_size, IntOf(j, "batch_size", 1, where));
  if (batch_size != gpus * local_bsz * (accum_steps + 1)) {
    return FieldError(where, "batch_size", "is not gpus x local_bsz x (accum_steps + 1)");
  }
  a.local_bsz = static_cast<int>(local_bsz);
  a.accum_steps = static_cast<int>(accum_steps);
  a.batch_size = static_cast<int>(batch_size);
  if (!j.at("adaptive").is_boolean())
    return FieldError(where, "adaptive", "must be true or false, got " + ValueText(j.at("adaptive")));
  a.adaptive = j.at("adaptive").get<bool>();
  HETSCHED_ASSIGN_OR_RETURN(const long long restarts, IntOf(j, "restarts", 0, where));
  a.restarts = static_cast<int>(restarts);
  if (j.contains("seq")) {
    HETSCHED_ASSIGN_OR_RETURN(const long long seq, IntOf(j, "seq", 0, where));
    a.seq = static_cast<int>(seq);
  }
  return a;
}

Status WriteGoodputAlloc(const std::string& dir, const GoodputAlloc& alloc) {
  return WriteFileAtomic(AllocPath(dir, alloc.job), EncodeGoodputAlloc(alloc));
}

Status PrepareGoodputDir(const std::string& dir) {
  if (dir.empty()) return Status::InvalidArgument("goodput directory: no path given");
  HETSCHED_RETURN_IF_ERROR(MakeDirs(dir).WithContext("goodput directory " + dir));
  const std::string probe = dir + "/.hetsched-write-probe." + std::to_string(::getpid());
  HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(probe, "probe\n")
                               .WithContext("goodput directory " + dir + " is not writable by the agent"));
  if (::unlink(probe.c_str()) != 0) {
    return Status::IoError("goodput directory " + dir +
                           ": cannot remove its probe file: " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace hetsched::slurm
