#include "hetsched/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "hetsched/perf/elastic_resize.h"
#include "hetsched/perf/iteration_model.h"
#include "hetsched/sched/cluster_state.h"
#include "hetsched/sched/context.h"
#include "hetsched/sim/event_queue.h"
#include "hetsched/sim/link_traffic.h"
#include "hetsched/trace/calibrate.h"

namespace hetsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Scheduling calls without any job progressing (and none left to arrive) after which a run with
// waiting jobs is stopped as stalled; far more than any policy's own waiting (Gavel's mechanism
// waits at most a reset interval, ~6 rounds).
constexpr long long kStallCalls = 10000;

// What only the simulator knows about a job while it runs: the part every job has (kept small,
// a 1M-job run holds a million), and the part only a running job has (in a pool of slots
// reused as jobs stop). The job's JobRecord is written in place in RunRecord::jobs.
struct ActiveRun {
  double update_s = 0;            // RunState::done_at_update is the progress at this time
  double progress_from_s = 0;     // progress starts here (after a restart cost)
  double rate = 0;                // iterations per second in the current allocation
  double completion_s = EventQueue::kNever;  // its entry in the event queue
  Plan plan;
  PreparedEstimate prepared;      // the load-free part of the estimate, set at start
  IterationEstimate estimate;     // with current contention
  PlanTraffic traffic;            // bytes per iteration on each link (load-free; multi-node only)
  std::vector<NodeId> nics;       // NICs this job's traffic crosses (multi-node only)
  std::vector<RackId> uplinks;    // rack uplinks it crosses (multi-rack only)
  double segment_start_s = 0;     // when the current allocation (or resume) began
  double segment_start_iterations = 0;
  double mark = kInf;             // RunUntil: progress stops here (iterations in all)
  bool idle = false;              // held at `mark`: devices kept, no progress, no traffic
};

struct RunState {
  const ModelProfile* model = nullptr;
  double total_iterations = 0;    // truth, in iterations of the job as submitted
  double samples_per_iteration = 0;  // spec.num_gpus x per-device batch: the work of one iteration
  double done_at_update = 0;      // iterations done at ActiveRun::update_s (when stopped: in total)
  double runtime_rate = 0;        // JobTruth::runtime_s as iterations/s on the reference type; 0: none
  int measured_type = -1;         // index in options.measured_throughputs, or -1 (model truth)
  bool measured_fallback = false; // some run of a measured job type used the model
  int32_t active = -1;            // its slot in Simulator::active_ while running, else -1
  int32_t record = -1;            // its index in RunRecord::jobs; -1 if rejected
};

class Simulator final : public SchedBackend {
 public:
  Simulator(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload, SimMethods methods,
            const SimOptions& options)
      : cluster_(cluster),
        zoo_(zoo),
        workload_(workload),
        methods_(std::move(methods)),
        options_(options),
        state_(cluster),
        traffic_(cluster),
        ctx_(*this, state_, *methods_.placer, *methods_.planner, zoo) {}

  Result<RunRecord> Run();

  // SchedBackend
  double now() const override { return now_; }
  const JobStatus& job_status(JobId id) const override { return status_[static_cast<size_t>(id)]; }
  Status StartJob(JobId id, const PlannedJob& planned) override;
  Status PreemptJob(JobId id) override;
  Status RunUntil(JobId id, double iterations) override;
  Status ResizeJob(JobId id, const PlannedJob& planned) override;
  double ResizePauseS(JobId id, std::span<const DeviceId> devices) const override;
  void RequestWakeUp(double time_s) override {
    // Strictly in the future: a scheduler cannot make the clock stand still.
    if (time_s > now_ && std::isfinite(time_s)) events_.AddWakeUp(time_s);
  }
  void NoteUnplaced(JobId id, std::string_view reason) override {
    status_[static_cast<size_t>(id)].pending_reason.assign(reason);
  }

