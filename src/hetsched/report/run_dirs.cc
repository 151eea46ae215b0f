#include "hetsched/report/run_dirs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "hetsched/report/run_record_json.h"
#include "hetsched/report/writers.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"

namespace hetsched {
namespace {

namespace fs = std::filesystem;

Status ReadOne(const std::string& dir, std::vector<RunDir>* out) {
  const std::string path = dir + "/run.json";
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  HETSCHED_ASSIGN_OR_RETURN(RunRecord run, ParseRunRecordJson(text, path));
  out->push_back({dir, std::move(run)});
  return Status::Ok();
}

}  // namespace

Result<std::vector<RunDir>> ReadRunDirs(const std::vector<std::string>& dirs) {
  std::vector<RunDir> out;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return Status::NotFound(Quoted(dir, 240) + ": not a directory");
    if (fs::exists(dir + "/run.json", ec)) {
      HETSCHED_RETURN_IF_ERROR(ReadOne(dir, &out));
      continue;
    }
    std::vector<std::string> subdirs;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      if (e.is_directory(ec) && fs::exists(e.path() / "run.json", ec)) subdirs.push_back(e.path().string());
    }
    if (ec) return Status::IoError(Quoted(dir, 240) + ": cannot list: " + ec.message());
    if (subdirs.empty()) return Status::NotFound(Quoted(dir, 240) + ": no run.json in it or in any subdirectory");
    std::sort(subdirs.begin(), subdirs.end());
    for (const std::string& sub : subdirs) HETSCHED_RETURN_IF_ERROR(ReadOne(sub, &out));
  }
  return out;
}

std::string RunDirName(const std::string& label) {
  std::string s;
  for (char c : label) s.push_back((std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_');
  return s;
}

Status WriteRunDir(const std::string& dir, const RunRecord& run, const Summary& summary) {
  HETSCHED_RETURN_IF_ERROR(WriteRunOutputs(dir, run, summary));
  return WriteFileAtomic(dir + "/run.json", RunRecordJson(run));
}

}  // namespace hetsched
