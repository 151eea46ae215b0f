// Test helpers for policies, placers and planners: a tiny two-type cluster, a minimal in-memory
// SchedBackend (no simulator), a predictable planner (fixed iteration time per device type) and a
// lowest-id placer, so that a policy's decisions can be checked by hand.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "hetsched/model/cluster.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched::test {

inline constexpr DeviceTypeId kFast = 0;  // "fast-gpu"
inline constexpr DeviceTypeId kSlow = 1;  // "slow-gpu"

// Catalogs and a cluster of nodes (type, devices), all in one rack. Node i gets devices in order,
// so node 0 holds devices 0..n0-1, node 1 the next ones, and so on. Not movable: the cluster
// points at the catalogs.
class TestCluster {
 public:
  explicit TestCluster(const std::vector<std::pair<DeviceTypeId, int>>& nodes) {
    DeviceType fast;
    fast.name = "fast-gpu";
    fast.fp32_flops = 20e12;
    fast.memory_bytes = 16.0 * 1024 * 1024 * 1024;
    fast.memory_bandwidth_Bps = 900e9;
    devices_.Add(fast);
    DeviceType slow = fast;
    slow.name = "slow-gpu";
    slow.fp32_flops = 5e12;
    devices_.Add(slow);
    LinkClass nvlink;
    nvlink.name = "nvlink";
    nvlink.bandwidth_Bps = 150e9;
    nvlink.latency_s = 2e-6;
    const LinkClassId intra = links_.Add(nvlink);
    LinkClass eth;
    eth.name = "eth25";
    eth.bandwidth_Bps = 3.125e9;
    eth.latency_s = 20e-6;
    const LinkClassId nic = links_.Add(eth);
    cluster_ = Cluster(&devices_, &links_);
    Rack rack;
    rack.name = "rack0";
    rack.uplink = nic;
    cluster_.AddRack(rack);
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node node;
      node.name = "node" + std::to_string(i);
      node.rack = 0;
      node.device_type = nodes[i].first;
      node.num_devices = nodes[i].second;
      node.intra_link = intra;
      node.nic = nic;
      cluster_.AddNode(node);
    }
  }
  TestCluster(const TestCluster&) = delete;
  TestCluster& operator=(const TestCluster&) = delete;

  const Cluster& cluster() const { return cluster_; }

 private:
  DeviceCatalog devices_;
  LinkCatalog links_;
  Cluster cluster_;
};

// Iteration time depends only on the device type (default: fast 1 s, slow 2 s), so expected
// runtimes in tests are iterations x that number.
class FakePlanner : public Planner {
 public:
  std::map<DeviceTypeId, double> iteration_s{{kFast, 1.0}, {kSlow, 2.0}};
  Status fail_with;  // when not Ok, every plan fails so

  std::string_view name() const override { return "fake"; }
  Result<PlannedJob> PlanJob(const JobSpec& job, const ModelProfile& /*model*/, std::span<const DeviceId> devices,
                             const Cluster& cluster) override {
    if (!fail_with.ok()) return fail_with;
    PlannedJob planned;
    planned.plan.parallelism = devices.size() == 1 ? Parallelism::kSingle : job.parallelism;
    planned.plan.batch_per_device = 32;
    planned.plan.devices.assign(devices.begin(), devices.end());
    planned.estimate.iteration_s = iteration_s.at(cluster.device(devices[0]).type);
    return planned;
  }
};

// Lowest-id free devices of the first candidate type with enough free devices (scans: tests only).
class FakePlacer : public Placer {
 public:
  std::string_view name() const override { return "fake"; }
  bool Place(const PlacementRequest& request, const ClusterState& state, std::vector<DeviceId>* out) override {
    for (DeviceTypeId t : CandidateTypes(request, state)) {
      if (state.free_of_type(t) < request.num_devices) continue;
      int taken = 0;
      for (DeviceId d = 0; d < state.cluster().num_devices() && taken < request.num_devices; ++d) {
        if (state.cluster().device(d).type == t && state.is_free(d)) {
          out->push_back(d);
          ++taken;
        }
      }
      return true;
    }
    return false;
  }
};

// In-memory back end: holds specs and statuses, applies starts and preemptions to a ClusterState,
// records every call, and has a clock the test sets.
class FakeBackend : public SchedBackend {
 public:
  explicit FakeBackend(const Cluster& cluster) : state_(cluster) {}

  double now() const override { return now_; }
  void set_now(double t) { now_ = t; }
  const ClusterState& state() const { return state_; }