 private:
  Status Prepare();
  Status CheckFits(JobId id);
  // Container jobs: the placer must place containers, and must be able to place this job's on
  // the empty cluster (else it can never start).
  Status CheckContainersFit(JobId id);
  ActiveRun& active(const RunState& run) { return active_[static_cast<size_t>(run.active)]; }
  const ActiveRun& active(const RunState& run) const { return active_[static_cast<size_t>(run.active)]; }
  JobRecord& record(const RunState& run) { return record_.jobs[static_cast<size_t>(run.record)]; }
  double ProgressAt(const RunState& run, double t) const {
    const ActiveRun& a = active(run);
    if (a.idle) return run.done_at_update;
    const double from = std::max(a.update_s, a.progress_from_s);
    return run.done_at_update + (t > from ? a.rate * (t - from) : 0.0);
  }
  void Advance(RunState& run) {
    run.done_at_update = std::min(ProgressAt(run, now_), run.total_iterations);
    active(run).update_s = now_;
  }
  // The measured truth of a job with a measured type: Gavel's steps/s for its GPU type, count and
  // layout (Gavel's simulator finishes a job after total_steps / steps_per_second, and our
  // iterations are Gavel's steps), times the model's contention slowdown (iteration time without
  // load / with load). The model's rate when the table lacks the configuration.
  double MeasuredRate(JobId id, RunState& run);
  // The model's slowdown of the job's current run from link contention: iteration time alone /
  // under the current load, at most 1 (1 when contention is off or the job is on one node).
  double ContentionSlowdown(const RunState& run) const;
  // A job with a trace run time (JobTruth::runtime_s), contention-free, on `count` devices of
  // `type`: total_iterations / runtime_s on spec.num_gpus devices of the reference type; other
  // types and counts scale it by the model's packed estimates (RuntimeCalibrator), whatever the
  // layout. Fails when the model cannot run the job there.
  Result<double> RuntimeTruthRate(JobId id, const RunState& run, DeviceTypeId type, int count);
  Result<double> PackedIterationS(DeviceTypeId type, const ModelProfile& model, int batch, int count);
  // Recomputes the job's speed under the current link load and re-times its completion.
  void Retime(JobId id);
  // Sets the job's stop event (completion, or its RunUntil mark) from its current rate.
  void Reschedule(JobId id);
  void RegisterTraffic(JobId id, int delta, std::vector<JobId>* affected);
  // Adds (+1) or removes (-1) the job's traffic and re-times the jobs sharing a NIC with it.
  void ChangeTraffic(JobId id, int delta);
  // Ends the job's current allocation segment in its record and visible status (device time,
  // energy, cost, bytes, progress); for a stop or an idle hold.
  void CloseSegment(JobId id);
  Status StopRun(JobId id);
  // Takes `planned`'s devices for a pending job and starts it; its progress resumes after pause_s.
  Status BeginRun(JobId id, const PlannedJob& planned, double pause_s);
  ResizeCost ResizeCostTo(JobId id, std::span<const DeviceId> devices) const;
  Status Complete(JobId id);
  // The job reached its RunUntil mark: it keeps its devices, idle.
  Status Hold(JobId id);
  void Sample();
  Status Audit() const;
  // The error for a run that ends with jobs held idle (RunUntil) and nothing left to happen.
  Status StalledHeldJobs(const JobScheduler& scheduler) const;
  // The error for a run in which nothing progressed through kStallCalls scheduling calls.
  Status Stalled(const JobScheduler& scheduler) const;

  const Cluster& cluster_;
  const ModelZoo& zoo_;
  const Workload& workload_;
  SimMethods methods_;
  SimOptions options_;
  ClusterState state_;
  std::unique_ptr<ClusterState> empty_state_;  // for CheckContainersFit, built on first use
  LinkTrafficMeter traffic_;
  SchedContext ctx_;
  EventQueue events_;
  double now_ = 0;

  std::vector<JobStatus> status_;
  std::vector<RunState> runs_;
  std::vector<ActiveRun> active_;              // slots of running jobs
  std::vector<int32_t> free_active_;           // unused slots in active_
  std::vector<bool> rejected_;
  std::vector<int> nic_flows_;                 // by node
  std::vector<int> uplink_flows_;              // by rack
  std::vector<std::vector<JobId>> nic_jobs_;   // by node: running multi-node jobs crossing its NIC
  std::vector<int> busy_by_type_;              // by catalog type id (idle held devices not counted)
  int idle_devices_ = 0;                       // held by idle jobs (RunUntil)
  long long idle_jobs_ = 0;
  std::vector<DeviceTypeId> present_types_;
  DeviceTypeId runtime_type_ = kNoDeviceType;                  // Workload::runtime_device
  std::map<DeviceTypeId, RuntimeCalibrator> calibrators_;      // packed estimates, by type
  long long pending_ = 0, running_ = 0, finished_ = 0, arrived_ = 0;
  long long events_processed_ = 0;
  long long scheduler_calls_ = 0;
  // Consecutive scheduling calls after which no job progressed, none was left to arrive and some
  // waited (pending or held idle); since when.
  long long stalled_calls_ = 0;
  double stalled_since_s_ = 0;
  std::vector<JobId> scratch_affected_;
  RunRecord record_;
};

Status Simulator::CheckFits(JobId id) {
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  double best = kInf;
  int largest = 0;
  for (DeviceTypeId t : present_types_) {
    if (!spec.AllowsType(t, cluster_.device_catalog())) continue;
    largest = std::max(largest, cluster_.devices_per_type()[static_cast<size_t>(t)]);
    if (cluster_.devices_per_type()[static_cast<size_t>(t)] < spec.num_gpus) continue;
    best = std::min(best, ctx_.EstimateIterationS(id, spec.num_gpus, t));
  }
  RunState& run = runs_[static_cast<size_t>(id)];
  if (std::isfinite(best) && run.runtime_rate > 0) {
    // The truth is the trace's run time: the ideal is the fastest type's truth rate.
    double fastest = 0;
    for (DeviceTypeId t : present_types_) {
      if (!spec.AllowsType(t, cluster_.device_catalog()) ||
          cluster_.devices_per_type()[static_cast<size_t>(t)] < spec.num_gpus) {
        continue;
      }
      Result<double> rate = RuntimeTruthRate(id, run, t, spec.num_gpus);
      if (rate.ok()) fastest = std::max(fastest, *rate);
    }
    if (fastest > 0) best = 1.0 / fastest;  // seconds per iteration; else the model's (fallback)
  }
  if (std::isfinite(best)) {
    record(run).ideal_runtime_s = best * run.total_iterations;
    return spec.is_container_job() ? CheckContainersFit(id) : Status::Ok();
  }
  const std::string who = "job " + std::to_string(id) + " ('" + spec.name + "', model " + spec.model +
                          ", submitted at " + std::to_string(spec.submit_time_s) + " s)";
  if (largest < spec.num_gpus) {
    return Status::Infeasible(who + " can never fit: it needs " + std::to_string(spec.num_gpus) +
                              " devices of one allowed type, the cluster has at most " + std::to_string(largest));
  }
  return Status::Infeasible(who + " can never fit: " + std::to_string(spec.num_gpus) +
                            " devices of every allowed type lack the memory for its model and batch");
}

