#include "hetsched/util/file_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "hetsched/util/embedded.h"

namespace hetsched {

Result<std::string> ReadFile(const std::string& path) {
  // stdio straight into the string, sized from the file's length when it has one (a whole
  // trace is read at every start of the CLI: no block copies, no regrowth); then in 64 KiB
  // steps until the end (a pipe, or a file that grew).
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::IoError(path + ": cannot open for reading: " + std::strerror(errno));
  std::string out;
  struct stat info {};
  size_t size = 0;
  if (::fstat(::fileno(f), &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    size = static_cast<size_t>(info.st_size);
  }
  out.resize(size + 1);  // one byte more than the file: the end shows as a short read
  size_t used = 0;
  while (true) {
    used += std::fread(out.data() + used, 1, out.size() - used, f);
    if (used < out.size()) break;  // the end of the file, or an error (checked below)
    out.resize(out.size() + (size_t{1} << 16));
  }
  out.resize(used);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::IoError(path + ": read failed");
  return out;
}

std::optional<std::filesystem::path> ProgramDirectory() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return exe.parent_path();
}

namespace {

// Where the project's data/ tree is for a program run outside the source tree (docs/formats.md,
// "Data files"): HETSCHED_DATA_DIR, else <program's directory>/../share/hetsched (the build tree,
// where CMake links share/hetsched/data to the sources' data/, and the installed layout, whose
// bindir has share/hetsched beside it: HETSCHED_DATA_DIR_FROM_BINDIR).
std::vector<std::filesystem::path> DataRoots() {
  std::vector<std::filesystem::path> out;
  if (const char* dir = std::getenv("HETSCHED_DATA_DIR"); dir != nullptr && *dir != '\0') out.emplace_back(dir);
  const std::optional<std::filesystem::path> dir = ProgramDirectory();
  if (!dir) return out;
  out.push_back((*dir / "../share/hetsched").lexically_normal());
  const std::filesystem::path installed = (*dir / HETSCHED_DATA_DIR_FROM_BINDIR).lexically_normal();
  if (installed != out.back()) out.push_back(installed);
  return out;
}

}  // namespace

Result<std::string> ReadFileOrEmbedded(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return ReadFile(path);
  if (auto data = EmbeddedFile(path)) return std::string(*data);
  const std::filesystem::path relative(path);
  std::string tried;
  if (relative.is_relative()) {
    for (const std::filesystem::path& root : DataRoots()) {
      const std::filesystem::path candidate = root / relative;
      if (std::filesystem::exists(candidate, ec)) return ReadFile(candidate.string());
      tried += (tried.empty() ? "" : ", ") + candidate.string();
    }
  }
  return Status::NotFound(path + ": no such file (and no built-in data file of that name" +
                          (tried.empty() ? std::string(")") : "; also looked for " + tried + ")"));
}

Result<std::string> FindDataDirectory(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return path;
  const std::filesystem::path relative(path);
  std::string tried;
  if (relative.is_relative()) {
    for (const std::filesystem::path& root : DataRoots()) {
      const std::filesystem::path candidate = root / relative;
      if (std::filesystem::is_directory(candidate, ec)) return candidate.string();
      tried += (tried.empty() ? "" : ", ") + candidate.string();
    }
  }
  return Status::NotFound(path + ": no such directory" + (tried.empty() ? std::string() : " (also looked for " + tried + ")"));
}

Status WriteFileAtomic(const std::string& path, std::string_view contents) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Status::IoError(path + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (::fsync(::fileno(f)) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return Status::IoError(path + ": write failed: " + std::strerror(err));
  }
  return Status::Ok();
}

Status MakeDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::IoError(path + ": cannot create directory: " + ec.message());
  return Status::Ok();
}

}  // namespace hetsched
