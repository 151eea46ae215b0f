// The goodput applications of one profile folder (Pollux's `simulator/traces/`, Sia's
// `traces/` with a GPU-type suffix), loaded on first use, with Pollux's own settings for its six.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/goodput_application.h"
#include "hetsched/util/status.h"

namespace hetsched {

// Whose settings an application gets beside its files: Pollux's simulator's or Sia's.
enum class GoodputSettings { kPollux, kSia };

// Pollux's own settings of its six applications [SRC: simulator/applications.py:230-238]: max
// epochs bert 2, cifar10 100, ncf 10, imagenet 90, deepspeech2 80, yolov3 50; yolov3's largest
// local batch 8; ncf on one GPU at most, and at batch 32768 where a policy adapts batches
// (simulator.py:271-274, 330-331, 349-350). Another name: everything from its files.
ApplicationSettings PolluxApplicationSettings(std::string_view application);
// Sia's [SRC: siasosp23/artifacts sia-simulator/applications.py:37-61, 361-396]: the same epochs;
// no local-batch cap for yolov3 (its files' largest, 16); deepspeech2's largest local batch 57 on
// the `rtx` profiles; no replica limit or pinned batch for ncf (cluster.py:391 tests a key that
// never matches, so Sia's simulator runs ncf as any adaptive job); and its job model: a
// re-allocation delay per application (cifar10 50 s, deepspeech2 25, bert 120, yolov3 80, imagenet
// 250, ncf 15, any other 30: applications.py:56-69), progress slowed by its calibration (cifar10
// 1.8, ncf 1.5, imagenet, yolov3, bert and deepspeech2 1.2: simulator_config.py:31-33, job.py:485)
// and the local batch per placement (job.py:340, 375-385; ApplicationSettings).
ApplicationSettings SiaApplicationSettings(std::string_view application, std::string_view suffix);

// The zoo model a goodput application trains (Pollux's: its benchmark/models/: BERT-base
// fine-tuned on SQuAD, ResNet-18 on CIFAR-10, ResNet-50 on ImageNet, NeuMF on MovieLens,
// DeepSpeech2 on CMU-ARCTIC, YOLOv3 on PASCAL VOC); another application is looked up in the zoo by
// its own name. nullptr: none.
const ModelProfile* ZooModelOfApplication(const ModelZoo& zoo, std::string_view application);

// One GPU type of a profile folder: the suffix of its files ("" for Pollux's `placements.csv`,
// "aws" for Sia's `placements-aws.csv`) and the catalog type they were measured on.
struct GoodputProfileType {
  std::string suffix;
  DeviceTypeId device = kNoDeviceType;
};

// The applications of one profile directory (DIR/<application>/: Pollux's files, or Sia's with a
// type suffix per GPU type), each loaded and triangulated once, on first use.
class GoodputCatalog {
 public:
  // `dir` as given, or under the data tree beside the program (util/file_io.h FindDataDirectory).
  // `types`: the GPU types whose files are read, at least one (default: Pollux's unsuffixed files,
  // tied to no type).
  static Result<GoodputCatalog> Open(const std::string& dir, std::vector<GoodputProfileType> types = {{}},
                                     GoodputSettings settings = GoodputSettings::kPollux);

  // The same, the types named as a user names them: (file suffix, device type name or alias of
  // `devices`), settings "pollux" or "sia".
  static Result<GoodputCatalog> OpenNamed(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& types,
                                          std::string_view settings, const DeviceCatalog& devices);

  // The built-in copy of Pollux's T4 profiles (data/real/pollux/traces, Apache-2.0).
  static constexpr const char* kBuiltInDir = "data/real/pollux/traces";

  // Its truth on every type; an error if a type lacks its files or the types disagree on its epochs.
  Result<GoodputTruth> Get(const std::string& application);
  // The applications the directory holds (its subdirectories), sorted.
  std::vector<std::string> Available() const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::vector<GoodputProfileType> types_;
  GoodputSettings settings_ = GoodputSettings::kPollux;
  bool built_in_ = false;  // the built-in copy of Pollux's profiles
  std::map<std::string, GoodputTruth, std::less<>> loaded_;
};

}  // namespace hetsched
