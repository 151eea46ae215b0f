// `hetsched agent --slurm`: the Slurm back end as a daemon. Takes held jobs of a partition,
// applies the policy/placer/planner (by registered name, as `simulate` does), pins each job to the
// chosen nodes, releases it and follows it; writes the run's metrics in the simulator's format on
// exit (SIGINT/SIGTERM, --exit-after-jobs, --idle-exit).
#include <fmt/core.h>

#include <atomic>
#include <csignal>

#include "cli_common.h"
#include "commands.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/report/run_record_json.h"
#include "hetsched/report/writers.h"
#include "hetsched/run/sim_inputs.h"
#include "hetsched/slurm/agent.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"

namespace hetsched::cli {

namespace {

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int /*sig*/) { g_stop = true; }

struct AgentArgs {
  bool slurm = false;
  std::string slurm_conf;  // SLURM_CONF for every Slurm command (default: the environment's)
  std::string partition = "all";
  MethodArgs methods;
  std::string journal = "hetsched-out/agent/journal.jsonl";
  std::string out = "hetsched-out/agent";
  double poll_s = 0.2;
  double slurm_timeout_s = 20;  // each Slurm command is killed after this long (an outage)
  double stuck_report_s = slurm::AgentOptions{}.stuck_report_s;
  int release_batch = slurm::AgentOptions{}.release_batch;
  std::vector<std::string> type_map;  // SLURM=CATALOG
  std::string default_model = "resnet50";
  long long default_iterations = 1000;
  long long exit_after_jobs = 0;     // stop once this many jobs are finished or rejected
  double idle_exit_s = 0;            // stop after this long with no job pending or running
  unsigned long long seed = 1;
  bool print_cluster = false;
  std::string goodput_dir;    // goodput jobs' metrics and allocation files (empty: none run)
  std::string profiles;       // their applications' profiles (empty: Pollux's, built in)
  std::string profile_types;  // SUFFIX=TYPE,... (empty: t4, Pollux's)
  std::string profile_settings = "pollux";
  double goodput_interval_s = 60;  // between re-picks of a placed adaptive goodput job's batch
  double goodput_delay_s = -1;     // the re-allocation delay shown to the policy (< 0: the application's)
};

// The agent's options from the flags; a malformed --gpu-type-map item is a usage error.
Result<slurm::AgentOptions> AgentOptionsFrom(const AgentArgs& a) {
  slurm::AgentOptions options;
  options.partition = a.partition;
  options.journal_path = a.journal;
  options.poll_interval_s = a.poll_s;
  options.stuck_report_s = a.stuck_report_s;
  options.release_batch = a.release_batch;
  options.default_model = a.default_model;
  options.default_iterations = a.default_iterations;
  options.goodput_dir = a.goodput_dir;
  options.goodput_profiles = a.profiles;
  options.goodput_settings = a.profile_settings;
  options.goodput_interval_s = a.goodput_interval_s;
  options.goodput_delay_s = a.goodput_delay_s;
  if (!a.profile_types.empty()) {
    auto types = ParseProfileTypes(a.profile_types);
    if (!types.ok()) return types.status().WithContext("--profile-types");
    options.goodput_types = std::move(types).value();
  }
  for (const std::string& item : a.type_map) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      return Status::InvalidArgument("--gpu-type-map " + Quoted(item) + ": expected SLURM_TYPE=CATALOG_NAME");
    }
    options.type_map[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return options;
}

// The run's outputs, and the same workload and cluster for a simulation and `compare --real-run`.
Status WriteAgentOutputs(const std::string& out, slurm::Agent& ag) {
  const RunRecord record = ag.Record();
  const Summary summary = Summarize(record);
  HETSCHED_RETURN_IF_ERROR(WriteRunOutputs(out, record, summary));
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"run.json", RunRecordJson(record)},
           {"workload.csv", ToNativeTrace(ag.AdmittedWorkload(), ag.cluster().cluster.device_catalog())},
           {"cluster.yaml", slurm::ClusterSpecYaml(ag.cluster())}}) {
    HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(out + "/" + name, text));
  }
  return Status::Ok();
}