Status Simulator::CheckContainersFit(JobId id) {
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  const std::string who = "job " + std::to_string(id) + " ('" + spec.name + "', model " + spec.model + ")";
  Placer& placer = *methods_.placer;
  if (!placer.places_containers()) {
    return Status::InvalidArgument(who + " is a parameter-server container job, and placer '" +
                                   std::string(placer.name()) + "' does not place containers");
  }
  if (!empty_state_) empty_state_ = std::make_unique<ClusterState>(cluster_);
  std::vector<ContainerPlacement> trial;
  std::string reason;
  PlacementRequest request{&spec, spec.num_gpus, kNoDeviceType};
  for (DeviceTypeId t : CandidateTypes(request, *empty_state_)) {
    trial.clear();
    PlacementRequest typed{&spec, spec.num_gpus, t};
    if (placer.PlaceContainers(typed, *empty_state_, &trial, &reason)) return Status::Ok();
  }
  return Status::Infeasible(who + " can never fit: on the empty cluster, " + reason);
}

Status Simulator::Prepare() {
  const size_t n = workload_.jobs.size();
  status_.resize(n);
  runs_.resize(n);
  record_.jobs.reserve(n);
  rejected_.assign(n, false);
  nic_flows_.assign(static_cast<size_t>(cluster_.num_nodes()), 0);
  nic_jobs_.assign(static_cast<size_t>(cluster_.num_nodes()), {});
  uplink_flows_.assign(cluster_.racks().size(), 0);
  busy_by_type_.assign(static_cast<size_t>(cluster_.device_catalog().size()), 0);
  present_types_ = cluster_.present_types();
  if (!workload_.runtime_device.empty()) {
    Result<DeviceTypeId> type = cluster_.device_catalog().Lookup(workload_.runtime_device);
    if (!type.ok()) return type.status().WithContext("workload: the reference device of its run times");
    runtime_type_ = *type;
  }
  for (size_t i = 0; i < n; ++i) {
    const Job& job = workload_.jobs[i];
    if (job.spec.id != static_cast<JobId>(i)) {
      return Status::InvalidArgument("workload: job ids must be 0..n-1 in order; position " + std::to_string(i) +
                                     " holds id " + std::to_string(job.spec.id));
    }
    if (i > 0 && job.spec.submit_time_s < workload_.jobs[i - 1].spec.submit_time_s) {
      return Status::InvalidArgument("workload: jobs must be sorted by submit time (job " + std::to_string(i) + ")");
    }
    if (job.spec.num_gpus < 1) {
      return Status::InvalidArgument("job " + std::to_string(i) + ": num_gpus must be >= 1");
    }
    status_[i].spec = &job.spec;
    status_[i].queued_since_s = job.spec.submit_time_s;
    RunState& run = runs_[i];
    run.model = zoo_.Find(job.spec.model);
    run.total_iterations = std::max(job.truth.total_iterations, 1.0);
    if (run.model != nullptr) {
      const int batch = job.spec.batch_size > 0 ? job.spec.batch_size : run.model->default_batch_size;
      run.samples_per_iteration = static_cast<double>(job.spec.num_gpus) * std::max(batch, 1);
    }
    run.record = static_cast<int32_t>(record_.jobs.size());
    JobRecord& rec = record_.jobs.emplace_back();
    rec.id = job.spec.id;
    rec.name = job.spec.name;
    rec.user = job.spec.user;
    rec.model = job.spec.model;
    rec.num_gpus = job.spec.num_gpus;
    rec.priority = job.spec.priority;
    rec.submit_s = job.spec.submit_time_s;
    rec.deadline_s = job.spec.deadline_s;
    if (options_.measured_throughputs != nullptr) {
      run.measured_type = options_.measured_throughputs->JobTypeIndex(job.truth.measured_job_type);
    }
    if (run.model == nullptr) {
      return Status::InvalidArgument("job " + std::to_string(i) + ": unknown model '" + job.spec.model + "'");
    }
    if (job.truth.runtime_s > 0) {
      if (runtime_type_ == kNoDeviceType) {
        return Status::InvalidArgument("job " + std::to_string(i) +
                                       " has a trace run time but the workload names no reference device");
      }
      run.runtime_rate = run.total_iterations / job.truth.runtime_s;
    }
    Status fits = CheckFits(static_cast<JobId>(i));
    if (!fits.ok()) {
      if (!options_.skip_unfit_jobs) return fits;
      rejected_[i] = true;
      record_.jobs.pop_back();
      run.record = -1;
      ++record_.jobs_rejected;
      if (record_.rejected_reasons.size() < 10) record_.rejected_reasons.push_back(fits.message());
    }
  }
  return Status::Ok();
}

