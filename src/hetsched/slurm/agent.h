// The Slurm back end: drives a real Slurm cluster with the same job scheduler, placer and planner
// that the simulator drives (sched::SchedBackend). Jobs submitted held (`sbatch --hold`) to the
// agent's partition are translated (job_request.h), given to the policy, placed, pinned to the
// chosen nodes (`scontrol update JobId=.. NumNodes=k-k NodeList=..`), released, and followed to
// completion through a filtered `squeue -h -O` poll (squeue_text.h). Every action on Slurm (pin
// and release, hold, preemption) is journaled (journal.h) as an intent before it is carried out,
// and closed by a record once Slurm shows its outcome; a journal write that fails stops the agent
// (Step() returns the error) before it acts again. A restarted agent replays the journal and
// completes or rolls back each open intent from Slurm's state, so that it neither loses a job nor
// runs one twice. docs/slurm.md has the details.
//
// Single-threaded: Step() does one poll; Run() loops. All Slurm commands go through the injected
// CommandRunner, time through the injected Clock.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/metrics/run_record.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/methods.h"
#include "hetsched/slurm/clock.h"
#include "hetsched/slurm/cluster_translate.h"
#include "hetsched/slurm/command_runner.h"
#include "hetsched/slurm/goodput_files.h"
#include "hetsched/slurm/job_request.h"
#include "hetsched/slurm/journal.h"
#include "hetsched/slurm/node_book.h"
#include "hetsched/slurm/slurm_health.h"
#include "hetsched/slurm/squeue_text.h"
#include "hetsched/trace/goodput_catalog.h"
#include "hetsched/trace/trace.h"

