#include "hetsched/slurm/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"

namespace hetsched::slurm {

using nlohmann::json;

std::string Journal::Encode(const JournalRecord& r) {
  json j;
  j["ev"] = r.event;
  j["t"] = r.time_s;
  if (r.job >= 0) j["job"] = r.job;
  if (!r.nodes.empty()) j["nodes"] = r.nodes;
  if (!r.devices.empty()) j["devices"] = r.devices;
  if (!r.type.empty()) j["type"] = r.type;
  if (!r.state.empty()) j["state"] = r.state;
  if (!r.text.empty()) j["text"] = r.text;
  if (r.value != 0) j["value"] = r.value;
  if (!r.name.empty()) j["name"] = r.name;
  if (!r.model.empty()) j["model"] = r.model;
  if (r.gpus != 0) j["gpus"] = r.gpus;
  if (r.iterations != 0) j["iterations"] = r.iterations;
  if (r.submit_s != 0) j["submit"] = r.submit_s;
  if (!r.application.empty()) j["application"] = r.application;
  if (r.total_batch != 0) j["total_batch_size"] = r.total_batch;
  if (r.adaptive) j["adaptive_batch"] = true;
  if (r.elastic) j["elastic"] = true;
  if (r.offset != 0) j["offset"] = r.offset;
  if (r.line != 0) j["line"] = r.line;
  // Replace invalid UTF-8 (a job name is free text) rather than failing.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// Whether `v` is an integer within [min, max] (REQUIRES: min <= max, max >= 0), written to `out`.
// Integers only: a float such as 1e300 has no defined conversion to an integer type.
bool IntegerIn(const json& v, long long min, long long max, long long* out) {
  if (v.is_number_unsigned()) {
    const unsigned long long u = v.get<unsigned long long>();
    if (u > static_cast<unsigned long long>(max)) return false;
    *out = static_cast<long long>(u);
  } else if (v.is_number_integer()) {
    *out = v.get<long long>();
  } else {
    return false;
  }
  return *out >= min && *out <= max;
}

Result<long long> IntegerField(const json& j, const char* key, long long fallback, long long min, long long max,
                               const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  long long v = 0;
  if (IntegerIn(*it, min, max, &v)) return v;
  return Status::ParseError(where + ": field '" + key + "' must be an integer in [" + std::to_string(min) + ", " +
                            std::to_string(max) + "]");
}

constexpr long long kJournalIntMax = std::numeric_limits<int>::max();
constexpr long long kLongMax = std::numeric_limits<long long>::max();

}  // namespace

Result<JournalRecord> Journal::Decode(const std::string& line, const std::string& where) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::ParseError(where + ": not a JSON object");
  JournalRecord r;
  auto ev = j.find("ev");
  if (ev == j.end() || !ev->is_string()) return Status::ParseError(where + ": field 'ev' missing");
  r.event = ev->get<std::string>();
  HETSCHED_ASSIGN_OR_RETURN(r.job, IntegerField(j, "job", -1, -1, kLongMax, where));
  HETSCHED_ASSIGN_OR_RETURN(r.value, IntegerField(j, "value", 0, -kLongMax, kLongMax, where));
  HETSCHED_ASSIGN_OR_RETURN(const long long gpus, IntegerField(j, "gpus", 0, 0, kJournalIntMax, where));
  r.gpus = static_cast<int>(gpus);
  HETSCHED_ASSIGN_OR_RETURN(r.iterations, IntegerField(j, "iterations", 0, 0, kLongMax, where));
  HETSCHED_ASSIGN_OR_RETURN(const long long total_batch, IntegerField(j, "total_batch_size", 0, 0, kJournalIntMax, where));
  r.total_batch = static_cast<int>(total_batch);
  HETSCHED_ASSIGN_OR_RETURN(r.offset, IntegerField(j, "offset", 0, 0, kLongMax, where));
  HETSCHED_ASSIGN_OR_RETURN(const long long line_no, IntegerField(j, "line", 0, 0, kJournalIntMax, where));
  r.line = static_cast<int>(line_no);
  if (auto d = j.find("devices"); d != j.end()) {
    if (!d->is_array()) return Status::ParseError(where + ": field 'devices' must be a list of integers");
    for (const json& e : *d) {
      long long id = 0;
      if (!IntegerIn(e, 0, kJournalIntMax, &id)) return Status::ParseError(where + ": field 'devices' must list device ids >= 0");
      r.devices.push_back(static_cast<int>(id));
    }
  }
  try {
    r.time_s = j.value("t", 0.0);
    r.nodes = j.value("nodes", std::vector<std::string>{});
    r.type = j.value("type", std::string());
    r.state = j.value("state", std::string());
    r.text = j.value("text", std::string());
    r.name = j.value("name", std::string());
    r.model = j.value("model", std::string());
    r.submit_s = j.value("submit", 0.0);
    r.application = j.value("application", std::string());
    r.adaptive = j.value("adaptive_batch", false);
    r.elastic = j.value("elastic", false);
  } catch (const json::exception& e) {
    return Status::ParseError(where + ": a field has the wrong type (" + Printable(e.what()) + ")");
  }
  if (!std::isfinite(r.time_s) || !std::isfinite(r.submit_s)) {
    return Status::ParseError(where + ": times 't' and 'submit' must be finite");
  }
  return r;
}