void Simulator::RegisterTraffic(JobId id, int delta, std::vector<JobId>* affected) {
  const ActiveRun& run = active(runs_[static_cast<size_t>(id)]);
  for (NodeId node : run.nics) {
    nic_flows_[static_cast<size_t>(node)] += delta;
    auto& jobs = nic_jobs_[static_cast<size_t>(node)];
    if (delta > 0) {
      jobs.push_back(id);
    } else {
      jobs.erase(std::find(jobs.begin(), jobs.end(), id));
    }
    for (JobId other : jobs) {
      if (other != id) affected->push_back(other);
    }
  }
  for (RackId r : run.uplinks) uplink_flows_[static_cast<size_t>(r)] += delta;
}

double Simulator::MeasuredRate(JobId id, RunState& job) {
  const ActiveRun& run = active(job);
  const int count = static_cast<int>(run.plan.devices.size());
  const DeviceTypeId type = cluster_.device(run.plan.devices.front()).type;
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  const double steps_per_s = count == spec.num_gpus
                                 ? options_.measured_throughputs->StepsPerSecond(
                                       job.measured_type, type, count,
                                       options_.measured_always_consolidated || run.estimate.span_nodes <= 1)
                                 : 0.0;
  if (steps_per_s <= 0) {
    job.measured_fallback = true;
    return run.rate;
  }
  return steps_per_s * ContentionSlowdown(job);
}

double Simulator::ContentionSlowdown(const RunState& job) const {
  const ActiveRun& run = active(job);
  if (!options_.contention || run.nics.empty() || run.estimate.iteration_s <= 0) return 1.0;
  const IterationEstimate alone = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, LinkLoad{});
  return std::min(1.0, alone.iteration_s / run.estimate.iteration_s);
}

Result<double> Simulator::PackedIterationS(DeviceTypeId type, const ModelProfile& model, int batch, int count) {
  auto it = calibrators_.find(type);
  if (it == calibrators_.end()) {
    HETSCHED_ASSIGN_OR_RETURN(RuntimeCalibrator made,
                              RuntimeCalibrator::Create(cluster_.device_catalog(), cluster_.link_catalog(),
                                                        cluster_.device_catalog().type(type).name));
    it = calibrators_.emplace(type, std::move(made)).first;
  }
  return it->second.IterationSeconds(model, batch, count);
}

Result<double> Simulator::RuntimeTruthRate(JobId id, const RunState& run, DeviceTypeId type, int count) {
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  if (type == runtime_type_ && count == spec.num_gpus) return run.runtime_rate;  // the trace's own figure
  // Iterations are of spec.num_gpus x batch samples: compare sample throughputs.
  HETSCHED_ASSIGN_OR_RETURN(const double on_s, PackedIterationS(type, *run.model, spec.batch_size, count));
  HETSCHED_ASSIGN_OR_RETURN(const double ref_s, PackedIterationS(runtime_type_, *run.model, spec.batch_size,
                                                                 spec.num_gpus));
  return run.runtime_rate * (static_cast<double>(count) / on_s) / (static_cast<double>(spec.num_gpus) / ref_s);
}

void Simulator::Retime(JobId id) {
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  Advance(job);
  LinkLoad load;
  if (options_.contention) {
    load.nic_flows = &nic_flows_;
    load.uplink_flows = &uplink_flows_;
  }
  // Only the communication depends on the load: the rest was computed at the start.
  run.estimate = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, load);
  // Progress is counted in iterations of the job as submitted (num_gpus x batch samples), so a
  // job that a scheduler runs on more or fewer devices than it asked for (elastic scheduling)
  // progresses at its sample throughput over that.
  run.rate = run.estimate.samples_per_s > 0 && job.samples_per_iteration > 0
                 ? run.estimate.samples_per_s / job.samples_per_iteration
                 : 0.0;
  if (job.measured_type >= 0) {
    run.rate = MeasuredRate(id, job);
  } else if (job.runtime_rate > 0 && !run.plan.devices.empty()) {
    const Result<double> truth = RuntimeTruthRate(id, job, cluster_.device(run.plan.devices.front()).type,
                                                  static_cast<int>(run.plan.devices.size()));
    // Where the model cannot run the job (no estimate), its own rate stays the truth.
    if (truth.ok()) run.rate = *truth * ContentionSlowdown(job);
  }
  if (!run.nics.empty()) traffic_.Set(id, run.traffic, run.estimate.iteration_s);
  status_[static_cast<size_t>(id)].iteration_rate = run.idle ? 0.0 : run.rate;
  Reschedule(id);
}

void Simulator::Reschedule(JobId id) {
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  double finish = EventQueue::kNever;
  if (run.rate > 0 && !run.idle) {
    const double from = std::max(now_, run.progress_from_s);
    finish = from + (std::min(job.total_iterations, run.mark) - job.done_at_update) / run.rate;
  }
  if (finish != run.completion_s) {  // often the same: a neighbour's change left this job's speed alone
    events_.SetCompletion(id, finish);
    run.completion_s = finish;
  }
}

