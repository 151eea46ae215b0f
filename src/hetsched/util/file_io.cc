#include "hetsched/util/file_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "hetsched/util/embedded.h"

namespace hetsched {

Result<std::string> ReadFile(const std::string& path) {
  // stdio in 64 KiB blocks: several times faster than an ifstream's rdbuf() copied into a
  // stringstream (a whole trace is read at every start of the CLI).
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::IoError(path + ": cannot open for reading: " + std::strerror(errno));
  std::string out;
  std::vector<char> block(size_t{1} << 16);
  for (size_t n; (n = std::fread(block.data(), 1, block.size(), f)) > 0;) out.append(block.data(), n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::IoError(path + ": read failed");
  return out;
}

Result<std::string> ReadFileOrEmbedded(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return ReadFile(path);
  if (auto data = EmbeddedFile(path)) return std::string(*data);
  return Status::NotFound(path + ": no such file (and no built-in data file of that name)");
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
