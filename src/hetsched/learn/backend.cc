#include "hetsched/learn/backend.h"

#include "hetsched/util/module_loader.h"

namespace hetsched::learn {
namespace {

constexpr const char* kModuleName = "libhetsched_learn_torch.so";
constexpr const char* kWhat = "LibTorch's back end (for the learned components)";

Result<const Backend*> FromEntry(Result<void*> entry, const std::string& module) {
  if (!entry.ok()) return entry.status();
  const Backend* backend = reinterpret_cast<HetschedLearnBackendFn>(*entry)(kBackendAbiVersion);
  if (backend == nullptr) {
    return Status::IoError(module + ": LibTorch back end built from other hetsched sources (interface version differs); rebuild it");
  }
  return backend;
}

}  // namespace

Result<const Backend*> OpenLearnBackendAt(const std::string& path) {
  return FromEntry(OpenModuleSymbolAt(path, HETSCHED_LEARN_BACKEND_SYMBOL, kWhat), path);
}

Result<const Backend*> LearnBackend() {
  static const Result<const Backend*> backend =
      FromEntry(OpenModuleSymbol(kModuleName, HETSCHED_LEARN_BACKEND_SYMBOL, kWhat), kModuleName);
  return backend;
}

}  // namespace hetsched::learn
