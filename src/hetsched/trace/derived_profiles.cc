#include "hetsched/trace/derived_profiles.h"

#include <filesystem>
#include <fmt/format.h>
#include <utility>

#include "hetsched/perf/iteration_model.h"
#include "hetsched/trace/goodput_catalog.h"
#include "hetsched/trace/pollux_profile.h"
#include "hetsched/util/file_io.h"

namespace hetsched {

double ComputeRatio(const ModelProfile& model, int local_bsz, const DeviceType& measured, const DeviceType& target) {
  const int last = static_cast<int>(model.layers.size()) - 1;
  const double from = ComputeTime(model, 0, last, local_bsz, measured);
  const double to = ComputeTime(model, 0, last, local_bsz, target);
  return from > 0 ? to / from : 1;
}

namespace {

// A step of `step` s, `sync` s of it synchronisation, with its compute part scaled by `ratio`.
double Scaled(double step, double sync, double ratio) { return sync + (step - sync) * ratio; }

}  // namespace

Status DeriveGoodputProfiles(const std::string& from_dir, const std::string& to_dir,
                             const std::vector<std::string>& applications, const DeviceType& measured,
                             const std::vector<DerivedType>& targets, const ModelZoo& zoo) {
  namespace fs = std::filesystem;
  for (const std::string& app : applications) {
    const ModelProfile* model = ZooModelOfApplication(zoo, app);
    if (model == nullptr) return Status::InvalidArgument("derived profiles: no model of the zoo trains '" + app + "'");
    const fs::path from = fs::path(from_dir) / app, to = fs::path(to_dir) / app;
    // Read and check everything first: a bad file leaves nothing of this application behind.
    std::vector<std::pair<std::string, std::string>> files;  // name, contents
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(from, ec)) {
      const std::string name = entry.path().filename().string();
      const bool ours = name == "placements.csv" || name == "scalability.csv" ||
                        (name.rfind("validation-", 0) == 0 && entry.path().extension() == ".csv");
      if (!ours) continue;
      HETSCHED_ASSIGN_OR_RETURN(std::string text, ReadFile(entry.path().string()));
      files.emplace_back(name, std::move(text));
    }
    if (ec) return Status::IoError("derived profiles: cannot read " + from.string() + ": " + ec.message());
    std::string placements_text, scalability_text;
    for (const auto& [name, text] : files) {
      if (name == "placements.csv") placements_text = text;
      if (name == "scalability.csv") scalability_text = text;
    }
    HETSCHED_ASSIGN_OR_RETURN(const std::vector<PolluxPlacementRow> placements,
                              ParsePolluxPlacements(placements_text, (from / "placements.csv").string()));
    HETSCHED_ASSIGN_OR_RETURN(const std::vector<PolluxScalabilityRow> scalability,
                              ParsePolluxScalability(scalability_text, (from / "scalability.csv").string()));
    for (const DerivedType& t : targets) {
      std::string p = "placement,local_bsz,step_time,sync_time\n";
      for (const PolluxPlacementRow& r : placements) {
        const double ratio = ComputeRatio(*model, r.local_bsz, measured, *t.type);
        p += fmt::format("{},{},{},{}\n", r.placement, r.local_bsz, Scaled(r.step_time_s, r.sync_time_s, ratio), r.sync_time_s);
      }
      std::string s = "num_nodes,num_replicas,local_bsz,step_time,sync_time\n";
      for (const PolluxScalabilityRow& r : scalability) {
        const double ratio = ComputeRatio(*model, r.local_bsz, measured, *t.type);
        s += fmt::format("{},{},{},{},{}\n", r.num_nodes, r.num_replicas, r.local_bsz,
                         Scaled(r.step_time_s, r.sync_time_s, ratio), r.sync_time_s);
      }
      files.emplace_back("placements-" + t.suffix + ".csv", std::move(p));
      files.emplace_back("scalability-" + t.suffix + ".csv", std::move(s));
    }
    fs::create_directories(to, ec);
    if (ec) return Status::IoError("derived profiles: cannot create " + to.string() + ": " + ec.message());
    for (const auto& [name, text] : files) HETSCHED_RETURN_IF_ERROR(WriteFileAtomic((to / name).string(), text));
  }
  return Status::Ok();
}

}  // namespace hetsched