int RunAgent(const AgentArgs& a) {
  if (!a.slurm) return ReportUsageError(Status::InvalidArgument("agent: give a back end (--slurm)"));
  auto chosen = a.methods.ToChoice();
  if (!chosen.ok()) return ReportUsageError(chosen.status());
  const MethodChoice choice = std::move(chosen).value();
  bool usage = false;
  auto methods = CreateMethods(choice, a.seed, kMethodFlags, &usage);
  if (!methods.ok()) return ReportFailure(methods.status(), usage);

  auto made = AgentOptionsFrom(a);
  if (!made.ok()) return ReportUsageError(made.status());
  slurm::AgentOptions options = std::move(made).value();
  options.report = [](const std::string& m) { fmt::print(stderr, "hetsched agent: {}\n", m); };
  std::map<std::string, std::string> env;
  if (!a.slurm_conf.empty()) env["SLURM_CONF"] = a.slurm_conf;
  slurm::PosixCommandRunner runner(env, a.slurm_timeout_s);
  slurm::SystemClock clock;
  if (Status st = MakeDirs(a.out); !st.ok()) return ReportError(st);
  const size_t slash = a.journal.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    if (Status st = MakeDirs(a.journal.substr(0, slash)); !st.ok()) return ReportError(st);
  }
  auto agent = slurm::Agent::Start(runner, clock, ModelZoo::BuiltIn(), std::move(methods).value(), options);
  if (!agent.ok()) return ReportError(agent.status());
  slurm::Agent& ag = **agent;
  fmt::print("cluster : {} (Slurm partition '{}')\n", ag.cluster().cluster.Summary(), a.partition);
  if (!ag.cluster().skipped_nodes.empty()) {
    fmt::print("skipped : {} node(s) without GPUs\n", ag.cluster().skipped_nodes.size());
  }
  if (a.print_cluster) return kExitOk;
  fmt::print("{}journal : {}\n", DescribeMethods(choice), a.journal);
  std::fflush(stdout);
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  double idle_since = clock.NowS();
  Status run = ag.Run([&] {
    if (g_stop) return true;
    const slurm::AgentCounts c = ag.counts();
    // Counted done only as Slurm confirms: not while it is unreachable (it may list an ended job
    // again when it comes back), nor while it lists ended jobs again that the agent is cancelling.
    if (a.exit_after_jobs > 0 && c.finished + c.rejected >= a.exit_after_jobs && c.relisted == 0 &&
        ag.slurm_reachable()) {
      return true;
    }
    if (c.pending + c.released + c.running > 0) idle_since = clock.NowS();
    return a.idle_exit_s > 0 && clock.NowS() - idle_since >= a.idle_exit_s;
  });
  if (!run.ok()) return ReportError(run);
  if (Status st = WriteAgentOutputs(a.out, ag); !st.ok()) return ReportError(st);
  const slurm::AgentCounts c = ag.counts();
  fmt::print("jobs    : {} admitted, {} finished ({} not COMPLETED), {} rejected, {} requeued, {} still pending or "
             "running\n",
             c.admitted, c.finished, c.failed, c.rejected, c.requeued, c.pending + c.released + c.running);
  fmt::print("outputs : {0}/summary.json  {0}/jobs.csv  {0}/timeline.csv  {0}/run.json\n"
             "          {0}/workload.csv + {0}/cluster.yaml (simulate the same workload: hetsched compare "
             "--cluster {0}/cluster.yaml --trace {0}/workload.csv --real-run {0})\n",
             a.out);
  return kExitOk;
}

}  // namespace

