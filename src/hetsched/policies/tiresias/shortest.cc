// Tiresias' `shortest` and `shortest-gpu` as Tiresias' own simulator runs them (registered as
// `tiresias-shortest` and `tiresias-shortest-gpu`): preemptive shortest remaining time first, on
// the true durations. SymbioticLab/Tiresias @ 959f9b0, simulator/run_sim.py,
// shortest_first_sim_jobs (lines 592-725); docs/policies.md.
//
// The peer orders by what it knows and a scheduler does not: each job's trace duration. hetsched
// keeps that with the simulator's truth, so the policy is given it as an oracle file,
// `durations=TRACE` (the same Tiresias CSV: job_id and duration columns), as Gavel's policies are
// given `profile=`. Without it a job's duration is its estimated length as any scheduler sees it
// at submission (RemainingOnFastestS, job_estimates.h; infinite when unknown). At every arrival or completion
// (run_sim.py:640-673):
//  - the key of a job never run is its duration (shortest) or int(duration x GPUs) (shortest-gpu);
//  - a job that has run has int(duration - executed), or that x GPUs; the peer updates it only
//    while the job runs (a pending job keeps the value it had when it stopped, the same number);
//  - the runnable list (pending and running; new jobs join its end) is stable-sorted by the key,
//    so ties keep the order of the last sort, not arrival order;
//  - the whole cluster is re-planned in that order (yarn_replan.h).
// The peer ends a job at int(start + remaining): with fractional durations its jobs end up to a
// second earlier than here; the traces compared have whole-second durations and submit times.
// Cost: O(runnable jobs x (log jobs + nodes)) per event, as in the peer.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/policies/job_estimates.h"
#include "hetsched/policies/tiresias/yarn_replan.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {
namespace {

using DurationByName = std::map<std::string, double, std::less<>>;

// job_id -> duration from a Tiresias trace CSV (the header names the columns).
Result<DurationByName> ParseDurations(const std::string& text, const std::string& path) {
  LineReader lines(text);
  std::string_view line;
  int c_id = -1, c_duration = -1;
  DurationByName out;
  while (lines.Next(&line)) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> cols = Split(line, ',');
    const std::string where = path + ":" + std::to_string(lines.line_number());
    if (c_id < 0) {
      for (size_t i = 0; i < cols.size(); ++i) {
        if (Trim(cols[i]) == "job_id") c_id = static_cast<int>(i);
        if (Trim(cols[i]) == "duration") c_duration = static_cast<int>(i);
      }
      if (c_id < 0 || c_duration < 0)
        return Status::InvalidArgument(where + ": no job_id and duration columns");
      continue;
    }
    if (static_cast<int>(cols.size()) <= std::max(c_id, c_duration)) {
      return Status::InvalidArgument(where + ": too few fields");
    }
    HETSCHED_ASSIGN_OR_RETURN(const double d, ParseDouble(Trim(cols[static_cast<size_t>(c_duration)]),
                                                          where + ": field 'duration'"));
    out[std::string(Trim(cols[static_cast<size_t>(c_id)]))] = d;
  }
  if (c_id < 0) return Status::InvalidArgument(path + ": empty, no header");
  return out;
}

class TiresiasShortestScheduler : public JobScheduler {
 public:
  TiresiasShortestScheduler(std::string name, bool gpu_time, std::optional<DurationByName> durations)
      : name_(std::move(name)), gpu_time_(gpu_time), durations_(std::move(durations)) {}

  std::string_view name() const override { return name_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override {
    if (!durations_) {
      duration_[job.spec->id] = RemainingOnFastestS(ctx, job.spec->id);
    } else if (const auto it = durations_->find(job.spec->name); it != durations_->end()) {
      duration_[job.spec->id] = it->second;
    } else {
      ctx.Fail(Status::InvalidArgument("policy '" + name_ + "': job '" + job.spec->name +
                                       "' is not in the durations file"));
      return;
    }
    runnable_.push_back(job.spec->id);
  }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override {
    runnable_.erase(std::remove(runnable_.begin(), runnable_.end(), job.spec->id), runnable_.end());
    duration_.erase(job.spec->id);
  }
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override { OnJobSubmitted(job, ctx); }

  void Schedule(SchedContext& ctx) override {
    if (ctx.failed()) return;
    key_.clear();
    for (JobId id : runnable_) key_[id] = Key(ctx.job(id), ctx.now());
    std::stable_sort(runnable_.begin(), runnable_.end(), [&](JobId a, JobId b) { return key_[a] < key_[b]; });
    replan_.Apply(ctx, runnable_);
  }

 private:
  // The peer's remaining_time or remaining_gputime (run_sim.py:643-662).
  double Key(const JobStatus& job, double now) const {
    const double d = duration_.at(job.spec->id);
    const double g = job.spec->num_gpus;
    const double executed = job.ExecutedS(now);
    const bool ran = executed > 0 || job.state == JobState::kRunning;
    if (!ran) return gpu_time_ ? std::trunc(d * g) : d;
    const double left = std::trunc(d - std::trunc(executed));
    return gpu_time_ ? left * g : left;
  }

  std::string name_;
  bool gpu_time_;
  std::optional<DurationByName> durations_;  // the oracle: job name -> trace duration
  std::map<JobId, double> duration_;         // runnable jobs' durations
  std::vector<JobId> runnable_;              // pending and running, in the peer's list order
  std::map<JobId, double> key_;              // scratch of Schedule
  TiresiasYarnReplan replan_;
};

Result<std::unique_ptr<JobScheduler>> MakeShortest(const std::string& name, bool gpu_time,
                                                   const Options& options) {
  const std::string path = options.GetString("durations", "");
  if (path.empty()) {
    return std::unique_ptr<JobScheduler>(
        std::make_unique<TiresiasShortestScheduler>(name, gpu_time, std::nullopt));
  }
  HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFileOrEmbedded(path));
  HETSCHED_ASSIGN_OR_RETURN(DurationByName durations, ParseDurations(text, path));
  return std::unique_ptr<JobScheduler>(
      std::make_unique<TiresiasShortestScheduler>(name, gpu_time, std::move(durations)));
}

const MethodInfo kShortestInfo{
    "tiresias-shortest",
    "Tiresias' preemptive shortest remaining time first on true durations (durations=TRACE), yarn re-plan "
    "per event",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py shortest_first_sim_jobs, gputime=False)"};
const MethodInfo kShortestGpuInfo{
    "tiresias-shortest-gpu",
    "Tiresias' preemptive shortest remaining GPU time (GPUs x time) first on true durations "
    "(durations=TRACE)",
    "[SRC] Tiresias' simulator (SymbioticLab/Tiresias run_sim.py shortest_first_sim_jobs, gputime=True)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kTiresiasShortestRegistered, kShortestInfo,
                       [](const Options& o) { return MakeShortest("tiresias-shortest", false, o); })
HETSCHED_REGISTER_IMPL(JobScheduler, kTiresiasShortestGpuRegistered, kShortestGpuInfo,
                       [](const Options& o) { return MakeShortest("tiresias-shortest-gpu", true, o); })

}  // namespace hetsched
