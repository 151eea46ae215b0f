// hetsched's optional back ends are shared modules opened on first use (dlopen), so that a
// process pays for a heavy dependency only when it uses it: learn/ (LibTorch) and lp/ (COIN-OR
// Clp/CBC). A module sits beside the running program or in ../lib/hetsched relative to it (the
// build tree's bin/, tests/ and bench/; the `cmake --install` layout) and exports one C entry
// point that returns its back end for an interface version.
#pragma once

#include <string>

#include "hetsched/util/status.h"

namespace hetsched {

// Loads the module `file_name` (e.g. "libhetsched_lp_coin.so") from the places above and returns
// the address of its `symbol`. The module is never unloaded. Errors name `what` (the back end, for
// the user: "LibTorch's back end (for the learned components)") and every path tried.
// REQUIRES: file_name is "lib<target>.so".
Result<void*> OpenModuleSymbol(const std::string& file_name, const char* symbol, const std::string& what);

// The same for the module at exactly `path` (no search).
Result<void*> OpenModuleSymbolAt(const std::string& path, const char* symbol, const std::string& what);

}  // namespace hetsched
