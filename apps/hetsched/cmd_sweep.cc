// `hetsched sweep`: many simulation configurations, run as a Slurm job array (so a big study
// scales out over a real cluster) or one after the other here (--local), gathered into one table.
//
// The configurations file holds one configuration per line: the options of `hetsched simulate`,
// split on blanks (no quoting, no shell), e.g. `--policy sjf --gpus v100=16 --synthetic 200`;
// blank lines and `#` comments are skipped. Task i writes DIR/runs/i/{summary.json, jobs.csv,
// timeline.csv, run.json}; the gathering step reads every run.json into DIR/sweep.txt and
// DIR/sweep.csv. The Slurm job script only runs this binary with fixed arguments; the
// configurations are read by the binary itself and never reach a shell.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

#include "cli_common.h"
#include "commands.h"
#include "cli_compat.h"
#include "hetsched/compat/compat.h"
#include "hetsched/metrics/summary.h"
#include "hetsched/report/run_record_json.h"
#include "hetsched/report/writers.h"
#include "hetsched/slurm/clock.h"
#include "hetsched/slurm/command_runner.h"
#include "hetsched/slurm/slurm_json.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched::cli {

namespace {

struct SweepArgs {
  std::string configs;
  std::string out = "hetsched-out/sweep";
  bool slurm = false;
  bool local = false;
  bool quiet = false;
  std::string slurm_conf;
  std::string partition;
  long long task = -1;        // --task I: run configuration I (what each array task does)
  double timeout_s = 3600;    // --slurm: how long to wait for the array
  std::string compat;         // --compat NAME: given to every configuration that names none
};

struct SweepConfig {
  int line = 0;
  std::vector<std::string> args;
  std::string label;
};

Result<std::vector<SweepConfig>> ReadConfigs(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  std::vector<SweepConfig> out;
  LineReader lines(*text);
  std::string_view line;
  while (lines.Next(&line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    SweepConfig c;
    c.line = lines.line_number();
    for (auto word : Split(line, ' ')) {
      if (Trim(word).empty()) continue;
      c.args.emplace_back(Trim(word));
      c.label += (c.label.empty() ? "" : " ") + c.args.back();
    }
    for (const std::string& a : c.args) {
      if (a == "-o" || a == "--out") {
        return Status::InvalidArgument(path + ":" + std::to_string(c.line) +
                                       ": a configuration may not set -o/--out (sweep chooses each run's directory)");
      }
    }
    out.push_back(std::move(c));
  }
  if (out.empty()) return Status::InvalidArgument(path + ": no configuration (one per line: simulate options)");
  return out;
}

std::string RunDir(const std::string& out, size_t i) { return out + "/runs/" + std::to_string(i); }

// The options of `hetsched simulate` that run configuration `index`: its own, the sweep's --compat
// when it names none, and its output directory.
std::vector<std::string> SimulateArgsOf(const SweepArgs& a, const std::vector<SweepConfig>& configs, size_t index) {
  const SweepConfig& c = configs[index];
  std::vector<std::string> args = c.args;
  if (!a.compat.empty() && std::find(c.args.begin(), c.args.end(), "--compat") == c.args.end()) {
    args.insert(args.end(), {"--compat", a.compat});
  }
  args.insert(args.end(), {"--quiet", "-o", RunDir(a.out, index)});
  return args;
}

// Every configuration checked as `hetsched simulate` would check its command line, before any
// runs or is submitted: a bad one is a command-line error naming its file and line.
int CheckConfigs(const SweepArgs& a, const std::vector<SweepConfig>& configs) {
  for (size_t i = 0; i < configs.size(); ++i) {
    if (Status st = CheckSimulateOptions(SimulateArgsOf(a, configs, i)); !st.ok()) {
      return ReportUsageError(st.WithContext(a.configs + ":" + std::to_string(configs[i].line)));
    }
  }
  return kExitOk;
}

// Runs one configuration exactly as `hetsched simulate <args> -o <dir> --quiet` would.
int RunTask(const SweepArgs& a, const std::vector<SweepConfig>& configs, long long index) {
  if (index < 0 || static_cast<size_t>(index) >= configs.size()) {
    return ReportUsageError(Status::InvalidArgument("sweep: task " + std::to_string(index) + " out of range (0.." +
                                                    std::to_string(configs.size() - 1) + ")"));
  }
  CLI::App app{"hetsched sweep task"};
  std::function<int()> action;
  AddSimulateCommand(app, &action);
  RequireFiniteNumbers(app);
  std::vector<std::string> argv = {"hetsched", "simulate"};
  const std::vector<std::string> args = SimulateArgsOf(a, configs, static_cast<size_t>(index));
  argv.insert(argv.end(), args.begin(), args.end());
  if (Status st = ParseCommandLine(app, std::move(argv)); !st.ok()) {
    return ReportUsageError(st.WithContext(a.configs + ":" + std::to_string(configs[static_cast<size_t>(index)].line)));
  }
  return action ? action() : kExitUsage;
}

int Gather(const SweepArgs& a, const std::vector<SweepConfig>& configs) {
  std::vector<RunRecord> runs;
  std::vector<Summary> summaries;
  int missing = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    const std::string path = RunDir(a.out, i) + "/run.json";
    auto text = ReadFile(path);
    auto run = text.ok() ? ParseRunRecordJson(*text, path) : Result<RunRecord>(text.status());
    if (!run.ok()) {
      fmt::print(stderr, "hetsched sweep: configuration {} ({}:{}) has no result: {}\n", i, a.configs,
                 configs[i].line, run.status().message());
      ++missing;
      continue;
    }
    run->policy = std::to_string(i) + ": " + configs[i].label;
    summaries.push_back(Summarize(*run));
    runs.push_back(std::move(run).value());
  }
  const std::string table = ComparisonTable(runs, summaries);
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"sweep.txt", table}, {"sweep.csv", ComparisonCsv(runs, summaries)}}) {
    if (Status st = WriteFileAtomic(a.out + "/" + name, text); !st.ok()) return ReportError(st);
  }
  fmt::print("\n{0}\noutputs : {1}/sweep.txt  {1}/sweep.csv  and per configuration {1}/runs/<i>/\n", table, a.out);
  if (missing > 0) {
    return ReportError(Status::Infeasible(std::to_string(missing) + " of " + std::to_string(configs.size()) +
                                          " configuration(s) gave no result"));
  }
  return kExitOk;
}