Result<Journal::Replay> Journal::Parse(std::string_view text, const std::string& path) {
  Replay replay;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const size_t nl = text.find('\n', pos);
    const std::string where = path + ":" + std::to_string(line_no);
    if (nl == std::string_view::npos) {  // torn last record: the append was cut by a crash
      replay.warning = where + ": incomplete last record dropped (agent stopped mid-write)";
      break;
    }
    auto record = Decode(std::string(text.substr(pos, nl - pos)), where);
    if (!record.ok()) {
      if (nl + 1 == text.size()) {  // a torn record that happened to end in a newline
        replay.warning = record.status().message() + " (last record, dropped)";
        break;
      }
      return record.status();
    }
    replay.records.push_back(std::move(record).value());
    pos = nl + 1;
    replay.good_end = pos;
  }
  return replay;
}

Result<Journal> Journal::Open(const std::string& path, std::string* warning) {
  Journal journal;
  journal.path_ = path;
  std::string text;
  if (access(path.c_str(), F_OK) == 0) {
    auto read = ReadFile(path);
    if (!read.ok()) return read.status();
    text = std::move(read).value();
  }
  HETSCHED_ASSIGN_OR_RETURN(Replay replay, Parse(text, path));
  if (warning != nullptr && !replay.warning.empty()) *warning = replay.warning;
  journal.replayed_ = std::move(replay.records);
  journal.fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (journal.fd_ < 0) return Status::IoError(path + ": cannot open journal: " + std::strerror(errno));
  if (replay.good_end < text.size() && ftruncate(journal.fd_, static_cast<off_t>(replay.good_end)) != 0) {
    return Status::IoError(path + ": cannot drop the torn last record: " + std::strerror(errno));
  }
  journal.size_ = replay.good_end;
  return journal;
}

Journal::Journal(Journal&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      size_(other.size_),
      broken_(std::move(other.broken_)),
      replayed_(std::move(other.replayed_)) {
  other.fd_ = -1;
}

Journal& Journal::operator=(Journal&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    size_ = other.size_;
    broken_ = std::move(other.broken_);
    replayed_ = std::move(other.replayed_);
    other.fd_ = -1;
  }
  return *this;
}

Journal::~Journal() {
  if (fd_ >= 0) close(fd_);
}

Status Journal::Append(const JournalRecord& record, bool sync) {
  if (!broken_.ok()) return broken_;
  const std::string line = Encode(record) + "\n";
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "nothing written";
      // No half record stays behind: the file is cut back to its last whole record.
      if (done > 0 && ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        broken_ = Status::IoError(path_ + ": journal write failed (" + why + ") and its partial record could not be "
                                  "removed (" + std::strerror(errno) + "): the journal is unusable until restarted");
        return broken_;
      }
      return Status::IoError(path_ + ": journal write failed: " + why + " (the record was not written)");
    }
    done += static_cast<size_t>(n);
  }
  size_ += line.size();
  return sync ? Sync() : Status::Ok();
}

Status Journal::Sync() {
  if (!broken_.ok()) return broken_;
  if (fdatasync(fd_) != 0) return Status::IoError(path_ + ": journal fsync failed: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace hetsched::slurm
