// The goodput applications of one profile folder (Pollux's `simulator/traces/`, Sia's
// `traces/` with a GPU-type suffix), loaded on first use, with Pollux's own settings for its six.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/perf/goodput_application.h"
#include "hetsched/util/status.h"

namespace hetsched {

// Pollux's own settings of its six applications [SRC: simulator/applications.py:230-238]: max
// epochs bert 2, cifar10 100, ncf 10, imagenet 90, deepspeech2 80, yolov3 50; yolov3's largest
// local batch 8; ncf on one GPU at most, and at batch 32768 where a policy adapts batches
// (simulator.py:271-274, 330-331, 349-350). Another name: everything from its files.
ApplicationSettings PolluxApplicationSettings(std::string_view application);

// The applications of one profile directory (DIR/<application>/, one GPU type: Pollux's files, or
// Sia's with a type suffix), each loaded and triangulated once, on first use.
class GoodputCatalog {
 public:
  // `dir` as given, or under the data tree beside the program (util/file_io.h FindDataDirectory).
  static Result<GoodputCatalog> Open(const std::string& dir, std::string gpu_type = "");

  // The built-in copy of Pollux's T4 profiles (data/real/pollux/traces, Apache-2.0).
  static constexpr const char* kBuiltInDir = "data/real/pollux/traces";

  Result<std::shared_ptr<const GoodputApplication>> Get(const std::string& application);
  // The applications the directory holds (its subdirectories), sorted.
  std::vector<std::string> Available() const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, gpu_type_;
  std::map<std::string, std::shared_ptr<const GoodputApplication>, std::less<>> loaded_;
};

}  // namespace hetsched
