#include "hetsched/slurm/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "hetsched/util/file_io.h"

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
  // Replace invalid UTF-8 (a job name is free text) rather than failing.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<JournalRecord> Journal::Decode(const std::string& line, const std::string& where) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::ParseError(where + ": not a JSON object");
  JournalRecord r;
  auto ev = j.find("ev");
  if (ev == j.end() || !ev->is_string()) return Status::ParseError(where + ": field 'ev' missing");
  r.event = ev->get<std::string>();
  try {
    r.time_s = j.value("t", 0.0);
    r.job = j.value("job", static_cast<JobId>(-1));
    r.nodes = j.value("nodes", std::vector<std::string>{});
    r.devices = j.value("devices", std::vector<int>{});
    r.type = j.value("type", std::string());
    r.state = j.value("state", std::string());
    r.text = j.value("text", std::string());
    r.value = j.value("value", 0LL);
    r.name = j.value("name", std::string());
    r.model = j.value("model", std::string());
    r.gpus = j.value("gpus", 0);
    r.iterations = j.value("iterations", 0LL);
    r.submit_s = j.value("submit", 0.0);
  } catch (const json::exception& e) {
    return Status::ParseError(where + ": a field has the wrong type (" + e.what() + ")");
  }
  return r;
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
  size_t pos = 0, good_end = 0;
  int line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const size_t nl = text.find('\n', pos);
    const std::string where = path + ":" + std::to_string(line_no);
    if (nl == std::string::npos) {  // torn last record: the append was cut by a crash
      if (warning != nullptr) *warning = where + ": incomplete last record dropped (agent stopped mid-write)";
      break;
    }
    auto record = Decode(text.substr(pos, nl - pos), where);
    if (!record.ok()) {
      if (nl + 1 == text.size()) {  // a torn record that happened to end in a newline
        if (warning != nullptr) *warning = record.status().message() + " (last record, dropped)";
        break;
      }
      return record.status();
    }
    journal.replayed_.push_back(std::move(record).value());
    pos = nl + 1;
    good_end = pos;
  }
  journal.fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (journal.fd_ < 0) return Status::IoError(path + ": cannot open journal: " + std::strerror(errno));
  if (good_end < text.size() && ftruncate(journal.fd_, static_cast<off_t>(good_end)) != 0) {
    return Status::IoError(path + ": cannot drop the torn last record: " + std::strerror(errno));
  }
  return journal;
}

Journal::Journal(Journal&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), replayed_(std::move(other.replayed_)) {
  other.fd_ = -1;
}

Journal& Journal::operator=(Journal&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    replayed_ = std::move(other.replayed_);
    other.fd_ = -1;
  }
  return *this;
}

Journal::~Journal() {
  if (fd_ >= 0) close(fd_);
}

Status Journal::Append(const JournalRecord& record, bool sync) {
  const std::string line = Encode(record) + "\n";
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(path_ + ": journal write: " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return sync ? Sync() : Status::Ok();
}

Status Journal::Sync() {
  if (fdatasync(fd_) != 0) return Status::IoError(path_ + ": journal fsync: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace hetsched::slurm