void AddAgentCommand(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("agent", "Drive a real cluster: place held Slurm jobs with a policy (docs/slurm.md)");
  auto a = std::make_shared<AgentArgs>();
  cmd->add_flag("--slurm", a->slurm, "Back end: Slurm (the only one so far)");
  cmd->add_option("--slurm-conf", a->slurm_conf, "SLURM_CONF for the Slurm commands (default: the environment's)");
  cmd->add_option("--partition", a->partition, "Partition whose held jobs and nodes the agent owns");
  a->methods.Add(*cmd);
  cmd->add_option("--journal", a->journal, "Append-only journal (replayed on restart)");
  cmd->add_option("-o,--out", a->out, "Output directory (summary.json, jobs.csv, timeline.csv)");
  cmd->add_option("--poll", a->poll_s, "Seconds between two squeue polls")->check(NumberAbove(0));
  cmd->add_option("--slurm-timeout", a->slurm_timeout_s,
                  "Seconds a Slurm command may take before it is killed and counted as an outage (retried)")
      ->check(NumberAbove(0));
  cmd->add_option("--stuck-report", a->stuck_report_s,
                  "Report a released job Slurm leaves pending this many seconds on idle nodes")
      ->check(NumberAbove(0));
  cmd->add_option("--release-batch", a->release_batch,
                  "Jobs pinned at once and released by one command (default 1: lowest latency)")
      ->check(WholeAtLeast(1));
  cmd->add_option("--gpu-type-map", a->type_map, "SLURM_GRES_TYPE=CATALOG_NAME (repeatable)");
  cmd->add_option("--default-model", a->default_model, "Model of jobs whose comment names none");
  cmd->add_option("--default-iterations", a->default_iterations, "Iterations of jobs whose comment gives none")
      ->check(WholeAtLeast(1));
  cmd->add_option("--exit-after-jobs", a->exit_after_jobs, "Stop once this many jobs finished or were rejected, as Slurm confirms (not while it is unreachable or lists an ended job again)")
      ->check(WholeAtLeast(1));
  cmd->add_option("--idle-exit", a->idle_exit_s, "Stop after this many seconds with no job pending or running")
      ->check(NumberAbove(0));
  cmd->add_option("--goodput-dir", a->goodput_dir,
                  "Directory of goodput jobs' files (created if missing): each job appends its measurements to "
                  "DIR/<jobid>.metrics and reads its allocation from DIR/<jobid>.alloc (docs/slurm.md, \"Goodput "
                  "jobs\"); without it a job naming an application is rejected");
  cmd->add_option("--goodput-interval", a->goodput_interval_s,
                  "Seconds between re-picks of a placed adaptive goodput job's batch (as simulate's), besides its "
                  "epoch ends; its .alloc is rewritten when the batch changes")
      ->check(NumberAbove(0));
  cmd->add_option("--goodput-delay", a->goodput_delay_s,
                  "Seconds after a goodput job's placement that the policy sees it restoring (delay_left_s) until it "
                  "reports, as simulate's --goodput-delay (default: its application's own, else 30)")
      ->check(NumberAtLeast(0));
  cmd->add_option("--profiles", a->profiles,
                  "Goodput applications' profiles, DIR/<application>/ (as simulate's; default: Pollux's, built in)");
  cmd->add_option("--profile-types", a->profile_types,
                  "The profiles' GPU types, SUFFIX=TYPE,... (a bare TYPE names the unsuffixed files; default: t4)")
      ->check(ProfileTypes());
  cmd->add_option("--profile-settings", a->profile_settings, "Whose settings the applications get: pollux or sia")
      ->check(OneOf({"pollux", "sia"}));
  cmd->add_option("--seed", a->seed, "Seed offered to the methods")->check(SeedValue());
  cmd->add_flag("--print-cluster", a->print_cluster, "Print the translated cluster and exit");
  cmd->callback([a, action] { *action = [a] { return RunAgent(*a); }; });
}

}  // namespace hetsched::cli