namespace hetsched::slurm {

// A job that ended and that Slurm lists again is cancelled; `scancel` is sent again after this
// many seconds while Slurm still lists it.
inline constexpr double kRerunCancelRetryS = 5;
// A job whose pin or release Slurm refuses this many times in a row is not placed again for a
// while (10 s, doubling with each further refusal, at most 300 s), and reported once: a request
// Slurm never takes would otherwise be placed and refused at every poll.
inline constexpr int kPinRefusalsBeforeBackoff = 3;
// A job whose run slurmctld lists but no step of it runs is cancelled this long after slurmctld's
// start, if its completion has not reached slurmctld by then (Agent::RunLostBySlurm); its steps
// are looked for at most this often.
inline constexpr double kLostRunGraceS = 60;
inline constexpr double kRunProbeEveryS = 5;

struct AgentOptions {
  std::string partition = "all";  // held jobs of this partition are the agent's; its nodes are the cluster
  std::string journal_path;       // required
  double poll_interval_s = 0.2;   // between two squeue polls in Run()
  // After a poll that saw something change (a new job, a job ending, a requeue), the next poll
  // comes this soon instead: a burst of submissions is taken in quickly, a quiet queue costs
  // one squeue per poll_interval_s.
  double busy_poll_interval_s = 0.02;
  double node_refresh_s = 1.0;    // between two sinfo polls (node up/down)
  // At start, Slurm not answering (slurmctld restarting too) is waited for this long, then an error.
  double start_wait_s = 600;
  // After Slurm was unreachable, or slurmctld started, preemptions are journaled but sent only
  // this much later: a job whose script ended during the outage still shows RUNNING until
  // slurmstepd's completion message, retried every 15 s, reaches slurmctld, and requeuing it
  // then would run it again.
  double settle_after_outage_s = 20;
  // Jobs the policy starts are pinned and released in batches of at most this many (and at the
  // end of each scheduling pass): the batch's `scontrol update`s run at the same time, then one
  // `scontrol release a,b,c`. 1 (the default) = pin and release each job at once: the lowest
  // decision-to-release latency; larger batches run fewer commands per job (docs/PERFORMANCE.md).
  int release_batch = 1;
  // A released job that Slurm still leaves pending this long, while every node it is pinned to is
  // idle, is reported (once per release): Slurm's own scheduler is holding it back.
  double stuck_report_s = 120;
  std::map<std::string, std::string> type_map;  // Slurm GRES type -> catalog name
  std::string default_model = "resnet50";
  long long default_iterations = 1000;
  // Goodput jobs (docs/slurm.md, "Goodput jobs"): the directory where each job appends its
  // measurements (<jobid>.metrics) and the agent writes its allocation (<jobid>.alloc), created if
  // missing; empty: the agent runs no goodput jobs (one is rejected, saying so). The profiles of
  // their applications as `simulate --profiles/--profile-types/--profile-settings` reads them
  // (empty: the built-in copy of Pollux's).
  std::string goodput_dir;
  std::string goodput_profiles;
  std::vector<std::pair<std::string, std::string>> goodput_types = {{"", "t4"}};
  std::string goodput_settings = "pollux";
  // A placed adaptive goodput job's batch is re-picked every this many seconds of the agent's
  // clock (on a grid from its time origin), as the simulator's `--goodput-interval` does, and at
  // each epoch end its reports show; its .alloc is rewritten when the batch changes.
  double goodput_interval_s = 60;
  // The re-allocation delay shown to the policy for a placed goodput job that has not reported
  // since its placement (GoodputJobView::delay_left_s): this many seconds from its placement, as
  // the simulator charges `--goodput-delay`; < 0: its application's own, else 30 s
  // (GoodputSteps::RestartDelayS).
  double goodput_delay_s = -1;
  // Messages for the operator (rejected jobs, requeues, failures, Slurm errors). Default: none.
  std::function<void(const std::string&)> report;
};

// One job as the agent saw it: what a test or an operator checks.
struct AgentJobView {
  JobId id = 0;
  std::string phase;                  // "pending", "released", "running", "finished"
  std::vector<std::string> nodes;     // of the last placement
  std::string type;                   // catalog type of the last placement
  int placements = 0;                 // times the agent released it
  int requeues = 0;
  std::string final_state;            // Slurm's final state ("COMPLETED", "FAILED", ...) when finished
};

struct AgentCounts {
  long long admitted = 0, rejected = 0, pending = 0, released = 0, running = 0, finished = 0, failed = 0,
            requeued = 0, slurm_errors = 0;
  long long preempted = 0;       // runs the policy stopped (confirmed by Slurm), of `requeued`
  long long slurm_requeued = 0;  // runs Slurm itself requeued (a node failure, a lost completion), of `requeued`
  long long relisted = 0;        // of `finished`: listed by Slurm again (its end lost), being cancelled
};

enum class Phase;  // agent_job.h

class Agent final : public SchedBackend {
 public:
  // Reads the cluster (sinfo), opens and replays the journal, reconciles it with squeue.
  static Result<std::unique_ptr<Agent>> Start(CommandRunner& runner, Clock& clock, const ModelZoo& zoo,
                                              Methods methods, AgentOptions options);
  ~Agent() override;

  // One poll: squeue (and sinfo when due), hooks for what changed, Schedule() when needed. Slurm
  // being unreachable (slurmctld restarting) is not an error: it is reported once and retried. An
  // error (a journal write that failed, a fault inside the policy's call) ends the run: the agent
  // must be restarted, and replays its journal.
  Status Step();
  // Step() every poll interval until `stop()` returns true (checked after each step).
  Status Run(const std::function<bool()>& stop);

  const SlurmCluster& cluster() const { return cluster_; }
  AgentCounts counts() const;
  // False while Slurm does not answer the agent's polls (from the first poll that failed to the
  // next one that worked).
  bool slurm_reachable() const { return health_.reachable(); }
  std::vector<AgentJobView> Jobs() const;  // job-id order
  // The run record in the simulator's format (times re-based to the first submission).
  RunRecord Record();
  // The jobs the agent admitted as a workload (native trace: `ToNativeTrace`), times re-based like
  // Record()'s, the users' stated iterations as the truth: to simulate the same workload.
  Workload AdmittedWorkload() const;
  // Seconds from each decision (StartJob called) to Slurm accepting the release, for benchmarks.
  const std::vector<double>& release_latencies_s() const { return release_latencies_s_; }