  JobStatus& AddJob(JobSpec spec) {
    auto owned = std::make_unique<JobSpec>(std::move(spec));
    const JobId id = owned->id;
    JobStatus& status = status_[id];
    status = JobStatus{};  // an id submitted again starts afresh
    status.spec = owned.get();
    status.queued_since_s = owned->submit_time_s;
    specs_[id] = std::move(owned);
    return status;
  }
  const JobStatus& job_status(JobId id) const override { return status_.at(id); }
  JobStatus& mutable_status(JobId id) { return status_.at(id); }
  JobSpec& mutable_spec(JobId id) { return *specs_.at(id); }

  Status StartJob(JobId id, const PlannedJob& planned) override {
    if (!fail_start.ok()) return fail_start;
    JobStatus& s = status_.at(id);
    if (s.state != JobState::kPending) return Status::Internal("start of a job that is not pending");
    HETSCHED_RETURN_IF_ERROR(state_.Allocate(id, planned.plan.devices));
    s.state = JobState::kRunning;
    s.devices = planned.plan.devices;
    s.device_type = state_.cluster().device(s.devices[0]).type;
    s.last_start_s = now_;
    if (s.first_start_s < 0) s.first_start_s = now_;
    s.iteration_rate = planned.estimate.iteration_s > 0 ? 1.0 / planned.estimate.iteration_s : 0;
    log.push_back("start " + std::to_string(id) + " on " + DeviceList(s.devices));
    return Status::Ok();
  }
  Status PreemptJob(JobId id) override {
    if (!fail_preempt.ok()) return fail_preempt;
    HETSCHED_RETURN_IF_ERROR(StopRunning(id, JobState::kPending));
    status_.at(id).preemptions++;
    log.push_back("preempt " + std::to_string(id));
    return Status::Ok();
  }
  void RequestWakeUp(double time_s) override { wake_ups.push_back(time_s); }
  void NoteUnplaced(JobId id, std::string_view reason) override { status_.at(id).pending_reason.assign(reason); }
  // Records the mark only (no hold is simulated): what a round-based policy asked for.
  Status RunUntil(JobId id, double iterations) override {
    marks[id] = iterations;
    return Status::Ok();
  }
  // Resizes only when resize_pause_s is set (a back end like the Slurm agent refuses: the base
  // class's default); the pause is then the same for any change.
  Status ResizeJob(JobId id, const PlannedJob& planned) override {
    if (resize_pause_s < 0) return SchedBackend::ResizeJob(id, planned);
    JobStatus& s = status_.at(id);
    HETSCHED_RETURN_IF_ERROR(StopRunning(id, JobState::kPending));
    HETSCHED_RETURN_IF_ERROR(state_.Allocate(id, planned.plan.devices));
    s.state = JobState::kRunning;
    s.devices = planned.plan.devices;
    s.last_start_s = now_;
    log.push_back("resize " + std::to_string(id) + " to " + DeviceList(s.devices));
    return Status::Ok();
  }
  double ResizePauseS(JobId id, std::span<const DeviceId> devices) const override {
    return resize_pause_s < 0 ? SchedBackend::ResizePauseS(id, devices) : resize_pause_s;
  }
  double resize_pause_s = -1;  // < 0: resizes refused (kInfeasible)
  ArrivalsLeft arrivals_left() const override { return arrivals; }
  Status DropJob(JobId id) override {
    JobStatus& s = status_.at(id);
    if (s.state == JobState::kRunning) HETSCHED_RETURN_IF_ERROR(StopRunning(id, JobState::kDropped));
    s.state = JobState::kDropped;
    log.push_back("drop " + std::to_string(id));
    return Status::Ok();
  }
  ArrivalsLeft arrivals = ArrivalsLeft::kUnknown;  // what the test says of jobs still to arrive

  // Test-side events (the simulator's role): a job ends, or loses its devices.
  Status Finish(JobId id) { return StopRunning(id, JobState::kFinished); }
  Status Requeue(JobId id) { return StopRunning(id, JobState::kPending); }

  static std::string DeviceList(const std::vector<DeviceId>& devices) {
    std::string s = "[";
    for (size_t i = 0; i < devices.size(); ++i) s += (i ? "," : "") + std::to_string(devices[i]);
    return s + "]";
  }

  std::vector<std::string> log;  // "start 3 on [0,1]", "preempt 2"
  // Injected faults: when not Ok, every StartJob / PreemptJob returns them and changes nothing.
  Status fail_start;
  Status fail_preempt;
  std::vector<double> wake_ups;
  std::map<JobId, double> marks;  // the last RunUntil mark by job

