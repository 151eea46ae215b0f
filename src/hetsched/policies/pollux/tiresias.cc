// Tiresias as Pollux's simulator runs it ("Tiresias+TunedJobs") [SRC: petuum/adaptdl @
// osdi21-artifact, simulator/tiresias.py (Apache-2.0); Pollux, OSDI 2021, sec. 5.3]: every
// `round` seconds (Pollux's interval, 60 s, from 0), two queues of discretised least attained
// service:
//  - a job seen for the first time joins the end of queue 0 (jobs in arrival order);
//  - each running job's executed time grows by the whole seconds since its last check; once
//    executed time x GPUs reaches `threshold` (16 GPU-hours) it moves to the end of queue 1 (no
//    promotion back: Pollux runs it without Tiresias' starvation rule);
//  - queue 0 then queue 1, in order: a job runs if its GPU count fits in the GPUs not yet given
//    to a running job (later, smaller jobs may pass a larger one that does not fit); one that does
//    not fit loses its GPUs (preempted);
//  - a running job without GPUs gets them one node at a time, from the node with the most free
//    GPUs (the first such node in id order), as many as fit there.
// A job keeps its GPU count and its user's batch (a goodput job's tuned batch): a rigid job.
// Only the GPU counts of nodes are considered: every job's devices must be of one type.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "hetsched/policies/pollux/common.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

class PolluxTiresias final : public JobScheduler {
 public:
  PolluxTiresias(double round_s, double threshold_gpu_s)
      : round_s_(round_s), threshold_(threshold_gpu_s), grid_(round_s) {}

  std::string_view name() const override { return "pollux-tiresias"; }
  double round_period_s() const override { return round_s_; }

  void OnJobSubmitted(const JobStatus& job, SchedContext& /*ctx*/) override { arrived_.push_back(job.spec->id); }
  void OnJobFinished(const JobStatus& job, SchedContext& /*ctx*/) override { Forget(job.spec->id); }
  void OnJobRequeued(const JobStatus& job, SchedContext& /*ctx*/) override {
    auto it = jobs_.find(job.spec->id);
    if (it == jobs_.end()) {
      arrived_.push_back(job.spec->id);
    } else {
      it->second.nodes.clear();  // it lost its GPUs: placed again while it is let run
    }
  }
  // A job a back end found running (the Slurm agent at a restart): its own, in queue 0.
  void OnJobRunning(const JobStatus& job, SchedContext& ctx) override {
    const JobId id = job.spec->id;
    if (jobs_.contains(id)) return;
    Job& j = jobs_[id];
    j.running = true;
    j.last_check = static_cast<long long>(ctx.now());
    for (DeviceId d : job.devices) j.nodes.push_back(ctx.cluster().device(d).node);
    queue0_.push_back(id);
    order_.push_back(id);
  }

  void Schedule(SchedContext& ctx) override {
    if (!grid_.Due(ctx, !order_.empty() || !arrived_.empty())) return;
    const double now = ctx.now();
    for (JobId id : arrived_) {
      jobs_[id] = Job{};
      queue0_.push_back(id);
      order_.push_back(id);
    }
    arrived_.clear();
    if (order_.empty()) return;  // Pollux's simulator calls its policy only with jobs active
    const long long event_time = static_cast<long long>(now);
    UpdateQueues(ctx, event_time);
    std::vector<JobId> run = Admit(ctx);
    Allocate(ctx, run);
    grid_.Next(ctx, !order_.empty());
  }

 private:
  struct Job {
    bool running = false;
    long long last_check = 0, executed = 0;
    std::vector<NodeId> nodes;  // one entry per GPU, in the order given (empty: none)
  };

  void Forget(JobId id) {
    jobs_.erase(id);
    auto drop = [id](std::vector<JobId>& v) { v.erase(std::remove(v.begin(), v.end(), id), v.end()); };
    drop(queue0_);
    drop(queue1_);
    drop(order_);
    drop(arrived_);
  }

