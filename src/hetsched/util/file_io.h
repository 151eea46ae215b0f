// File helpers: whole-file reads with clear errors, and atomic writes (temp file + rename) so
// that no reader ever sees a half-written output.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "hetsched/util/status.h"

namespace hetsched {

Result<std::string> ReadFile(const std::string& path);

// Reads `path` from disk or, when it names an embedded data file ("data/devices.json") and no
// such file exists on disk, from the copy compiled into the binary; else a relative path (the
// default data of the experiments, "data/real/...") from the project's data tree beside the
// program (HETSCHED_DATA_DIR, else <bindir>/../share/hetsched, also in the installed layout), so
// that a program run from another directory finds them. The error names every place tried.
Result<std::string> ReadFileOrEmbedded(const std::string& path);

// A directory by the same rules as ReadFileOrEmbedded: `path` itself when it is one, else, when
// relative, under the project's data tree beside the program ("data/real/pollux/traces"). The
// error names every place tried.
Result<std::string> FindDataDirectory(const std::string& path);

// The directory of the running program (/proc/self/exe's), where its back-end modules and data
// tree are looked for; nullopt when it cannot be read.
std::optional<std::filesystem::path> ProgramDirectory();

// Writes `contents` to `path` atomically: to "<path>.tmp.<pid>" in the same directory, flushed,
// then renamed over `path`. On failure the old file (if any) is untouched and no temp is left.
Status WriteFileAtomic(const std::string& path, std::string_view contents);

// Creates a directory and its parents. Ok if it exists.
Status MakeDirs(const std::string& path);

}  // namespace hetsched
