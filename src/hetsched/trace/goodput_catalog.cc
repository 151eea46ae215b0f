#include "hetsched/trace/goodput_catalog.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <utility>

#include "hetsched/trace/pollux_profile.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"

namespace hetsched {

ApplicationSettings PolluxApplicationSettings(std::string_view application) {
  ApplicationSettings s;
  if (application == "bert") s.max_epochs = 2;
  if (application == "cifar10") s.max_epochs = 100;
  if (application == "ncf") {
    s.max_epochs = 10;
    s.max_replicas = 1;
    s.pinned_batch_size = 32768;
  }
  if (application == "imagenet") s.max_epochs = 90;
  if (application == "deepspeech2") s.max_epochs = 80;
  if (application == "yolov3") {
    s.max_epochs = 50;
    s.max_local_bsz = 8;
  }
  return s;
}

ApplicationSettings SiaApplicationSettings(std::string_view application, std::string_view suffix) {
  ApplicationSettings s = PolluxApplicationSettings(application);
  s.max_replicas = 0;
  s.pinned_batch_size = 0;
  s.max_local_bsz = application == "deepspeech2" && suffix == "rtx" ? 57 : 0;
  // Its job model: the re-allocation delay per application (applications.py:56-69), the
  // calibration slowdown (simulator_config.py:31-33; an application it does not list: none) and
  // the local batch per placement (job.py:340, 375-385).
  const std::pair<std::string_view, double> kDelay[] = {{"cifar10", 50}, {"deepspeech2", 25}, {"bert", 120},
                                                        {"yolov3", 80},  {"imagenet", 250},   {"ncf", 15}};
  const std::pair<std::string_view, double> kSlowdown[] = {{"cifar10", 1.8}, {"imagenet", 1.2},    {"yolov3", 1.2},
                                                           {"bert", 1.2},    {"deepspeech2", 1.2}, {"ncf", 1.5}};
  s.restart_delay_s = 30;
  for (const auto& [name, seconds] : kDelay) {
    if (application == name) s.restart_delay_s = seconds;
  }
  for (const auto& [name, slowdown] : kSlowdown) {
    if (application == name) s.progress_scale = 1 / slowdown;
  }
  s.local_batch_per_placement = true;
  s.fit_tolerance = 1e-5;  // goodput.py:201-203
  return s;
}

namespace {

struct ZooModel {
  std::string_view application, model;
};
constexpr ZooModel kPolluxZooModels[] = {{"bert", "bert-base"},     {"cifar10", "resnet18-cifar"},
                                         {"imagenet", "resnet50"},  {"ncf", "neumf"},
                                         {"deepspeech2", "deepspeech2"}, {"yolov3", "yolov3"}};

}  // namespace

const ModelProfile* ZooModelOfApplication(const ModelZoo& zoo, std::string_view application) {
  for (const ZooModel& m : kPolluxZooModels) {
    if (m.application == application) return zoo.Find(std::string(m.model));
  }
  return zoo.Find(std::string(application));
}

Result<GoodputCatalog> GoodputCatalog::Open(const std::string& dir, std::vector<GoodputProfileType> types,
                                            GoodputSettings settings) {
  GoodputCatalog out;
  if (types.empty()) return Status::InvalidArgument("goodput profiles: no GPU type to read them for");
  auto found = FindDataDirectory(dir);
  if (!found.ok()) return found.status().WithContext("goodput profiles");
  out.dir_ = std::move(found).value();
  out.types_ = std::move(types);
  out.settings_ = settings;
  out.built_in_ = dir == kBuiltInDir;
  if (out.Available().empty()) {
    return Status::InvalidArgument("goodput profiles: " + out.dir_ + " holds no application folder");
  }
  return out;
}

Result<GoodputCatalog> GoodputCatalog::OpenNamed(const std::string& dir,
                                                 const std::vector<std::pair<std::string, std::string>>& types,
                                                 std::string_view settings, const DeviceCatalog& devices) {
  if (settings != "pollux" && settings != "sia") {
    return Status::InvalidArgument("goodput profiles: settings must be 'pollux' or 'sia', got " + Quoted(settings));
  }
  std::vector<GoodputProfileType> resolved;
  for (const auto& [suffix, device] : types) {
    const DeviceTypeId id = devices.Find(device);
    if (id == kNoDeviceType) {
      return Status::InvalidArgument("goodput profiles: the device type of " + (suffix.empty() ? std::string("the unsuffixed files") : "suffix " + Quoted(suffix)) +
                                     ", " + Quoted(device) + ", is not in the device catalog");
    }
    for (const GoodputProfileType& t : resolved) {
      if (t.suffix == suffix || t.device == id) {
        return Status::InvalidArgument("goodput profiles: suffix " + Quoted(suffix) + " or device type " + Quoted(device) +
                                       " given twice");
      }
    }
    resolved.push_back({suffix, id});
  }
  return Open(dir, std::move(resolved), settings == "sia" ? GoodputSettings::kSia : GoodputSettings::kPollux);
}

std::vector<std::string> GoodputCatalog::Available() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    if (entry.is_directory(ec)) out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<GoodputTruth> GoodputCatalog::Get(const std::string& application) {
  if (auto it = loaded_.find(application); it != loaded_.end()) return it->second;
  const std::vector<std::string> names = Available();
  if (application.empty() || application.find('/') != std::string::npos || application[0] == '.' ||
      !std::binary_search(names.begin(), names.end(), application)) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("unknown application " + Quoted(application) + " (" + dir_ + " has " + list + ")");
  }
  GoodputTruth truth;
  for (const GoodputProfileType& type : types_) {
    Result<PolluxModelProfile> loaded = LoadPolluxModelProfile(dir_, application, type.suffix);
    if (!loaded.ok() && !type.suffix.empty() && built_in_) {
      return Status::NotFound(loaded.status().message() +
                              " (the built-in profiles are Pollux's T4 files, without a type suffix; Sia's per-type "
                              "profiles are not in the project: give --profiles SIA/sia-simulator/traces)");
    }
    HETSCHED_ASSIGN_OR_RETURN(PolluxModelProfile profile, std::move(loaded));
    const ApplicationSettings settings = settings_ == GoodputSettings::kSia ? SiaApplicationSettings(application, type.suffix)
                                                                            : PolluxApplicationSettings(application);
    HETSCHED_ASSIGN_OR_RETURN(auto app, GoodputApplication::Create(std::move(profile), settings));
    if (!truth.by_type.empty()) {
      const GoodputApplication& first = truth.reference();
      if (app->max_epochs() != first.max_epochs() || app->ProgressAt(app->max_epochs()) != first.ProgressAt(first.max_epochs())) {
        return Status::InvalidArgument("goodput profiles: application " + Quoted(application) + " has other epochs on type " +
                                       Quoted(type.suffix) + " than on " + Quoted(types_.front().suffix) +
                                       " (the types must share its validation runs)");
      }
    }
    truth.by_type.push_back({type.device, std::move(app)});
  }
  loaded_.emplace(application, truth);
  return truth;
}

}  // namespace hetsched