void Simulator::ChangeTraffic(JobId id, int delta) {
  scratch_affected_.clear();
  RegisterTraffic(id, delta, &scratch_affected_);
  if (delta > 0) Retime(id);
  std::sort(scratch_affected_.begin(), scratch_affected_.end());
  scratch_affected_.erase(std::unique(scratch_affected_.begin(), scratch_affected_.end()), scratch_affected_.end());
  for (JobId other : scratch_affected_) Retime(other);
  if (delta < 0 && !active(runs_[static_cast<size_t>(id)]).nics.empty()) traffic_.Remove(id);
}

Status Simulator::StartJob(JobId id, const PlannedJob& planned) {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kPending || rejected_[static_cast<size_t>(id)]) {
    return Status::Internal("start of job " + std::to_string(id) + " that is not pending");
  }
  return BeginRun(id, planned, st.preemptions > 0 ? options_.restart_cost_s : 0.0);
}

ResizeCost Simulator::ResizeCostTo(JobId id, std::span<const DeviceId> devices) const {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  const ElasticResizeModel params{options_.resize_rendezvous_s, options_.restart_cost_s};
  return ResizeCostOf(*runs_[static_cast<size_t>(id)].model, cluster_, st.devices, devices, st.spec->elastic, params);
}

double Simulator::ResizePauseS(JobId id, std::span<const DeviceId> devices) const {
  const JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kRunning || devices.empty() || st.spec->is_container_job()) return kInf;
  return ResizeCostTo(id, devices).pause_s;
}

Status Simulator::ResizeJob(JobId id, const PlannedJob& planned) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kRunning || st.spec->is_container_job() || !planned.plan.containers.empty() ||
      planned.plan.devices.empty()) {
    return Status::Internal("resize of job " + std::to_string(id) + " that is not a running device job");
  }
  const ResizeCost cost = ResizeCostTo(id, planned.plan.devices);
  if (cost.kind == ResizeKind::kNone) return Status::Ok();
  RunState& job = runs_[static_cast<size_t>(id)];
  // The part of the pause a previous change left still runs: it is not forgiven.
  const double owed = std::max(0.0, active(job).progress_from_s - now_);
  HETSCHED_RETURN_IF_ERROR(StopRun(id));
  st.state = JobState::kPending;  // for the instant of the change: BeginRun takes a pending job
  ++pending_;
  JobRecord& rec = record(job);
  ++rec.resizes;
  rec.resize_pause_s += cost.pause_s;
  if (cost.kind == ResizeKind::kRestart) {
    ++st.preemptions;
    ++rec.preemptions;
  }
  return BeginRun(id, planned, owed + cost.pause_s);
}

Status Simulator::BeginRun(JobId id, const PlannedJob& planned, double pause_s) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  RunState& job = runs_[static_cast<size_t>(id)];
  if (planned.plan.containers.empty()) {
    HETSCHED_RETURN_IF_ERROR(state_.Allocate(id, planned.plan.devices));
  } else {
    HETSCHED_RETURN_IF_ERROR(state_.AllocateContainers(id, planned.plan.containers));
  }
  st.pending_reason.clear();
  st.state = JobState::kRunning;
  st.devices = planned.plan.devices;
  st.device_type = cluster_.device(st.devices.front()).type;
  st.last_start_s = now_;
  if (st.first_start_s < 0) st.first_start_s = now_;
  for (DeviceId d : st.devices) ++busy_by_type_[static_cast<size_t>(cluster_.device(d).type)];
  --pending_;
  ++running_;

  if (free_active_.empty()) {
    job.active = static_cast<int32_t>(active_.size());
    active_.emplace_back();
  } else {
    job.active = free_active_.back();
    free_active_.pop_back();
  }
  ActiveRun& run = active(job);
  run.rate = 0;
  run.completion_s = EventQueue::kNever;
  run.estimate = IterationEstimate{};
  run.plan = planned.plan;
  run.update_s = now_;
  run.progress_from_s = now_ + pause_s;
  run.segment_start_s = now_;
  run.segment_start_iterations = job.done_at_update;
  run.mark = kInf;
  run.idle = false;
  st.idle = false;
  run.nics = NicsUsed(cluster_, run.plan);
  run.uplinks.clear();
  for (NodeId node : run.nics) run.uplinks.push_back(cluster_.node(node).rack);
  std::sort(run.uplinks.begin(), run.uplinks.end());
  run.uplinks.erase(std::unique(run.uplinks.begin(), run.uplinks.end()), run.uplinks.end());
  if (run.uplinks.size() < 2) run.uplinks.clear();
  run.prepared = PrepareEstimate(*job.model, run.plan, cluster_);
  run.traffic.nics.clear();
  run.traffic.uplinks.clear();
  if (!run.nics.empty()) {
    // The bytes a plan moves do not depend on the load (only how long they take does).
    run.traffic = TrafficOf(*job.model, run.plan, cluster_,
                            EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, LinkLoad{}));
  }

  ChangeTraffic(id, +1);
  JobRecord& rec = record(job);
  rec.max_span_nodes = std::max(rec.max_span_nodes, run.estimate.span_nodes);
  return Status::Ok();
}

