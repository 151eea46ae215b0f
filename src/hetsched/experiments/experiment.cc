#include "hetsched/experiments/experiment.h"

#include <algorithm>

#include "hetsched/metrics/summary.h"
#include "hetsched/report/run_dirs.h"

namespace hetsched {

std::function<void(long long, long long)> PartProgress(const ExperimentContext& ctx, int part, int parts) {
  if (!ctx.progress || parts <= 0) return nullptr;
  constexpr long long kWhole = 1'000'000;
  return [report = ctx.progress, part, parts](long long done, long long total) {
    const double within = total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 1.0;
    report(static_cast<long long>((part + within) / parts * kWhole), kWhole);
  };
}

Status WriteExperimentRun(const ExperimentContext& ctx, const std::string& part, const std::string& name,
                          RunRecord run) {
  run.policy = name;
  const Summary summary = Summarize(run);
  return WriteRunDir(ctx.out_dir + "/runs/" + RunDirName(part) + "/" + RunDirName(name), run, summary);
}

}  // namespace hetsched