  // SchedBackend
  double now() const override;
  const JobStatus& job_status(JobId id) const override;
  Status StartJob(JobId id, const PlannedJob& planned) override;
  Status PreemptJob(JobId id) override;
  // Space sharing is declined (kInfeasible; reported once a run): Slurm gives each GPU (gres/gpu)
  // to one job whatever the partition's OverSubscribe, which shares cores and whole nodes; two
  // jobs on one GPU need gres/shard or gres/mps on the nodes, which the agent does not request
  // (docs/space_sharing.md). The policy's job waits for devices of its own.
  Status StartSharedJob(JobId id, JobId host, const PlannedJob& planned) override;
  void RequestWakeUp(double time_s) override { wakeups_.insert(time_s); }
  // A goodput job's view: what it reported of itself so far (agent_goodput.cc); nullopt for
  // another job. Its re-allocation delay (delay_left_s): until its first report since its
  // placement, what is left of AgentOptions::goodput_delay_s counted from the placement; then 0.
  Result<std::optional<GoodputJobView>> goodput_job(JobId id, bool with_model) const override;

 private:
  struct AgentJob;
  Agent(CommandRunner& runner, Clock& clock, const ModelZoo& zoo, Methods methods, AgentOptions options,
        SlurmCluster cluster, Journal journal);

  // A restart: the journal replayed (each job's bookkeeping rebuilt record by record), then each
  // unfinished job reconciled with what squeue lists (`listed`, null when Slurm lists it no more):
  // an open placement completed or rolled back, an open preemption seen through.
  Status Restore();
  Status AdmitReplayed(const JournalRecord& r);
  // A record of a job's run (place, unplace, release, start) or of its end or stop (preempt,
  // cancel, hold, requeue, finish); false for a record of another kind.
  bool ReplayRun(AgentJob& job, const JournalRecord& r, std::set<JobId>* placed_open);
  bool ReplayStop(AgentJob& job, const JournalRecord& r);
  void ReplayRequeue(AgentJob& job, const JournalRecord& r);
  Result<std::vector<SlurmJob>> SqueueAtRestart();
  Status Reconcile(AgentJob& job, const SlurmJob* listed, bool placed_open);
  // A job found running (or released) at restart: its status set as a start in this life would
  // have, and shown to the policy (JobScheduler::OnJobRunning), which can then count and preempt it.
  void ShowRunning(AgentJob& job);
  // Journal records are written at once (a kill -9 loses none) and fsynced by SyncJournal():
  // before each pin and preemption, and once per poll. A failure of either is kept in fatal_
  // (the first one) and returned: the caller acts on Slurm only after an Ok.
  Status Append(JournalRecord record);
  Status SyncJournal();
  // Journals `record` and makes it durable: the intent before an action on Slurm.
  Status Intend(JournalRecord record);
  void FlushReleases();
  Result<CommandResult> Slurm(const std::vector<std::string>& argv);
  Result<std::vector<SlurmJob>> Squeue();
  Status RefreshNodes();
  // A poll that failed: Slurm unreachable or its answer not understood (SlurmHealth).
  void ReportPollFailure(const Status& st) {
    if (health_.PollFailed(st)) ++slurm_errors_;
  }

