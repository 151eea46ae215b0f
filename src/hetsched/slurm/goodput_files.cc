#include "hetsched/slurm/goodput_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "hetsched/util/file_io.h"

namespace hetsched::slurm {

namespace {

using nlohmann::json;

// The fields of a v1 line, and whether each is required.
struct ReportField {
  const char* key;
  bool required;
};
constexpr ReportField kReportFields[] = {
    {"v", true},           {"gpus", true},         {"nodes", true},        {"local_bsz", true},
    {"accum_steps", true}, {"accum_step_s", true}, {"optim_step_s", true}, {"grad_sqr", false},
    {"grad_var", false},   {"progress", true}};

Status FieldError(const std::string& where, const std::string& key, const std::string& what) {
  return Status::ParseError(where + ": field '" + key + "': " + what);
}

Result<long long> IntOf(const json& j, const std::string& key, long long min, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_number_integer()) return FieldError(where, key, "must be an integer, got " + v.dump());
  const long long x = v.get<long long>();
  if (x < min || x > 1'000'000'000) {
    return FieldError(where, key, "must be in [" + std::to_string(min) + ", 1e9], got " + std::to_string(x));
  }
  return x;
}

Result<double> NumberOf(const json& j, const std::string& key, bool positive, const std::string& where) {
  const json& v = j.at(key);
  if (!v.is_number()) return FieldError(where, key, "must be a number, got " + v.dump());
  const double x = v.get<double>();
  if (!std::isfinite(x) || (positive ? !(x > 0) : x < 0)) {
    return FieldError(where, key,
                      std::string("must be finite and ") + (positive ? "> 0" : ">= 0") + ", got " + v.dump());
  }
  return x;
}

}  // namespace

Result<GoodputReport> ParseGoodputReport(std::string_view line, const std::string& where) {
  const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::ParseError(where + ": not a JSON object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const ReportField& f : kReportFields) known = known || key == f.key;
    if (!known) return FieldError(where, key, "unknown field (format v1)");
  }
  for (const ReportField& f : kReportFields) {
    if (f.required && !j.contains(f.key)) return FieldError(where, f.key, "missing");
  }
  HETSCHED_ASSIGN_OR_RETURN(const long long version, IntOf(j, "v", 0, where));
  if (version != kGoodputFormatVersion) {
    return FieldError(where, "v",
                      "format version " + std::to_string(version) + " is not supported (this agent reads 1)");
  }
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
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT && offset_ == 0) return out;  // the job has reported nothing yet
    return Status::IoError(path_ + ": cannot open: " + std::strerror(errno));
  }
  std::string text;
  char buf[1 << 16];
  off_t at = static_cast<off_t>(offset_);
  struct stat st {};
  Status failed;
  if (::fstat(fd, &st) != 0) {
    failed = Status::IoError(path_ + ": cannot stat: " + std::strerror(errno));
  } else if (st.st_size < at) {
    failed =
        Status::IoError(path_ + ": the file is shorter (" + std::to_string(st.st_size) + " bytes) than the " +
                        std::to_string(offset_) + " already read: it was truncated or replaced");
  }
  while (failed.ok()) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed = Status::IoError(path_ + ": read failed: " + std::strerror(errno));
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    at += n;
  }
  ::close(fd);
  if (!failed.ok()) return failed;
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

std::string EncodeGoodputAlloc(const GoodputAlloc& a) {
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
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
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
