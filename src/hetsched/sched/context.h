// SchedContext: everything a job scheduler may see and do. It wraps the back end (simulator or
// Slurm agent), the cluster state, the placer and the planner. One context lives for a whole run
// (so its estimate cache does too).
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/goodput_view.h"
#include "hetsched/sched/job_status.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/planner.h"
#include "hetsched/util/flat_hash_map.h"

namespace hetsched {

// What a back end knows of jobs still to arrive (SchedBackend::arrivals_left).
enum class ArrivalsLeft { kUnknown, kSome, kNone };

// Implemented by sim::Simulator and slurm::Agent.
class SchedBackend {
 public:
  virtual ~SchedBackend() = default;
  virtual double now() const = 0;
  virtual const JobStatus& job_status(JobId id) const = 0;
  // The zoo's profile of job `id`'s model where the back end has looked it up already (the
  // simulator does once per job: a start then reads no name), else nullptr.
  virtual const ModelProfile* job_model(JobId /*id*/) const { return nullptr; }
  // A hint: job `id` is about to be tried for a start. A back end may start loading what a start
  // reads of it (status, spec, model) into the cache, all at once, so that those misses overlap
  // instead of following one another. Changes nothing. Default: nothing.
  virtual void PrefetchJob(JobId /*id*/) const {}
  // Starts `id` on `planned.plan.devices`. REQUIRES: the job is pending and the devices are
  // free. The back end updates ClusterState. kInfeasible: the back end declines this layout
  // (nothing changed; the scheduler may try another). Any other error is a fault (a bug, or a
  // back end that cannot act): the context ends the run with it (SchedContext::TakeError).
  virtual Status StartJob(JobId id, const PlannedJob& planned) = 0;
  // Stops a running job; it becomes pending (checkpoint/restart cost is the back end's model).
  // Any error is a fault, as for StartJob.
  virtual Status PreemptJob(JobId id) = 0;
  virtual void RequestWakeUp(double time_s) = 0;
  // For round-based schedulers that run a job a whole number of steps per round (Gavel's
  // micro-tasks): the running job `id` progresses until it has done `iterations` iterations in
  // all (the unit of JobStatus::iterations_done), then holds its devices idle (JobStatus::idle),
  // until a later call raises the mark (it resumes at once, with no restart cost) or the
  // scheduler preempts it. Reaching the mark is neither a preemption nor a completion, and the
  // scheduler is not called for it; a mark at or past the job's total lets it complete as usual.
  // A mark at or below its progress now holds it at once. Default: kInfeasible, this back end
  // cannot hold a job (the Slurm agent: a real job runs until preempted); the job then runs on,
  // and the round mechanism works without micro-task holds. Any other error is a fault.
  virtual Status RunUntil(JobId id, double /*iterations*/) {
    return Status::Infeasible("this back end cannot hold job " + std::to_string(id) +
                              " idle at a progress mark (RunUntil)");
  }
  // Gavel's record of a pair micro-task (docs/space_sharing.md, "A pair's end"): should running job
  // `id`'s work end before `time_s`, it holds its devices idle from then (JobStatus::idle, as at a
  // RunUntil mark; not charged, its partner runs on alone) and finishes at `time_s`: its finish and
  // JCT are `time_s`. A `time_s` not after the job's end changes nothing. A job so held cannot be
  // preempted or dropped (a fault), and a RunUntil leaves it held. Default: kInfeasible, this back
  // end cannot (the Slurm agent: a real job ends when it ends); the job finishes when its work
  // ends. Any other error is a fault.
  virtual Status HoldFinishUntil(JobId id, double /*time_s*/) {
    return Status::Infeasible("this back end cannot hold job " + std::to_string(id) + "'s finish");
  }
  // HoldFinishUntil(id, time_s) for each job of `ids` that is running (the others are left
  // alone), in one call: a policy that holds every running job to its next step does so at every
  // step (tiresias-gandiva), and one call per job cost it more than the holds. A job's kInfeasible
  // is its outcome (it finishes when its work ends; the others are still held); the first other
  // error is returned, a fault. Default: HoldFinishUntil for each.
  virtual Status HoldFinishesUntil(std::span<const JobId> ids, double time_s);
  // Moves a running job onto `planned.plan.devices` (it may keep some of its own devices; the
  // others must be free): a grow, a shrink or a move of its ring. The job stays running; the back
  // end charges the change (ResizePauseS). REQUIRES: the job is running and is a device job.
  // kInfeasible: this back end cannot resize (nothing changed; the default: the Slurm agent,
  // where a resize would be a requeue, docs/slurm.md). Any other error is a fault, as for StartJob.
  virtual Status ResizeJob(JobId /*id*/, const PlannedJob& /*planned*/) {
    return Status::Infeasible("this back end cannot resize a running job");
  }
  // Seconds without progress that ResizeJob onto `devices` would cost the job (an elastic
  // re-rendezvous, or a checkpoint restart; perf/elastic_resize.h); infinity when the back end
  // cannot resize. REQUIRES: the job is running.
  virtual double ResizePauseS(JobId /*id*/, std::span<const DeviceId> /*devices*/) const {
    return std::numeric_limits<double>::infinity();
  }
  // Moves a running elastic job onto `planned.plan.devices`, all free and none its own, by a
  // hand-over (perf/elastic_resize.h HandOverCostOf: its old and new workers meet, the state is
  // broadcast, the old ones leave) instead of a checkpoint restart. kInfeasible: this back end
  // cannot (the default; also for a job that is not elastic). Otherwise as ResizeJob.
  virtual Status HandOverJob(JobId /*id*/, const PlannedJob& /*planned*/) {
    return Status::Infeasible("this back end cannot hand a running job over to other devices");
  }
  // Seconds without progress that HandOverJob onto `devices` would cost the job; infinity where
  // it cannot (the default). REQUIRES: the job is running.
  virtual double HandOverPauseS(JobId /*id*/, std::span<const DeviceId> /*devices*/) const {
    return std::numeric_limits<double>::infinity();
  }
  // Space sharing (docs/space_sharing.md): starts pending job `id` co-located with running job
  // `host`, on exactly the devices `host` holds (`planned.plan.devices`), each job then at its
  // co-located speed until either stops. The back end updates ClusterState (AllocateShared).
  // kInfeasible: the back end declines (the default: it cannot co-locate jobs, as the Slurm agent,
  // docs/slurm.md; the simulator for a pair that does not fit the devices' memory). Otherwise as
  // StartJob.
  virtual Status StartSharedJob(JobId id, JobId /*host*/, const PlannedJob& /*planned*/) {
    return Status::Infeasible("this back end cannot co-locate job " + std::to_string(id) + " with another (space sharing)");
  }
  // A container job the placer could not place now stays queued; `reason` says why (shown in
  // the job's status). Default: ignored.
  virtual void NoteUnplaced(JobId /*id*/, std::string_view /*reason*/) {}
  // A job the scheduler can never place on this cluster (no type it could run it on, by what the
  // scheduler sees); `reason` says why. The simulator, when nothing else can progress, stops the
  // run with it as an input error (the workload cannot run under this policy); a live back end
  // shows it as the job's pending reason (the default).
  virtual void NoteNeverPlaceable(JobId id, std::string_view reason) { NoteUnplaced(id, reason); }
  // Ends a job unfinished, running or pending: it leaves the queue and frees its devices, and is
  // reported as dropped, not finished. kInfeasible: this back end cannot (the default; the Slurm
  // agent). Any other error is a fault, as for StartJob.
  virtual Status DropJob(JobId id) {
    return Status::Infeasible("this back end cannot drop job " + std::to_string(id) + " unfinished");
  }
  // Whether any job is still to arrive. A trace replay knows (the simulator); a live back end
  // does not (the default, the Slurm agent). Gavel's simulator acts on it when a round ran
  // nothing (scheduler.py:1273-1295).
  virtual ArrivalsLeft arrivals_left() const { return ArrivalsLeft::kUnknown; }
  // What goodput job `id` reports of itself now (sched/goodput_view.h), its fitted model only
  // `with_model` (a fit is costly); nullopt for another job, or where the back end runs none (the
  // default; the Slurm agent). An error (its throughput fit failed) is a fault.
  virtual Result<std::optional<GoodputJobView>> goodput_job(JobId /*id*/, bool /*with_model*/) const {
    return std::optional<GoodputJobView>();
  }
};

class SchedContext {
 public:
  SchedContext(SchedBackend& backend, const ClusterState& state, Placer& placer, Planner& planner,
               const ModelZoo& zoo)
      : backend_(backend), state_(state), placer_(placer), planner_(planner), zoo_(zoo) {}

