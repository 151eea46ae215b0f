#include "hetsched/util/module_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "hetsched/util/file_io.h"

namespace hetsched {
namespace {

// Where a module may be, relative to the running program's directory: beside it, in the build
// tree's lib/hetsched (bin/, tests/ and bench/ are its siblings), and in the installed layout
// (HETSCHED_MODULE_DIR_FROM_BINDIR: CMake's relative path from the install bindir to
// <libdir>/hetsched).
// HETSCHED_MODULE_DIR, when set, comes first: a program that is not hetsched's own (python3
// running the Python module) says where the modules are.
std::vector<std::filesystem::path> CandidatePaths(const std::string& file_name) {
  std::vector<std::filesystem::path> out;
  if (const char* dir = std::getenv("HETSCHED_MODULE_DIR"); dir != nullptr && *dir != '\0') {
    out.push_back(std::filesystem::path(dir) / file_name);
  }
  const std::optional<std::filesystem::path> program_dir = ProgramDirectory();
  if (!program_dir) return out;
  const std::filesystem::path& dir = *program_dir;
  out.push_back(dir / file_name);
  out.push_back((dir / "../lib/hetsched" / file_name).lexically_normal());
  const std::filesystem::path installed = (dir / HETSCHED_MODULE_DIR_FROM_BINDIR / file_name).lexically_normal();
  if (installed != out.back()) out.push_back(installed);
  return out;
}

}  // namespace

Result<void*> OpenModuleSymbolAt(const std::string& path, const char* symbol, const std::string& what) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::IoError("cannot load " + what + " from " + path + ": " + (why != nullptr ? why : "unknown error"));
  }
  // The handle is never closed: a back end's objects may live until the process ends, and
  // LibTorch cannot be unloaded safely.
  void* address = dlsym(handle, symbol);
  if (address == nullptr) return Status::IoError(path + ": not " + what + " (no entry point " + symbol + ")");
  return address;
}

Result<void*> OpenModuleSymbol(const std::string& file_name, const char* symbol, const std::string& what) {
  std::string tried;
  for (const std::filesystem::path& path : CandidatePaths(file_name)) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return OpenModuleSymbolAt(path.string(), symbol, what);
    tried += (tried.empty() ? "" : ", ") + path.string();
  }
  return Status::NotFound(what + " is not installed beside this program: looked for " +
                          (tried.empty() ? file_name + ", but /proc/self/exe is unreadable" : tried) + "; build the target " +
                          file_name.substr(3, file_name.size() - 6) + " or reinstall hetsched");
}

}  // namespace hetsched
