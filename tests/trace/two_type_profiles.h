// A synthetic profile folder with two GPU types, laid out as Sia's traces/ are
// (DIR/<application>/placements-<suffix>.csv, scalability-<suffix>.csv, shared validation-*.csv):
// each type's files are the project's copy of Pollux's measured T4 files (data/real/pollux,
// Apache-2.0) with every step and synchronisation time multiplied by that type's factor. Made for
// tests only; nothing here is a measurement of the second type.
#pragma once

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/util/text.h"

namespace hetsched::testing_util {

// Copies `application`'s Pollux files into dir/<application>/, one placements and scalability
// file per (suffix, factor), the times scaled; returns dir.
inline std::string MakeScaledProfiles(const std::string& dir, const std::string& application,
                                      const std::vector<std::pair<std::string, double>>& types) {
  namespace fs = std::filesystem;
  const fs::path from = fs::path(HETSCHED_SOURCE_DIR) / "data/real/pollux/traces" / application;
  const fs::path to = fs::path(dir) / application;
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("validation-", 0) == 0) fs::copy_file(entry.path(), to / name, fs::copy_options::overwrite_existing);
  }
  // The last two columns of both files are step_time and sync_time.
  for (const char* kind : {"placements", "scalability"}) {
    std::ifstream in(from / (std::string(kind) + ".csv"));
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& [suffix, factor] : types) {
      std::ofstream out(to / (std::string(kind) + "-" + suffix + ".csv"));
      std::istringstream lines(text.str());
      std::string line;
      std::getline(lines, line);
      out << line << "\n";
      while (std::getline(lines, line)) {
        if (line.empty()) continue;
        std::vector<std::string_view> f = Split(line, ',');
        std::string row;
        for (size_t i = 0; i < f.size(); ++i) {
          std::string v(f[i]);
          if (i + 2 >= f.size()) {  // shortest text that reads back to the same double
            char buf[32];
            v.assign(buf, std::to_chars(buf, buf + sizeof(buf), std::stod(v) * factor).ptr);
          }
          row += (i ? "," : "") + v;
        }
        out << row << "\n";
      }
    }
  }
  return dir;
}

}  // namespace hetsched::testing_util