  double now() const { return backend_.now(); }
  const Cluster& cluster() const { return state_.cluster(); }
  const ClusterState& state() const { return state_; }
  const JobStatus& job(JobId id) const { return backend_.job_status(id); }
  // SchedBackend::PrefetchJob: for a policy about to TryStart `id`.
  void PrefetchJob(JobId id) const { backend_.PrefetchJob(id); }
  const ModelZoo& zoo() const { return zoo_; }

  // Places (through the placer) and plans (through the planner) `num_devices` devices of `type`
  // (kNoDeviceType: any type the job allows) and starts the job. Returns false when the placer
  // finds no room or the planner rejects the devices; nothing changes then. Also false when the
  // back end fails: that error is kept for TakeError(), and every later start is refused.
  bool TryStart(JobId id, int num_devices, DeviceTypeId type = kNoDeviceType);
  // Starts on devices the scheduler chose itself (e.g. a ring embedding). False if any device is
  // busy or the planner rejects them.
  bool StartOn(JobId id, std::span<const DeviceId> devices);
  // Would the placer find room now? Does not start anything.
  bool CanPlace(JobId id, int num_devices, DeviceTypeId type = kNoDeviceType);
  // Space sharing: starts pending job `id` on the devices of running job `host`, co-located with it
  // (SchedBackend::StartSharedJob). False, with nothing changed, when `host` is not running alone
  // on its devices, the planner rejects them for `id`, or the back end declines (memory, or a back
  // end that cannot share: the Slurm agent); a back-end fault is kept for TakeError().
  bool StartSharing(JobId id, JobId host);
  // Preempts a running job (a job not running is left alone). A back-end failure is kept for
  // TakeError().
  void Preempt(JobId id);
  // SchedBackend::RunUntil for a running job (a job not running is left alone). A back end that
  // cannot hold jobs (kInfeasible) leaves it running; any other failure is kept for TakeError().
  void RunUntil(JobId id, double iterations);
  // SchedBackend::HoldFinishUntil for a running job (a job not running is left alone). A back end
  // that cannot (kInfeasible) lets it finish when its work ends; any other failure is kept for
  // TakeError().
  void HoldFinishUntil(JobId id, double time_s);
  // HoldFinishUntil for each job of `ids` (SchedBackend::HoldFinishesUntil), the same outcome in
  // one call into the back end.
  void HoldFinishesUntil(std::span<const JobId> ids, double time_s);
  // Resizes or moves a running device job onto `devices` (ring order), which may include devices
  // it holds; the others must be free. True when done (the job keeps running, paused for the
  // back end's cost, ResizePauseS). False, with nothing changed, when the job is not a running
  // device job, a device is held by another job, the planner rejects the devices, or the back
  // end cannot resize (the Slurm agent); a back-end fault is kept for TakeError().
  bool ResizeOn(JobId id, std::span<const DeviceId> devices);
  // What ResizeOn(id, devices) would cost the job in seconds without progress; infinity when the
  // back end cannot resize or the job is not running.
  double ResizePauseS(JobId id, std::span<const DeviceId> devices) const;
  // Moves a running elastic job onto `devices` (free, none its own) by a hand-over
  // (SchedBackend::HandOverJob): true when done; false, with nothing changed, as for ResizeOn, or
  // when a device is its own or the back end cannot (the Slurm agent; a job not elastic).
  bool HandOver(JobId id, std::span<const DeviceId> devices);
  // What HandOver(id, devices) would cost the job in seconds without progress; infinity where it
  // cannot.
  double HandOverPauseS(JobId id, std::span<const DeviceId> devices) const;