  // The steps of Step(): the poll (sinfo when due, squeue; nullopt when it failed, reported), each
  // listed job followed (returns the new held jobs of the partition, to admit), whether the policy
  // is to be called (a change, a wake-up, a round), and its call with what follows it.
  std::optional<std::vector<SlurmJob>> Poll();
  std::vector<SlurmJob> FollowQueue(std::vector<SlurmJob>& queue);
  bool SchedulingDue();
  void SchedulingPass();
  void AdmitNew(std::vector<SlurmJob> fresh);
  void Admit(const SlurmJob& sj);
  void SetPhase(AgentJob& job, Phase phase);
  void FillGresDetail(SlurmJob& sj);
  // `refused`: Slurm answered and refused (counted towards kPinRefusalsBeforeBackoff).
  void Unplace(AgentJob& job, JobId id, const std::string& msg, bool refused = false);
  void Follow(AgentJob& job, const SlurmJob& sj);
  // A released or running job whose Slurm restart count grew: booked as a requeue by Slurm. False
  // when the journal refused the record (the job is then left as it was until the next poll).
  bool FollowRestart(AgentJob& job, const SlurmJob& sj);
  // A released or running job that Slurm lists as pending again: taken back, or reported if stuck.
  void FollowPendingAgain(AgentJob& job, const SlurmJob& sj);
  void MarkRunning(AgentJob& job, const SlurmJob& sj);
  void Finish(AgentJob& job, const std::string& state, int exit_code, double end_epoch_s);
  // Slurm took the job's run away (`by_slurm`: a requeue of its own) or it cannot start where it was
  // placed: journaled, held, and given back to the policy.
  void Requeue(AgentJob& job, const SlurmJob& sj, const std::string& why, bool by_slurm);
  // A completed job Slurm requeued (it lost the completion): held, its new run stopped.
  void StopRerun(AgentJob& job, const SlurmJob& sj);
  // Sends `scancel` for job `id` (its cancel was journaled) and notes when in *sent_s; a failure is
  // reported, and the caller sends it again kRerunCancelRetryS later while Slurm lists the job.
  void SendCancel(JobId id, double* sent_s);
  // A cancel of a job Slurm listed again is over (Slurm shows it ended, or lists it no more).
  void EndRelisting(AgentJob& job);
  // Books the runs of `job` that requeues stopped (Slurm's restart count now `restart_count`).
  void CountRequeues(AgentJob& job, int restart_count, bool by_slurm);
  // A job the agent counts as pending: held (a preemption seen through), ended, or running or
  // released where the agent did not put it (taken back).
  void FollowPending(AgentJob& job, const SlurmJob& sj);
  // Journals the intent to stop job `id`'s run in Slurm (or keep it from starting) and sends it:
  // `scontrol hold` (a pending job never starts), then `scontrol requeuehold Incomplete` (a
  // running or configuring job is requeued held; a completing or completed one is left alone,
  // atomically inside slurmctld). The next poll shows the outcome (FollowPending).
  Status OpenPreemption(AgentJob& job, const std::string& why);
  // `running`: Slurm lists the job running (at the last poll, or as the agent saw it).
  void SendPreemption(JobId id, bool running);
  // A job Slurm lists running, whose run began before slurmctld's last start, and of which no step
  // runs (`sstat`): its run has ended and slurmctld has not heard (its completion is on the way, or
  // a slurmctld killed before it saved the end lost it, and lists the job running for good:
  // measured, docs/slurm.md). Requeued, it would run again: the preemption is not sent. For
  // kLostRunGraceS after that start the agent waits for the completion; then it journals a
  // `cancel` and sends `scancel`. True when the preemption is not to be sent.
  bool RunLostBySlurm(AgentJob& job);
  void ClosePreemption(AgentJob& job, const SlurmJob& sj);
  void Hold(JobId id);
  void ReportIfStuck(AgentJob& job, const SlurmJob& sj);
  void ReleaseDevices(AgentJob& job);
  Status HoldDevices(AgentJob& job, const std::vector<DeviceId>& devices);
  void AccountRunEnd(AgentJob& job, double end_epoch_s);
  std::vector<DeviceId> ActualDevices(const AgentJob& job, const SlurmJob& sj) const;
  void Sample();
  void Report(const std::string& message) const;