 private:
  Status StopRunning(JobId id, JobState next) {
    JobStatus& s = status_.at(id);
    if (s.state != JobState::kRunning) return Status::Internal("job is not running");
    HETSCHED_RETURN_IF_ERROR(state_.Release(id, s.devices));
    const double ran_s = now_ - s.last_start_s;
    s.service_gpu_s += ran_s * s.num_devices();
    s.executed_s += ran_s;
    s.iterations_done += ran_s * s.iteration_rate;
    s.devices.clear();
    s.state = next;
    if (next == JobState::kPending) s.queued_since_s = now_;
    if (next == JobState::kFinished) s.finish_s = now_;
    return Status::Ok();
  }

  ClusterState state_;
  double now_ = 0;
  std::map<JobId, std::unique_ptr<JobSpec>> specs_;
  std::map<JobId, JobStatus> status_;
};

// Everything a policy test needs: cluster, back end, fake placer/planner, a one-model zoo and the
// scheduler under test created through the registry.
class PolicyHarness {
 public:
  PolicyHarness(const std::vector<std::pair<DeviceTypeId, int>>& nodes, const std::string& policy,
                const std::vector<std::string>& options = {})
      : cluster_(nodes), backend_(cluster_.cluster()) {
    ModelProfile model;
    model.name = "toy";
    zoo_.Add(model);
    ctx_ = std::make_unique<SchedContext>(backend_, backend_.state(), placer_, planner_, zoo_);
    auto parsed = Options::Parse(options);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    auto made = Registry<JobScheduler>::Instance().Create(policy, *parsed);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    if (made.ok()) scheduler_ = std::move(made).value();
  }

  // Submits a job (the hook is called at the job's submit time; the clock moves there).
  void Submit(JobId id, int num_gpus, double submit_s, int64_t iterations, double estimated_runtime_s = 0,
              std::vector<DeviceTypeId> allowed = {}, int priority = 0) {
    JobSpec spec;
    spec.priority = priority;
    spec.id = id;
    spec.model = "toy";
    spec.num_gpus = num_gpus;
    spec.submit_time_s = submit_s;
    spec.iterations = iterations;
    spec.estimated_runtime_s = estimated_runtime_s;
    spec.allowed_types = std::move(allowed);
    backend_.set_now(std::max(backend_.now(), submit_s));
    scheduler_->OnJobSubmitted(backend_.AddJob(std::move(spec)), *ctx_);
  }
  // A job of the model "toy" named `name` (the job type a profile= table keys on), at the clock.
  void SubmitNamed(JobId id, std::string name, int num_gpus, int64_t iterations) {
    JobSpec spec;
    spec.id = id;
    spec.name = std::move(name);
    spec.model = "toy";
    spec.num_gpus = num_gpus;
    spec.submit_time_s = backend_.now();
    spec.iterations = iterations;
    scheduler_->OnJobSubmitted(backend_.AddJob(std::move(spec)), *ctx_);
  }
  void Finish(JobId id, double t) {
    backend_.set_now(t);
    ASSERT_TRUE(backend_.Finish(id).ok());
    scheduler_->OnJobFinished(backend_.job_status(id), *ctx_);
  }
  void Requeue(JobId id, double t) {
    backend_.set_now(t);
    ASSERT_TRUE(backend_.Requeue(id).ok());
    scheduler_->OnJobRequeued(backend_.job_status(id), *ctx_);
  }
  void ScheduleAt(double t) {
    backend_.set_now(t);
    scheduler_->Schedule(*ctx_);
    ASSERT_TRUE(backend_.state().CheckConsistency().ok());
  }
  // Log entries since the last call.
  std::vector<std::string> TakeLog() {
    std::vector<std::string> out;
    out.swap(backend_.log);
    return out;
  }

  // Replaces the scheduler under test (one built directly, e.g. in a training mode).
  void SetScheduler(std::unique_ptr<JobScheduler> scheduler) { scheduler_ = std::move(scheduler); }

  JobState state(JobId id) const { return backend_.job_status(id).state; }
  FakeBackend& backend() { return backend_; }
  FakePlanner& planner() { return planner_; }
  JobScheduler& scheduler() { return *scheduler_; }
  SchedContext& ctx() { return *ctx_; }

 private:
  TestCluster cluster_;
  FakeBackend backend_;
  FakePlacer placer_;
  FakePlanner planner_;
  ModelZoo zoo_;
  std::unique_ptr<SchedContext> ctx_;
  std::unique_ptr<JobScheduler> scheduler_;
};

}  // namespace hetsched::test