  // The first fault a back end reported through this context (see SchedBackend::StartJob), and
  // Ok after it is taken. A back end calls it after every call into the scheduler and ends the
  // run with the error: a fault must never read as "no room".
  Status TakeError();
  bool failed() const { return !error_.ok(); }
  // A fault of the scheduler itself (e.g. its LP back end cannot be loaded): kept like a back-end
  // fault, so the run ends with it instead of going on with a decision the policy could not make.
  void Fail(Status status) { KeepError(std::move(status)); }
  void WakeUpAt(double time_s) { backend_.RequestWakeUp(time_s); }
  // SchedBackend::goodput_job; a fault is kept (the run ends with it) and nullopt returned.
  std::optional<GoodputJobView> goodput_job(JobId id, bool with_model = false) {
    auto view = backend_.goodput_job(id, with_model);
    if (view.ok()) return std::move(view).value();
    KeepError(view.status());
    return std::nullopt;
  }
  ArrivalsLeft arrivals_left() const { return backend_.arrivals_left(); }
  // SchedBackend::DropJob: true when the job was dropped; false when the back end cannot (a
  // fault is kept for TakeError()).
  bool DropJob(JobId id) { return Accept(backend_.DropJob(id)); }
  // Why a pending job cannot start (kept in its status; the simulator's stall error quotes it).
  void NoteUnplaced(JobId id, std::string_view reason) { backend_.NoteUnplaced(id, reason); }
  void NoteNeverPlaceable(JobId id, std::string_view reason) { backend_.NoteNeverPlaceable(id, reason); }

  // The visible performance model's estimate of one iteration of `id` on `num_devices` devices
  // of `type`, packed on as few nodes as possible and with no contention. Infinity if it cannot
  // run there (memory). Cached per (job model, batch, parallelism, count, type).
  double EstimateIterationS(JobId id, int num_devices, DeviceTypeId type);
  // Space sharing: the visible model's factor of both jobs' speeds while `a` and `b` share
  // `num_devices` devices of `type`, packed (perf/space_sharing.h [REC]: the same for both); 0
  // where they cannot (memory together, a job that cannot run there, container jobs). Cached per
  // (models, batches, count, type).
  double CoLocationFactorOf(JobId a, JobId b, int num_devices, DeviceTypeId type);