  // Goodput jobs (agent_goodput.cc). Its state from its admitted request.
  void MakeGoodputJob(AgentJob& job);
  // Before the pin of a goodput job: its placement and batch picked (GoodputSteps::Place) and
  // written to its .alloc file, so that the job reads them when it starts. An error (the file
  // cannot be written) is a fault: the job must not run on an allocation it cannot read.
  Status PlaceGoodput(AgentJob& job, JobId id, const std::vector<DeviceId>& devices);
  // Each poll: the new lines of every placed goodput job's metrics file (and, once, of a job that
  // ended since the last poll), journaled (`measure`)
  // and measured into its state; a malformed one journaled (`measure_bad`) and reported with its
  // file, line and field, after which the file is not read and its measurements not trusted. A
  // placed job whose reports reached a new epoch is marked for a re-pick (AgentJob::repick_due).
  void ReadGoodputMetrics();
  // Each poll, after ReadGoodputMetrics: the batch of each placed goodput job whose epoch ended,
  // and at each goodput interval of every placed adaptive one, re-picked as the simulator re-picks
  // it (GoodputSteps::RepickBatch, on what the job reported so far). A batch that changed is
  // journaled (`repick`, made durable) and then written to the job's .alloc with the next `seq`;
  // one that did not is not written. An error (the fit, the journal, the file) ends the run.
  Status RepickGoodputBatches();
  Status RepickGoodput(AgentJob& job, JobId id);
  // At a restart, after the reconcile: each released or running goodput job's .alloc holds the
  // allocation its journal last recorded (a `place` or `repick` whose file write the stop cut
  // short is written now, and reported). An error: it cannot be written.
  Status RestoreGoodputAllocs();
  // The journal's goodput records at a restart: a placement's batch pick, a measurement, a
  // malformed line. False for a record of another kind.
  Result<bool> ReplayGoodput(AgentJob& job, const JournalRecord& r);
  // A `place` or `repick` record's allocation (its `text`) taken as the job's current one: its
  // batch and seq. An error names `where`: the text is no allocation of the job's placement.
  Status AdoptJournaledAlloc(AgentJob& job, const JournalRecord& r, const std::string& where);
  // Measures one reported line into the job's state, on the type of its last placement.
  Status MeasureLine(AgentJob& job, const std::string& line, const std::string& where);
  // A goodput job's measured rate of progress (AgentJob::rate_mark) after a read of its reports.
  void MarkProgress(AgentJob& job);
  void DistrustMetrics(AgentJob& job);
  // GPUs per node of `devices` in node-id order (the pin's), and the nodes' names when asked.
  std::vector<int> GoodputPlacement(const std::vector<DeviceId>& devices, std::vector<std::string>* nodes = nullptr) const;
  double FirstSubmitS() const;

  CommandRunner& runner_;
  Clock& clock_;
  const ModelZoo& zoo_;
  Methods methods_;
  AgentOptions options_;
  SlurmCluster cluster_;
  Journal journal_;
  SlurmHealth health_;  // whether slurmctld answers, and whether preemptions may be sent
  ClusterState state_;
  NodeBook nodes_;      // down nodes, and GPUs Slurm counts busy beyond the agent's jobs (in state_)
  std::optional<GoodputCatalog> goodput_catalog_;  // with AgentOptions::goodput_dir
  GoodputSteps::Histories histories_;  // each application's shared measurements (MakeGoodputJob)
  SchedContext ctx_;
  double origin_s_ = 0;  // epoch seconds at the first start of this journal
  std::map<JobId, std::unique_ptr<AgentJob>> jobs_;
  std::set<JobId> rejected_;
  std::set<double> wakeups_;
  // Kept as jobs change phase, so that counts() and the timeline sample cost O(types), not O(jobs).
  long long phase_count_[4] = {0, 0, 0, 0};
  long long failed_ = 0, requeued_ = 0, preempted_ = 0, slurm_requeued_ = 0;
  Status fatal_;  // the first journal failure: the run ends with it
  bool busy_ = false;  // the last Step() saw a change
  bool journal_dirty_ = false;
  bool in_pass_ = false;  // inside the scheduler's Schedule()
  std::vector<JobId> requeue_after_pass_;  // pins that failed during the pass
  double next_round_s_ = 0;
  double goodput_tick_s_ = -1;  // the next goodput interval's re-picks (agent time; -1: none due)
  double next_node_refresh_s_ = 0;
  bool changed_ = false;
  bool refresh_nodes_now_ = false;
  bool sharing_reported_ = false;  // StartSharedJob's refusal, reported once
  long long slurm_errors_ = 0;
  long long scheduler_calls_ = 0;
  long long relisted_ = 0;  // finished jobs with rerun_cancel_s >= 0
  std::vector<double> release_latencies_s_;
  struct Unreleased {
    JobId id;
    std::chrono::steady_clock::time_point decided;
    std::vector<std::string> pin;  // the `scontrol update` that pins it
  };
  std::vector<Unreleased> unreleased_;  // pinned, not yet released (see release_batch)
  std::vector<TimelineSample> timeline_;
  std::vector<int> timeline_busy_by_type_;  // a row of present types per sample (RunRecord's layout)
};

}  // namespace hetsched::slurm