void Simulator::CloseSegment(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  JobRecord& rec = record(job);
  Advance(job);
  const double held_s = now_ - run.segment_start_s;
  const double n = static_cast<double>(st.devices.size());
  const DeviceType& type = cluster_.device_catalog().type(st.device_type);
  rec.gpu_seconds += held_s * n;
  rec.busy_energy_joules += held_s * n * (type.tdp_watts - type.idle_watts);
  rec.cost_usd += held_s / 3600.0 * n * type.price_per_hour;
  rec.cross_node_bytes += (job.done_at_update - run.segment_start_iterations) * run.estimate.cross_node_bytes;
  st.service_gpu_s += held_s * n;
  st.executed_s += held_s;
  st.iterations_done = job.done_at_update;
  st.iteration_rate = 0;
  for (DeviceId d : st.devices) --busy_by_type_[static_cast<size_t>(cluster_.device(d).type)];
  events_.CancelCompletion(id);
  run.completion_s = EventQueue::kNever;
}

Status Simulator::StopRun(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  JobRecord& rec = record(job);
  if (run.idle) {  // its segment, devices' busy count and traffic were closed when it was held
    run.idle = false;
    st.idle = false;
    idle_devices_ -= static_cast<int>(st.devices.size());
    --idle_jobs_;
  } else {
    CloseSegment(id);
    ChangeTraffic(id, -1);
  }
  rec.device_type = st.device_type;
  rec.device_type_name = cluster_.device_catalog().type(st.device_type).name;
  if (run.plan.containers.empty()) {
    HETSCHED_RETURN_IF_ERROR(state_.Release(id, st.devices));
  } else {
    HETSCHED_RETURN_IF_ERROR(state_.ReleaseContainers(id));
  }
  st.devices.clear();
  run.nics.clear();
  run.uplinks.clear();
  free_active_.push_back(job.active);
  job.active = -1;
  --running_;
  return Status::Ok();
}

Status Simulator::PreemptJob(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kRunning) {
    return Status::Internal("preemption of job " + std::to_string(id) + " that is not running");
  }
  HETSCHED_RETURN_IF_ERROR(StopRun(id));
  st.state = JobState::kPending;
  st.queued_since_s = now_;
  ++st.preemptions;
  ++record(runs_[static_cast<size_t>(id)]).preemptions;
  ++pending_;
  return Status::Ok();
}

Status Simulator::Hold(JobId id) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  // Progress conservation: held exactly at its mark (or where it was, if already past it).
  const double done = ProgressAt(job, now_);
  const double tol = 1e-6 * job.total_iterations + 1e-6;
  if (done + tol < run.mark) {
    return Status::Internal("invariant: job " + std::to_string(id) + " held at t=" + std::to_string(now_) + " with " +
                            std::to_string(done) + " iterations done, before its mark " + std::to_string(run.mark));
  }
  CloseSegment(id);
  job.done_at_update = std::abs(done - run.mark) <= tol ? run.mark : done;
  st.iterations_done = job.done_at_update;
  ChangeTraffic(id, -1);
  run.idle = true;
  st.idle = true;
  idle_devices_ += static_cast<int>(st.devices.size());
  ++idle_jobs_;
  return Status::Ok();
}

Status Simulator::RunUntil(JobId id, double iterations) {
  JobStatus& st = status_[static_cast<size_t>(id)];
  if (st.state != JobState::kRunning || !(iterations >= 0)) {
    return Status::Internal("RunUntil of job " + std::to_string(id) + " that is not running, or with a bad mark");
  }
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  run.mark = iterations;
  if (!run.idle) {
    Advance(job);
    if (job.done_at_update >= std::min(iterations, job.total_iterations)) return Hold(id);
    Reschedule(id);
    return Status::Ok();
  }
  if (iterations <= job.done_at_update) return Status::Ok();  // stays held
  // Resume on the devices it holds: a new segment, no restart cost.
  run.idle = false;
  st.idle = false;
  idle_devices_ -= static_cast<int>(st.devices.size());
  --idle_jobs_;
  for (DeviceId d : st.devices) ++busy_by_type_[static_cast<size_t>(cluster_.device(d).type)];
  st.last_start_s = now_;
  run.update_s = now_;
  run.progress_from_s = std::max(now_, run.progress_from_s);  // a restart cost still due stays due
  run.segment_start_s = now_;
  run.segment_start_iterations = job.done_at_update;
  ChangeTraffic(id, +1);
  return Status::Ok();
}

Status Simulator::Complete(JobId id) {
  RunState& run = runs_[static_cast<size_t>(id)];
  JobStatus& st = status_[static_cast<size_t>(id)];
  // Progress conservation: the job finishes exactly when its work is done.
  const double done = ProgressAt(run, now_);
  const double tol = 1e-6 * run.total_iterations + 1e-6;
  if (std::abs(done - run.total_iterations) > tol) {
    return Status::Internal("invariant: job " + std::to_string(id) + " completes at t=" + std::to_string(now_) +
                            " with " + std::to_string(done) + " of " + std::to_string(run.total_iterations) +
                            " iterations done");
  }
  HETSCHED_RETURN_IF_ERROR(StopRun(id));
  run.done_at_update = run.total_iterations;
  st.iterations_done = run.total_iterations;
  st.state = JobState::kFinished;
  st.finish_s = now_;
  JobRecord& rec = record(run);
  rec.first_start_s = st.first_start_s;
  rec.finish_s = now_;
  ++finished_;
  methods_.scheduler->OnJobFinished(st, ctx_);
  HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
  if (options_.progress) {
    const long long total = static_cast<long long>(workload_.jobs.size()) - record_.jobs_rejected;
    const long long step = std::max<long long>(1, total / 200);
    if (finished_ % step == 0 || finished_ == total) options_.progress(finished_, total);
  }
  return Status::Ok();
}