  // Parameter-server container jobs: TryStart, CanPlace and StartOn go through
  // Placer::PlaceContainers and PlanContainerJob; a container job starts only on exactly its
  // num_gpus, trying the requested type or each allowed type in order.
  bool StartContainers(JobId id, std::span<const ContainerPlacement> containers);

  Placer& placer() { return placer_; }
  Planner& planner() { return planner_; }

  // Counters for the run summary.
  long long placements_failed() const { return placements_failed_; }

 private:
  SchedBackend& backend_;
  const ClusterState& state_;
  Placer& placer_;
  Planner& planner_;
  const ModelZoo& zoo_;
  // Places `id`'s containers for type `type` (or each candidate type); true with the placement
  // in containers_, else false with the last reason in reason_.
  bool PlaceContainerJob(JobId id, DeviceTypeId type);
  // Ok and kInfeasible are outcomes; anything else is kept in error_ (the first one).
  bool Accept(Status status);
  // The same for a planner's answer: kInfeasible (the job cannot be planned on these devices, e.g.
  // it does not fit their memory) is an outcome; any other error is a fault, kept as kInternal
  // ("planner: ...") so that the run stops with it (exit 3) instead of taking it for no room.
  bool AcceptPlan(const Status& status);
  // ResizeOn (hand_over false) and HandOver.
  bool Change(JobId id, std::span<const DeviceId> devices, bool hand_over);
  // placer_.Place into scratch_, then the placer's own fault taken (Placer::TakeError).
  bool PlaceDevices(const PlacementRequest& request);
  // Keeps `status` in error_ unless it is Ok or an earlier fault is kept: the first fault wins.
  void KeepError(Status status) {
    if (!status.ok() && error_.ok()) error_ = std::move(status);
  }
  Status error_;
  std::vector<DeviceId> scratch_;
  std::vector<DeviceTypeId> types_;  // TryStart's candidate types (scratch)
  PlannedJob planned_;               // StartOn's plan (scratch: the planner may reuse its storage)
  // StartOn's memo of plans (Planner::PlanKey), direct-mapped: an entry per (model, key, devices)
  // hash slot, the last plan made there. Exact: a hit compares the whole key and device list. By
  // the model's address, as estimate_cache_ (the zoo does not change while a context lives).
  struct PlanMemo {
    const ModelProfile* model = nullptr;  // nullptr: empty
    uint64_t key = 0;
    PlannedJob planned;  // its plan.devices are the devices
  };
  static constexpr size_t kPlanMemoSlots = 256;
  std::vector<PlanMemo> plan_memo_;
  // Plans a job of `spec` on `devices`: `*planned` is the memo's plan where the planner names a
  // key and the memo has it, else planned_, planned afresh (and memoised where there is a key).
  Status PlanStart(const JobSpec& spec, const ModelProfile& model, std::span<const DeviceId> devices,
                   const PlannedJob** planned);
  std::vector<ContainerPlacement> containers_;
  std::string reason_;
  // The first `num_devices` devices of `type`, its largest nodes first (EstimateIterationS's
  // what-if layout); fewer where the cluster has fewer.
  std::vector<DeviceId> PackedDevices(int num_devices, DeviceTypeId type) const;
  std::map<std::tuple<const ModelProfile*, int, const ModelProfile*, int, int, DeviceTypeId>, double> co_location_cache_;
  // (model, batch, parallelism, count, type, servers, GPUs per worker): the last two are 0 for
  // device jobs. Hashed: policies ask at every decision (FIFO's backfill, LAS's estimates).
  struct EstimateKey {
    const ModelProfile* model;
    int batch, parallelism, count, type, servers, worker_gpus;
    bool goodput;  // a goodput job's memory is its profile's (the planner does not check it)
    bool operator==(const EstimateKey&) const = default;
  };
  struct EstimateKeyHash {
    size_t operator()(const EstimateKey& k) const {
      size_t h = std::hash<const void*>{}(k.model);
      for (int v : {k.batch, k.parallelism, k.count, k.type, k.servers, k.worker_gpus, int{k.goodput}}) {
        h = h * 1000003u ^ static_cast<size_t>(static_cast<unsigned>(v));
      }
      return h;
    }
  };
  FlatHashMap<EstimateKey, double, EstimateKeyHash> estimate_cache_;
  long long placements_failed_ = 0;
  // The zoo's profile of job `id`'s model (nullptr if none): the back end's (job_model), else
  // the zoo's lookup of the name.
  const ModelProfile* ModelOf(JobId id, const JobSpec& spec) const;
};

}  // namespace hetsched
