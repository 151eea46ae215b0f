#include "hetsched/run/experiment_request.h"

#include <thread>
#include <vector>

#include "hetsched/experiments/experiment.h"
#include "hetsched/experiments/seeds.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"

namespace hetsched {

namespace {

// Reads the experiment's options without running it: an unknown key or a bad value is an error
// before any output is written (every experiment reads all of its options before it runs anything).
Status CheckOptions(Experiment& experiment, const ExperimentContext& ctx, const std::string& name) {
  ExperimentContext check = ctx;
  check.check_only = true;
  check.print = [](const std::string&) {};
  check.progress = nullptr;
  HETSCHED_RETURN_IF_ERROR(experiment.Run(check).WithContext("--opt"));
  if (auto unused = check.options.Unused(); !unused.empty()) {
    std::string keys;
    for (const std::string& k : unused) keys += (keys.empty() ? "" : ", ") + k;
    return Status::InvalidArgument("--opt: experiment '" + name + "' does not take option(s): " + keys);
  }
  return Status::Ok();
}

}  // namespace

Status RunExperimentRequest(const ExperimentRequest& request, std::string* headline, bool* usage) {
  *usage = false;
  auto experiment = Registry<Experiment>::Instance().Create(request.name, Options());
  if (!experiment.ok()) return experiment.status();
  std::vector<unsigned long long> seeds;
  if (!request.seeds.empty()) {
    auto parsed = ParseSeedList(request.seeds);
    if (!parsed.ok()) {
      *usage = true;
      return parsed.status().WithContext("--seeds");
    }
    seeds = std::move(parsed).value();
  }
  ExperimentContext ctx;
  ctx.out_dir = request.OutDir();
  ctx.seed = request.seed;
  ctx.quick = request.quick;
  ctx.threads =
      request.threads > 0 ? request.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ctx.options = request.options;
  ctx.progress = request.progress;
  ctx.print = request.print ? request.print : [](const std::string&) {};
  if (Status st = CheckOptions(**experiment, ctx, request.name); !st.ok()) {
    *usage = true;
    return st;
  }
  HETSCHED_RETURN_IF_ERROR(MakeDirs(ctx.out_dir));
  HETSCHED_RETURN_IF_ERROR(seeds.empty() ? (*experiment)->Run(ctx) : RunExperimentOverSeeds(**experiment, ctx, seeds));
  *headline = ctx.headline;
  return Status::Ok();
}

}  // namespace hetsched