// Writes the task script and submits the job array; its Slurm id.
Result<long long> SubmitSweepArray(const SweepArgs& a, size_t configs, slurm::CommandRunner& runner) {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  // A binary replaced (rebuilt) while running shows as "<path> (deleted)": the path is what counts.
  const std::string deleted = " (deleted)";
  if (self.size() > deleted.size() && self.compare(self.size() - deleted.size(), deleted.size(), deleted) == 0) {
    self.resize(self.size() - deleted.size());
  }
  const std::string out = std::filesystem::absolute(a.out).lexically_normal().string();
  const std::string cfg = std::filesystem::absolute(a.configs).lexically_normal().string();
  for (const std::string& p : {self, out, cfg}) {
    if (ec || p.empty() || p.find_first_of("'\n") != std::string::npos) {
      return Status::InvalidArgument("sweep --slurm: path '" + p + "' cannot go into a job script");
    }
  }
  // The script runs this binary with fixed, single-quoted arguments; nothing from the
  // configurations file is in it.
  // --compat is a registered profile's name (checked in RunSweep): letters and digits only.
  const std::string compat = a.compat.empty() ? "" : " --compat '" + a.compat + "'";
  const std::string script = "#!/bin/sh\nexec '" + self + "' sweep --configs '" + cfg + "' --out '" + out + "'" +
                             compat + " --task \"$SLURM_ARRAY_TASK_ID\"\n";
  HETSCHED_RETURN_IF_ERROR(MakeDirs(out + "/runs"));
  HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(out + "/sweep-task.sh", script));
  std::vector<std::string> sbatch = {"sbatch", "--parsable", "--array=0-" + std::to_string(configs - 1),
                                     "--job-name=hetsched-sweep", "-o", out + "/runs/task-%a.log", "-D", out};
  if (!a.partition.empty()) sbatch.push_back("--partition=" + a.partition);
  sbatch.push_back(out + "/sweep-task.sh");
  auto r = runner.Run(sbatch);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) return Status::IoError("sbatch: " + std::string(Trim(r->err)));
  return ParseInt(Trim(Split(Trim(r->out), ';')[0]), "sbatch job id");
}

