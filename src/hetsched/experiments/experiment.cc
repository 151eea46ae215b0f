#include "hetsched/experiments/experiment.h"

#include <algorithm>

#include "hetsched/metrics/summary.h"
#include "hetsched/report/run_dirs.h"
#include "hetsched/util/file_io.h"

namespace hetsched {

std::function<void(long long, long long)> PartProgress(const ExperimentContext& ctx, int part, int parts) {
  if (!ctx.progress || parts <= 0) return nullptr;
  constexpr long long kWhole = 1'000'000;
  return [report = ctx.progress, part, parts](long long done, long long total) {
    const double within = total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 1.0;
    report(static_cast<long long>((part + within) / parts * kWhole), kWhole);
  };
}

Status WriteExperimentOutputs(const ExperimentContext& ctx, const std::vector<std::pair<std::string, std::string>>& files,
                              const std::vector<std::string>& more) {
  std::string line = "outputs:";
  for (const auto& [name, contents] : files) {
    HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(ctx.out_dir + "/" + name, contents));
    line += " " + ctx.out_dir + "/" + name;
  }
  for (const std::string& name : more) line += " " + ctx.out_dir + "/" + name;
  if (ctx.print) ctx.print(line + "\n");
  return Status::Ok();
}

Status WriteExperimentRun(const ExperimentContext& ctx, const std::string& part, const std::string& name,
                          RunRecord run) {
  run.policy = name;
  const Summary summary = Summarize(run);
  return WriteRunDir(ctx.out_dir + "/runs/" + RunDirName(part) + "/" + RunDirName(name), run, summary);
}

}  // namespace hetsched