void Simulator::Sample() {
  const int busy = cluster_.num_devices() - state_.total_free() - idle_devices_;
  auto& tl = record_.timeline;
  auto same_by_type = [&](const TimelineSample& s) {
    for (size_t i = 0; i < present_types_.size(); ++i) {
      if (s.busy_by_type[i] != busy_by_type_[static_cast<size_t>(present_types_[i])]) return false;
    }
    return true;
  };
  if (!tl.empty()) {
    const TimelineSample& last = tl.back();
    if (last.busy_devices == busy && last.running_jobs == running_ && last.pending_jobs == pending_ &&
        same_by_type(last)) {
      return;  // nothing changed: the step function continues
    }
  }
  if (tl.empty() || tl.back().time_s != now_) tl.emplace_back();
  TimelineSample& s = tl.back();
  s.time_s = now_;
  s.busy_devices = busy;
  s.running_jobs = static_cast<int>(running_);
  s.pending_jobs = static_cast<int>(pending_);
  s.busy_by_type.resize(present_types_.size());
  for (size_t i = 0; i < present_types_.size(); ++i) {
    s.busy_by_type[i] = busy_by_type_[static_cast<size_t>(present_types_[i])];
  }
}

Status Simulator::StalledHeldJobs(const JobScheduler& scheduler) const {
  JobId first = -1;
  for (size_t i = 0; i < status_.size() && first < 0; ++i) {
    if (status_[i].state == JobState::kRunning && status_[i].idle) first = static_cast<JobId>(i);
  }
  return Status::Internal("policy '" + std::string(scheduler.name()) + "' left job " + std::to_string(first) +
                          (idle_jobs_ > 1 ? " and " + std::to_string(idle_jobs_ - 1) + " other(s)" : std::string()) +
                          " held idle at a progress mark (RunUntil) at t=" + std::to_string(now_) +
                          " with nothing left to happen");
}

Status Simulator::Stalled(const JobScheduler& scheduler) const {
  JobId first = -1;
  for (size_t i = 0; i < status_.size() && first < 0; ++i) {
    const JobStatus& st = status_[i];
    if (!rejected_[i] && (st.state == JobState::kPending || (st.state == JobState::kRunning && st.idle))) {
      first = static_cast<JobId>(i);
    }
  }
  const JobSpec& spec = *status_[static_cast<size_t>(first)].spec;
  const long long waiting = pending_ + idle_jobs_;
  return Status::Internal("policy '" + std::string(scheduler.name()) + "' makes no progress: job " +
                          std::to_string(first) + " ('" + spec.name + "', " + std::to_string(spec.num_gpus) +
                          " GPU(s), submitted at " + std::to_string(spec.submit_time_s) + " s)" +
                          (waiting > 1 ? " and " + std::to_string(waiting - 1) + " other(s)" : std::string()) +
                          " waited through " + std::to_string(kStallCalls) + " scheduling calls from t=" +
                          std::to_string(stalled_since_s_) + " s to t=" + std::to_string(now_) +
                          " s with no job progressing and none left to arrive");
}

Status Simulator::Audit() const {
  HETSCHED_RETURN_IF_ERROR(state_.CheckConsistency());
  long long pending = 0, running = 0, finished = 0, busy = 0;
  for (size_t i = 0; i < status_.size(); ++i) {
    if (rejected_[i] || status_[i].spec->submit_time_s > now_) continue;
    switch (status_[i].state) {
      case JobState::kPending: ++pending; break;
      case JobState::kRunning: ++running; busy += status_[i].num_devices(); break;
      case JobState::kFinished: ++finished; break;
    }
  }
  if (pending != pending_ || running != running_ || finished != finished_ ||
      busy != cluster_.num_devices() - state_.total_free()) {
    return Status::Internal("invariant: job accounting disagrees at t=" + std::to_string(now_));
  }
  return Status::Ok();
}

