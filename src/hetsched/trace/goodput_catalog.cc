#include "hetsched/trace/goodput_catalog.h"

#include <algorithm>
#include <filesystem>

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

Result<GoodputCatalog> GoodputCatalog::Open(const std::string& dir, std::string gpu_type) {
  GoodputCatalog out;
  auto found = FindDataDirectory(dir);
  if (!found.ok()) return found.status().WithContext("goodput profiles");
  out.dir_ = std::move(found).value();
  out.gpu_type_ = std::move(gpu_type);
  if (out.Available().empty()) {
    return Status::InvalidArgument("goodput profiles: " + out.dir_ + " holds no application folder");
  }
  return out;
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

Result<std::shared_ptr<const GoodputApplication>> GoodputCatalog::Get(const std::string& application) {
  if (auto it = loaded_.find(application); it != loaded_.end()) return it->second;
  const std::vector<std::string> names = Available();
  if (application.empty() || application.find('/') != std::string::npos || application[0] == '.' ||
      !std::binary_search(names.begin(), names.end(), application)) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("unknown application " + Quoted(application) + " (" + dir_ + " has " + list + ")");
  }
  HETSCHED_ASSIGN_OR_RETURN(PolluxModelProfile profile, LoadPolluxModelProfile(dir_, application, gpu_type_));
  HETSCHED_ASSIGN_OR_RETURN(auto app, GoodputApplication::Create(std::move(profile), PolluxApplicationSettings(application)));
  loaded_.emplace(application, app);
  return app;
}

}  // namespace hetsched