  // Executed time of running jobs, and demotion to queue 1 (tiresias.py:30-42).
  void UpdateQueues(SchedContext& ctx, long long event_time) {
    for (JobId id : order_) {
      Job& j = jobs_.at(id);
      const long long elapsed = event_time - j.last_check;
      j.last_check = event_time;
      if (!j.running) continue;
      j.executed += elapsed;
      const double gpu_time = static_cast<double>(j.executed) * ctx.job(id).spec->num_gpus;
      auto in0 = std::find(queue0_.begin(), queue0_.end(), id);
      if (in0 != queue0_.end() && gpu_time >= threshold_) {
        queue0_.erase(in0);
        queue1_.push_back(id);
      }
    }
  }

  // Which jobs run: queue 0 then 1, each if it fits in what is left (tiresias.py:58-67). A job
  // that does not fit is preempted; returns those to run, in queue order.
  std::vector<JobId> Admit(SchedContext& ctx) {
    int free = ctx.cluster().num_devices();
    std::vector<JobId> run;
    for (const std::vector<JobId>* queue : {&queue0_, &queue1_}) {
      for (JobId id : *queue) {
        Job& j = jobs_.at(id);
        const int need = ctx.job(id).spec->num_gpus;
        if (need <= free) {
          j.running = true;
          free -= need;
          run.push_back(id);
        } else {
          j.running = false;
          if (!j.nodes.empty()) {
            j.nodes.clear();
            if (ctx.job(id).state == JobState::kRunning) ctx.Preempt(id);
          }
        }
      }
    }
    return run;
  }

  // GPUs for the running jobs that hold none (tiresias.py:68-78).
  void Allocate(SchedContext& ctx, const std::vector<JobId>& run) {
    const Cluster& cluster = ctx.cluster();
    for (JobId id : run) {
      Job& j = jobs_.at(id);
      if (!j.nodes.empty() || ctx.job(id).state == JobState::kRunning) continue;
      const JobSpec& spec = *ctx.job(id).spec;
      if (spec.application.empty()) {  // not Pollux's: the placer places it
        if (ctx.TryStart(id, spec.num_gpus)) {
          for (DeviceId d : ctx.job(id).devices) j.nodes.push_back(cluster.device(d).node);
        }
        continue;
      }
      const std::vector<DeviceId> devices = pollux_internal::FreestNodesFirst(ctx, id, spec.num_gpus);
      if (devices.empty() || !ctx.StartOn(id, devices)) continue;
      for (DeviceId d : devices) j.nodes.push_back(cluster.device(d).node);
    }
  }

  double round_s_, threshold_;
  pollux_internal::RoundGrid grid_;
  std::map<JobId, Job> jobs_;
  std::vector<JobId> queue0_, queue1_;
  std::vector<JobId> order_;    // the jobs seen, in arrival order (Pollux's job list)
  std::vector<JobId> arrived_;  // submitted since the last round
};

Result<std::unique_ptr<JobScheduler>> MakePolluxTiresias(const Options& options) {
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, options.GetDouble("round", 60));
  HETSCHED_ASSIGN_OR_RETURN(const double threshold_h, options.GetDouble("threshold_gpu_hours", 16));
  if (!(round_s > 0) || !std::isfinite(round_s)) {
    return Status::InvalidArgument("policy 'pollux-tiresias': option 'round' must be > 0 seconds");
  }
  if (!(threshold_h > 0) || !std::isfinite(threshold_h)) {
    return Status::InvalidArgument("policy 'pollux-tiresias': option 'threshold_gpu_hours' must be > 0");
  }
  return std::unique_ptr<JobScheduler>(std::make_unique<PolluxTiresias>(round_s, threshold_h * 3600));
}

const MethodInfo kPolluxTiresiasInfo{
    "pollux-tiresias",
    "Tiresias as Pollux's simulator runs it: 2-queue LAS, demotion at 16 GPU-hours, rigid jobs, 60 s rounds",
    "[SRC] petuum/adaptdl osdi21-artifact simulator/tiresias.py (Pollux, OSDI 2021, sec. 5.3: Tiresias+TunedJobs)"};

}  // namespace

HETSCHED_REGISTER_IMPL(JobScheduler, kPolluxTiresiasRegistered, kPolluxTiresiasInfo, MakePolluxTiresias)

}  // namespace hetsched