// Waits until Slurm lists every task of the array ended, or --timeout passes.
Status WaitForSweepArray(const SweepArgs& a, size_t configs, slurm::CommandRunner& runner, long long array_id) {
  slurm::SystemClock clock;
  const double deadline = clock.NowS() + a.timeout_s;
  // Progress on a terminal: a task is done once its run.json is there (written atomically, last);
  // only the tasks not yet seen done are looked at again.
  const auto progress = MakeProgress(a.quiet, "sweep (Slurm array)", "tasks");
  std::vector<bool> task_done(configs, false);
  long long tasks_done = 0;
  const long long tasks = static_cast<long long>(configs);
  std::error_code ec;
  while (true) {
    if (progress) {
      for (size_t i = 0; i < configs; ++i) {
        if (!task_done[i] && std::filesystem::exists(RunDir(a.out, i) + "/run.json", ec)) {
          task_done[i] = true;
          ++tasks_done;
        }
      }
      progress(tasks_done, tasks);
    }
    auto q = runner.Run({"squeue", "--json"});
    if (q.ok() && q->exit_code == 0) {
      auto jobs = slurm::ParseSqueueJson(q->out, "squeue --json");
      if (jobs.ok()) {
        int left = 0, seen = 0;
        for (const slurm::SlurmJob& j : *jobs) {
          if (j.array_job_id != array_id && j.id != array_id) continue;
          ++seen;
          left += j.Terminal() ? 0 : 1;
        }
        if (seen > 0 && left == 0) {
          if (progress) progress(tasks, tasks);  // every task ended (one that failed writes nothing)
          break;
        }
      }
    }
    if (clock.NowS() > deadline) {
      return Status::IoError("sweep: job array " + std::to_string(array_id) + " not done after " +
                             std::to_string(a.timeout_s) + " s");
    }
    clock.SleepS(0.5);
  }
  return Status::Ok();
}

// Submits the array, waits for every task, then gathers.
int RunOnSlurm(const SweepArgs& a, const std::vector<SweepConfig>& configs) {
  std::map<std::string, std::string> env;
  if (!a.slurm_conf.empty()) env["SLURM_CONF"] = a.slurm_conf;
  slurm::PosixCommandRunner runner(env);
  auto array_id = SubmitSweepArray(a, configs.size(), runner);
  if (!array_id.ok()) return ReportError(array_id.status());
  fmt::print("sweep   : {} configuration(s) as Slurm job array {}\n", configs.size(), *array_id);
  std::fflush(stdout);
  if (Status st = WaitForSweepArray(a, configs.size(), runner, *array_id); !st.ok()) return ReportError(st);
  return Gather(a, configs);
}

int RunSweep(const SweepArgs& a) {
  if (!a.compat.empty()) {
    if (auto p = CompatProfiles::Instance().Find(a.compat); !p.ok()) {
      return ReportUsageError(p.status().WithContext("--compat"));
    }
  }
  auto configs = ReadConfigs(a.configs);
  if (!configs.ok()) return ReportError(configs.status());
  if (a.task >= 0) return RunTask(a, *configs, a.task);
  if (a.slurm == a.local) return ReportUsageError(Status::InvalidArgument("sweep: choose --slurm or --local"));
  if (int rc = CheckConfigs(a, *configs); rc != kExitOk) return rc;
  if (a.slurm) return RunOnSlurm(a, *configs);
  const auto progress = MakeProgress(a.quiet, "sweep", "configurations");
  for (size_t i = 0; i < configs->size(); ++i) {
    const int rc = RunTask(a, *configs, static_cast<long long>(i));
    if (rc != kExitOk) return rc;
    if (progress) progress(static_cast<long long>(i + 1), static_cast<long long>(configs->size()));
  }
  return Gather(a, *configs);
}

}  // namespace

void AddSweepCommand(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("sweep", "Many simulation configurations as a Slurm job array, gathered into one table");
  auto a = std::make_shared<SweepArgs>();
  cmd->add_option("--configs", a->configs, "File: one configuration per line (options of `hetsched simulate`)")
      ->required();
  cmd->add_option("-o,--out", a->out, "Output directory (runs/<i>/, sweep.txt, sweep.csv)");
  CLI::Option* slurm = cmd->add_flag("--slurm", a->slurm, "Run the configurations as a Slurm job array and wait for it");
  CLI::Option* local = cmd->add_flag("--local", a->local, "Run the configurations here, one after the other")->excludes(slurm);
  cmd->add_option("--slurm-conf", a->slurm_conf, "SLURM_CONF for sbatch/squeue (default: the environment's)")->needs(slurm);
  cmd->add_option("--partition", a->partition, "Slurm partition for the array (default: Slurm's default)")->needs(slurm);
  cmd->add_option("--timeout", a->timeout_s, "--slurm: seconds to wait for the array")->check(NumberAbove(0))->needs(slurm);
  cmd->add_option("--compat", a->compat,
                  "Compatibility profile (" + CompatNames() + ") for every configuration that names none");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress line (none either when stderr is not a terminal)");
  cmd->add_option("--task", a->task, "Run only configuration I (what each array task runs)")
      ->check(WholeAtLeast(0))
      ->excludes(slurm)
      ->excludes(local);
  cmd->callback([a, action] { *action = [a] { return RunSweep(*a); }; });
}

}  // namespace hetsched::cli