Result<RunRecord> Simulator::Run() {
  const auto wall_start = std::chrono::steady_clock::now();
  HETSCHED_RETURN_IF_ERROR(Prepare());
  JobScheduler& scheduler = *methods_.scheduler;
  const double round = scheduler.round_period_s();
  size_t cursor = 0;
  const size_t n = workload_.jobs.size();
  while (true) {
    while (cursor < n && rejected_[cursor]) ++cursor;
    const double next_arrival = cursor < n ? workload_.jobs[cursor].spec.submit_time_s : kInf;
    const double t = std::min(next_arrival, events_.NextTime());
    if (!std::isfinite(t)) {
      if (idle_jobs_ > 0) return StalledHeldJobs(scheduler);
      break;
    }
    if (t > options_.max_time_s) {
      now_ = options_.max_time_s;  // the run is cut here: running jobs are accounted up to it
      break;
    }
    if (t < now_) return Status::Internal("invariant: time went backwards");
    now_ = t;
    // 1. Completions at t (they free devices before anyone asks for them), in job-id order. A
    //    job reaching its RunUntil mark is held instead; that alone does not call the scheduler.
    bool decide = false;
    for (JobId done = events_.CompletionAt(now_); done >= 0; done = events_.CompletionAt(now_)) {
      ++events_processed_;
      const RunState& run = runs_[static_cast<size_t>(done)];
      if (active(run).mark < run.total_iterations) {
        HETSCHED_RETURN_IF_ERROR(Hold(done));
      } else {
        decide = true;
        HETSCHED_RETURN_IF_ERROR(Complete(done));
      }
    }
    // 2. Arrivals at t.
    while (cursor < n && workload_.jobs[cursor].spec.submit_time_s == now_) {
      decide = true;
      if (!rejected_[cursor]) {
        ++arrived_;
        ++pending_;
        ++events_processed_;
        scheduler.OnJobSubmitted(status_[cursor], ctx_);
        HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
      }
      ++cursor;
    }
    // 3. Round ticks and wake-ups due at t.
    const int timers = events_.PopTimersAt(now_);
    events_processed_ += timers;
    if (!decide && timers == 0) {  // only holds: nothing for the scheduler to decide
      Sample();
      traffic_.Settle();
      continue;
    }
    if (options_.decision_timings != nullptr) {
      const long long pending_before = pending_;
      const auto t0 = std::chrono::steady_clock::now();
      scheduler.Schedule(ctx_);
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      options_.decision_timings->emplace_back(dt, pending_before);
    } else {
      scheduler.Schedule(ctx_);
    }
    // A start or preemption the back end refused as a fault ends the run (exit 3 for a bug).
    HETSCHED_RETURN_IF_ERROR(ctx_.TakeError());
    ++scheduler_calls_;
    // A run in which nothing can change any more but the scheduler's clock (no job progressing,
    // none left to arrive, some waiting) is a scheduler that will never place them: stop it
    // rather than tick to max_time.
    if (cursor >= n && running_ == idle_jobs_ && pending_ + idle_jobs_ > 0) {
      if (stalled_calls_++ == 0) stalled_since_s_ = now_;
      if (stalled_calls_ >= kStallCalls) return Stalled(scheduler);
    } else {
      stalled_calls_ = 0;
    }
    if (round > 0 && !events_.round_armed() && (pending_ > 0 || running_ > 0 || cursor < n)) {
      events_.SetRound(now_ + round);
    }
    Sample();
    traffic_.Settle();
    if (options_.check_invariants) {
      if (state_.total_free() < 0 || pending_ < 0 || running_ < 0) {
        return Status::Internal("invariant: negative counter at t=" + std::to_string(now_));
      }
      if (options_.full_audit_every > 0 && scheduler_calls_ % options_.full_audit_every == 0) {
        HETSCHED_RETURN_IF_ERROR(Audit());
      }
    }
    if (pending_ > 0 && running_ == 0 && events_.empty() && cursor >= n) {
      return Status::Internal("policy '" + std::string(scheduler.name()) + "' left " + std::to_string(pending_) +
                              " job(s) pending on an idle cluster with nothing left to happen");
    }
  }
  if (options_.check_invariants) HETSCHED_RETURN_IF_ERROR(Audit());

  record_.policy = std::string(scheduler.name());
  record_.placer = std::string(methods_.placer->name());
  record_.planner = std::string(methods_.planner->name());
  record_.trace = workload_.source;
  record_.cluster_summary = cluster_.Summary();
  record_.truth_table_used = options_.measured_throughputs != nullptr;
  record_.seed = options_.seed;
  record_.total_devices = cluster_.num_devices();
  record_.idle_power_watts = 0;
  for (const Device& d : cluster_.devices()) record_.idle_power_watts += cluster_.device_catalog().type(d.type).idle_watts;
  for (DeviceTypeId t : present_types_) {
    record_.device_types.push_back(cluster_.device_catalog().type(t).name);
    record_.devices_per_type.push_back(cluster_.devices_per_type()[static_cast<size_t>(t)]);
  }
  for (size_t i = 0; i < n; ++i) {
    if (rejected_[i]) continue;
    RunState& run = runs_[i];
    if (status_[i].state == JobState::kRunning) {  // cut off by max_time: account what it used
      HETSCHED_RETURN_IF_ERROR(StopRun(static_cast<JobId>(i)));
      status_[i].state = JobState::kPending;
    }
    record(run).first_start_s = status_[i].first_start_s;
    // The same precedence as the speed itself (TrueIterationS): measured table, trace run time, model.
    ++(run.measured_type >= 0 ? (run.measured_fallback ? record_.jobs_truth_mixed : record_.jobs_truth_measured)
       : run.runtime_rate > 0 ? record_.jobs_truth_runtime
                              : record_.jobs_truth_model);
  }
  traffic_.Report(&record_.link_peaks);
  record_.events = events_processed_;
  record_.scheduler_calls = scheduler_calls_;
  record_.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return std::move(record_);
}

}  // namespace

Result<RunRecord> Simulate(const Cluster& cluster, const ModelZoo& zoo, const Workload& workload,
                           SimMethods methods, const SimOptions& options) {
  if (!methods.scheduler || !methods.placer || !methods.planner) {
    return Status::InvalidArgument("simulate: a job scheduler, a placer and a planner are all required");
  }
  HETSCHED_RETURN_IF_ERROR(cluster.Validate());
  Simulator sim(cluster, zoo, workload, std::move(methods), options);
  return sim.Run();
}

}  // namespace hetsched
