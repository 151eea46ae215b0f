// A Slurm cluster in memory for the agent's unit tests: it answers the commands the agent runs
// (sinfo --json, the squeue poll and text fetches, scontrol update/release/hold/requeuehold/show
// job -d) like Slurm 22.05 would, on a FakeClock, without daemons. The test drives what Slurm
// would do on its own: start released jobs (StartReleased), end them (End), take a node down
// (NodeDown: its jobs are requeued), purge finished jobs (Purge).
//
// Holds, requeues and job states follow Slurm 22.05 where an agent can go wrong: `scontrol hold`
// as root is an admin hold (JobHeldAdmin; `uhold` a user hold), accepted on a running job (it
// only sets the priority to 0 and the reason, and a later requeue brings the job back held);
// `scontrol update` of a running job fails ("Invalid node name specified"); `requeuehold` of a
// job that has not started fails ("Job is pending execution"), and of a completing or completed
// job requeues it (it runs again when released), unless given `Incomplete`, which leaves every
// job that is not running alone, and holds a requeued job with the reason "job requeued in held
// state"; a job whose script ended is COMPLETING before it is COMPLETED (Completing());
// `exit_code` is a wait status (exit 3 is 768). (Measured on Slurm 22.05.8, docs/slurm.md.)
//
// It also checks what no agent may ever do, and records each breach in `violations`: pin
// (`scontrol update`) a pending job that is not held, release a job it did not pin, start a job twice
// without a requeue in between, start a job on a node whose GPUs running jobs already hold, start
// a job with more or fewer GPUs than it asked for, or let a job run to completion twice. A crash of the agent is simulated by `crash_after`: the command
// with that number throws FakeCrash instead of running, as if the agent had been killed just
// before it, or (`crash_once_done`) after Slurm carried it out but before the agent heard back.
// The journal then holds what the agent wrote; its in-memory state is lost with the object.
#pragma once

#include <algorithm>
#include <ctime>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hetsched/slurm/clock.h"
#include "hetsched/slurm/command_runner.h"
#include "hetsched/slurm/slurm_json.h"
#include "hetsched/util/text.h"

namespace hetsched::slurm::testing {

struct FakeCrash : std::runtime_error {
  FakeCrash() : std::runtime_error("agent killed (fake)") {}
};

struct FakeNode {
  std::string name, type;  // GRES type, e.g. "a100"
  int gpus = 0;
  std::string state = "idle";
  std::vector<std::string> partitions = {"all"};
  // GPUs Slurm counts in use with no job holding them: Slurm 22.05's miscount after a GRES
  // underflow (a job without a GPU type pending across a slurmctld restart, docs/slurm.md). They
  // show in sinfo's `gres_used`, and no job that needs them starts there ("Resources").
  int phantom = 0;
};

struct FakeJob {
  long long id = 0;
  std::string name, comment, partition = "all", user = "alice";
  std::string state = "PENDING", reason = "JobHeldUser";
  std::string tres_per_job, tres_per_node;
  bool never_runnable = false;      // its GPU type was changed (BadConstraints for good)
  int node_count = 1;
  std::vector<std::string> pinned;  // NodeList of the last `scontrol update`
  std::vector<int> gpus_per_node;   // with `pinned`: the GPUs on each (uneven: Slurm's fill order)
  std::vector<std::string> nodes;   // allocated while running or after
  int restart_count = 0, exit_code = 0, runs = 0, completions = 0;
  int asked_gpus = 0;               // what the user asked for in all (a pin must keep it)
  // An elastic goodput job (comment `elastic=1`, docs/slurm.md): the agent's pin may change its GPU
  // count, and it then asks for what the pin says.
  bool elastic = false;
  bool priority_zero = false;       // held (pending), or `scontrol hold` of a running job
  double submit = 0, start = 0, end = 0;
  bool released_by_agent = false;
  // Its run ended while slurmctld was down, and the restarted slurmctld lost that end: it lists the
  // job RUNNING for good, and `sstat` shows no step of it (measured on Slurm 22.05.8).
  bool ghost = false;
};

class FakeSlurm : public CommandRunner {
 public:
  explicit FakeSlurm(FakeClock& clock) : clock_(clock) {}

  // 4 nodes of 4 A100 ("a100-1".."a100-<a>") and <v> nodes of 8 V100, partition "all".
  void AddNodes(int a100, int v100) {
    for (int i = 1; i <= a100; ++i) nodes.push_back({"a100-" + std::to_string(i), "a100", 4});
    for (int i = 1; i <= v100; ++i) nodes.push_back({"v100-" + std::to_string(i), "v100", 8});
  }

  // `sbatch --hold` with `--gpus=<gpus>` (e.g. "a100:2", "4"), or with `per_node` GPUs per node
  // over `node_count` nodes (`-N k --gres=gpu:<per_node>`).
  long long Submit(const std::string& gpus, const std::string& comment = "hetsched model=resnet50 iterations=100",
                   const std::string& name = "job") {
    FakeJob j;
    j.id = next_id_++;
    j.priority_zero = true;  // sbatch --hold
    const size_t colon = gpus.rfind(':');
    j.asked_gpus = std::stoi(colon == std::string::npos ? gpus : gpus.substr(colon + 1));
    j.name = name;
    j.comment = comment;
    j.tres_per_job = "gres:gpu:" + gpus;
    j.submit = clock_.NowS();
    jobs[j.id] = j;
    return j.id;
  }
  long long SubmitPerNode(int node_count, const std::string& per_node, const std::string& comment) {
    const long long id = Submit("0", comment);
    jobs[id].tres_per_job.clear();
    jobs[id].tres_per_node = "gres:gpu:" + per_node;
    jobs[id].node_count = node_count;
    const size_t colon = per_node.rfind(':');
    jobs[id].asked_gpus = node_count * std::stoi(colon == std::string::npos ? per_node : per_node.substr(colon + 1));
    return id;
  }

  // Slurm's scheduler: every released, pending job starts on its pinned nodes. A per-job GPU
  // count over several nodes is split by Slurm, filling the nodes in order with the GPUs that
  // running jobs leave free; a job whose share does not fit waits ("Resources"), as it does while
  // a completing job still holds its GPUs.
  void StartReleased() {
    for (auto& [id, j] : jobs) {
      if (j.state != "PENDING" || j.priority_zero || j.pinned.empty()) continue;
      if (j.never_runnable) {
        j.reason = "BadConstraints";
        continue;
      }
      bool ok = true;
      for (const std::string& n : j.pinned) ok = ok && Node(n) != nullptr && Node(n)->state == "idle";
      if (!ok) {
        j.reason = "ReqNodeNotAvail";
        continue;
      }
      if (j.tres_per_node.empty() && j.pinned.size() > 1 && !SplitOverNodes(j)) {
        j.reason = "Resources";
        continue;
      }
      bool phantom_blocks = false;
      for (size_t i = 0; i < j.pinned.size(); ++i) {
        const FakeNode* node = Node(j.pinned[i]);
        phantom_blocks = phantom_blocks || (node->phantom > 0 && GpusInUse(node->name) + GpusInUse(node->name, "COMPLETING") +
                                                                      node->phantom + GpusOn(j, i) > node->gpus);
      }
      if (phantom_blocks) {  // Slurm's miscount, which the agent sees only in sinfo
        j.reason = "Resources";
        continue;
      }
      bool completing_holds = false;
      for (const std::string& n : j.pinned) completing_holds = completing_holds || GpusInUse(n, "COMPLETING") > 0;
      if (completing_holds && !FitsBeside(j, "COMPLETING")) {
        j.reason = "Resources";
        continue;
      }
      if (!strict_gpus && !FitsBeside(j, "COMPLETING")) {  // beside the running and completing jobs
        j.reason = "Resources";
        continue;
      }
      if (j.runs > j.restart_count) violations.push_back("job " + std::to_string(id) + " started twice");
      int total = 0;
      for (size_t i = 0; i < j.pinned.size(); ++i) total += GpusOn(j, i);
      if (total != j.asked_gpus) {
        violations.push_back("job " + std::to_string(id) + " started with " + std::to_string(total) + " GPUs, asked for " +
                             std::to_string(j.asked_gpus));
      }
      for (size_t i = 0; i < j.pinned.size(); ++i) {
        const std::string& n = j.pinned[i];
        if (GpusInUse(n) + GpusOn(j, i) > Node(n)->gpus) {
          violations.push_back("job " + std::to_string(id) + " started on " + n + " beyond its GPUs (double-booked)");
        }
      }
      ++j.runs;
      j.state = "RUNNING";
      j.reason = "None";
      j.nodes = j.pinned;
      j.start = clock_.NowS();
    }
  }
  void End(long long id, const std::string& state = "COMPLETED", int exit_code = 0) {
    FakeJob& j = jobs.at(id);
    j.state = state;
    j.reason = state == "COMPLETED" ? "None" : "NonZeroExitCode";
    j.exit_code = exit_code;
    j.end = clock_.NowS();
    if (state == "COMPLETED" && ++j.completions > 1) {
      violations.push_back("job " + std::to_string(id) + " ran to completion " + std::to_string(j.completions) + " times");
    }
  }
  // The job's script has ended: Slurm shows it COMPLETING (its nodes still held) until End().
  void Completing(long long id) {
    FakeJob& j = jobs.at(id);
    j.state = "COMPLETING";
    j.reason = "None";
  }
  // Slurm (not the agent) requeues a running job: a node that failed, a completion slurmctld lost.
  void RequeueBySlurm(long long id) {
    FakeJob& j = jobs.at(id);
    j.state = "PENDING";
    j.reason = j.priority_zero ? "JobHeldAdmin" : "BeginTime";
    ++j.restart_count;
    j.nodes.clear();
  }
  void EndAllRunning() {
    for (auto& [id, j] : jobs) {
      if (j.state == "RUNNING") End(id);
    }
  }
  // The node goes down; Slurm requeues its running jobs (pending again, not held, restart +1).
  void NodeDown(const std::string& name) {
    Node(name)->state = "down";
    for (auto& [id, j] : jobs) {
      if (j.state != "RUNNING" || std::find(j.nodes.begin(), j.nodes.end(), name) == j.nodes.end()) continue;
      RequeueBySlurm(id);
    }
  }
  void Purge(long long id) { jobs.erase(id); }
  // Another user's job, not held, running `gpus` GPUs of `node` (the agent leaves it alone).
  long long RunForeign(const std::string& node, int gpus) {
    FakeJob j;
    j.id = next_id_++;
    j.user = "bob";
    j.state = "RUNNING";
    j.reason = "None";
    j.tres_per_node = "gres:gpu:" + std::to_string(gpus);
    j.asked_gpus = gpus;
    j.pinned = j.nodes = {node};
    j.runs = 1;
    j.submit = j.start = clock_.NowS();
    jobs[j.id] = j;
    return j.id;
  }

  Result<CommandResult> Run(const std::vector<std::string>& argv) override {
    ++commands_run;
    const bool crash = crash_after > 0 && commands_run >= crash_after;
    if (crash) crash_after = 0;
    if (crash && !crash_once_done) throw FakeCrash();
    auto result = Execute(argv);
    if (crash) throw FakeCrash();
    return result;
  }

  Result<CommandResult> Execute(const std::vector<std::string>& argv) {
    if (before_command) before_command(argv);  // what Slurm does on its own just before this command
    log.push_back(argv);
    if (unreachable > 0) {
      --unreachable;
      return CommandResult{1, "", std::string(argv[0]) + ": error: Unable to contact slurm controller"};
    }
    if (argv[0] == "sinfo") return CommandResult{0, SinfoJson(), ""};
    if (argv[0] == "squeue") return Squeue(argv);
    if (argv[0] == "sstat") {  // sstat --noheader --allsteps --jobs ID --format JobID: its running steps
      auto it = jobs.find(std::stoll(argv[4]));
      const bool steps = it != jobs.end() && it->second.state == "RUNNING" && !it->second.ghost;
      return CommandResult{0, steps ? argv[4] + ".batch\n" : "", ""};
    }
    if (argv[0] == "scontrol" && argv.size() >= 2) return Scontrol(argv);
    if (argv[0] == "scancel" && argv.size() == 2) {
      if (scancel_unreachable > 0 && scancel_unreachable-- > 0) {
        return CommandResult{1, "", "scancel: error: Unable to contact slurm controller"};
      }
      return Scancel(std::stoll(argv[1]));
    }
    return Status::NotFound("fake slurm: no command " + argv[0]);
  }

  // How many times the agent ran `scontrol <verb>` naming job `id` (alone or in a list).
  int Count(const std::string& verb, long long id) const {
    int n = 0;
    for (const auto& argv : log) {
      if (argv.size() < 3 || argv[0] != "scontrol" || argv[1] != verb) continue;
      const std::string want = std::to_string(id);
      if (verb == "update") {
        n += argv[2] == "JobId=" + want ? 1 : 0;
      } else {
        for (auto part : Split(argv.back(), ',')) n += part == want ? 1 : 0;  // after `Incomplete`, if any
      }
    }
    return n;
  }

  std::vector<FakeNode> nodes;
  std::map<long long, FakeJob> jobs;
  std::vector<std::vector<std::string>> log;  // every command run, in order
  std::vector<std::string> violations;
  long long commands_run = 0;
  long long crash_after = 0;  // > 0: the command with this number throws FakeCrash
  bool crash_once_done = false;  // ... after it took effect
  int unreachable = 0;        // the next N commands fail as when slurmctld is down
  int bad_time_polls = 0;     // the next N squeue polls print a StartTime no parser accepts
  std::set<long long> refuse_update;  // `scontrol update` of these jobs fails
  std::function<void(const std::vector<std::string>&)> before_command;
  int scancel_unreachable = 0;  // the next N scancel commands fail as if slurmctld were down
  double boot_time = 1.7e9;  // slurmctld's start (`scontrol show config`)
  // A released job pinned where running jobs hold the GPUs is a breach (the agent's view of its
  // jobs' GPUs was wrong). Off: it waits ("Resources"), as in Slurm, for runs where the agent's
  // view may lag behind Slurm's by design (an uneven split Slurm made otherwise, docs/slurm.md).
  bool strict_gpus = true;

 private:
  FakeNode* Node(const std::string& name) {
    for (auto& n : nodes) {
      if (n.name == name) return &n;
    }
    return nullptr;
  }

  // GPUs a job takes on each of its nodes: its per-node request (what the agent pins), else its
  // per-job count spread evenly.
  static int GpusPerNode(const FakeJob& j) {
    const std::string& tres = j.tres_per_node.empty() ? j.tres_per_job : j.tres_per_node;
    const size_t colon = tres.rfind(':');
    const int n = colon == std::string::npos ? 0 : std::stoi(tres.substr(colon + 1));
    if (!j.tres_per_node.empty()) return n;
    const size_t nodes = j.pinned.empty() ? 1 : j.pinned.size();
    return static_cast<int>((static_cast<size_t>(n) + nodes - 1) / nodes);
  }
  // GPUs job `j` takes on the i-th node of its node list.
  static int GpusOn(const FakeJob& j, size_t i) {
    return i < j.gpus_per_node.size() ? j.gpus_per_node[i] : GpusPerNode(j);
  }
  // GPUs that jobs in `state` hold on `node`.
  int GpusInUse(const std::string& node, const std::string& state = "RUNNING") const {
    int used = 0;
    for (const auto& [id, j] : jobs) {
      auto at = std::find(j.nodes.begin(), j.nodes.end(), node);
      if (j.state == state && at != j.nodes.end()) used += GpusOn(j, static_cast<size_t>(at - j.nodes.begin()));
    }
    return used;
  }
  // Whether `j` fits on its pinned nodes beside the running jobs and those in `state`.
  bool FitsBeside(const FakeJob& j, const std::string& state) const {
    for (size_t i = 0; i < j.pinned.size(); ++i) {
      const std::string& n = j.pinned[i];
      if (GpusInUse(n) + GpusInUse(n, state) + GpusOn(j, i) > NodeGpus(n)) return false;
    }
    return true;
  }
  int NodeGpus(const std::string& name) const {
    for (const auto& n : nodes) {
      if (n.name == name) return n.gpus;
    }
    return 0;
  }
  // Slurm's split of a per-job count over the pinned nodes (in order, at least one GPU each).
  bool SplitOverNodes(FakeJob& j) {
    const size_t colon = j.tres_per_job.rfind(':');
    int left = colon == std::string::npos ? 0 : std::stoi(j.tres_per_job.substr(colon + 1));
    std::vector<int> split;
    for (size_t i = 0; i < j.pinned.size(); ++i) {
      const int free = NodeGpus(j.pinned[i]) - GpusInUse(j.pinned[i]) - GpusInUse(j.pinned[i], "COMPLETING");
      const int later = static_cast<int>(j.pinned.size() - i - 1);  // one at least for each later node
      const int take = std::min(free, left - later);
      if (take < 1) return false;
      split.push_back(take);
      left -= take;
    }
    if (left != 0) return false;
    j.gpus_per_node = split;
    return true;
  }

  std::string SinfoJson() const {
    std::string out = "{\"errors\": [], \"nodes\": [";
    for (size_t i = 0; i < nodes.size(); ++i) {
      const FakeNode& n = nodes[i];
      out += std::string(i ? "," : "") + "{\"name\": \"" + n.name + "\", \"state\": \"" + State(n) +
             "\", \"state_flags\": [], \"gres\": \"gpu:" + n.type + ":" + std::to_string(n.gpus) +
             "\", \"gres_used\": \"" + GresUsed(n) +
             "\", \"active_features\": \"" + n.type + "\", \"partitions\": [";
      for (size_t k = 0; k < n.partitions.size(); ++k) out += std::string(k ? "," : "") + "\"" + n.partitions[k] + "\"";
      out += "], \"cpus\": 32, \"real_memory\": 256000, \"reason\": \"\"}";
    }
    return out + "]}";
  }

  // sinfo's node state: "down" as set, else "idle" with no job on it (whatever Slurm's miscount),
  // "allocated" when jobs hold all its GPUs, "mixed" when some.
  std::string State(const FakeNode& n) const {
    if (n.state != "idle") return n.state;
    const int held = GpusInUse(n.name) + GpusInUse(n.name, "COMPLETING");
    return held == 0 ? "idle" : held >= n.gpus ? "allocated" : "mixed";
  }
  // sinfo's `gres_used`: what jobs hold and the miscount, with Slurm's index list.
  std::string GresUsed(const FakeNode& n) const {
    const int used = std::min(n.gpus, GpusInUse(n.name) + GpusInUse(n.name, "COMPLETING") + n.phantom);
    if (used == 0) return "gpu:" + n.type + ":0(IDX:N/A)";
    return "gpu:" + n.type + ":" + std::to_string(used) + "(IDX:0" + (used > 2 ? ",2-" + std::to_string(used) : "-" + std::to_string(used - 1)) + ")";
  }

  static std::string Time(double epoch_s) {
    if (epoch_s <= 0) return "N/A";
    const std::time_t t = static_cast<std::time_t>(epoch_s);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
  }

  static std::string Hostlist(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
  }

  // "gres:gpu:v100:4" -> "v100"; "gres:gpu:4", "" -> "".
  static std::string GpuType(const std::string& tres) {
    const auto parts = Split(tres, ':');
    return parts.size() == 4 ? std::string(parts[2]) : "";
  }

  static std::string Or(const std::string& v, const char* none) { return v.empty() ? none : v; }

  Result<CommandResult> Squeue(const std::vector<std::string>& argv) {
    std::string format, partition, ids;
    for (size_t i = 1; i + 1 < argv.size(); ++i) {
      if (argv[i] == "-O") format = argv[i + 1];
      if (argv[i] == "-p") partition = argv[i + 1];
      if (argv[i] == "-j") ids = argv[i + 1];
    }
    std::set<long long> wanted;
    for (auto part : Split(ids, ',')) {
      if (!part.empty()) wanted.insert(std::stoll(std::string(part)));
    }
    for (long long id : wanted) {
      if (jobs.count(id) == 0) return CommandResult{1, "", "slurm_load_jobs error: Invalid job id specified"};
    }
    std::string out;
    for (const auto& [id, j] : jobs) {
      if (!wanted.empty() && wanted.count(id) == 0) continue;
      if (!partition.empty() && j.partition != partition) continue;
      const std::string_view fmt = format;
      for (auto field : Split(fmt, ',')) {
        const std::string_view name = field.substr(0, field.find(':'));
        const std::string_view suffix = field.find(":|") != std::string_view::npos ? "|" : "";
        std::string v;
        if (name == "JobID") v = std::to_string(id);
        else if (name == "ArrayJobID") v = std::to_string(id);
        else if (name == "ArrayTaskID") v = "N/A";
        else if (name == "State") v = j.state;
        else if (name == "Reason") v = j.reason;
        else if (name == "Partition") v = j.partition;
        else if (name == "UserName") v = j.user;
        else if (name == "NumNodes") v = std::to_string(j.nodes.empty() ? j.node_count : static_cast<int>(j.nodes.size()));
        else if (name == "tres-per-job") v = Or(j.tres_per_job, "N/A");
        else if (name == "tres-per-node") v = Or(j.tres_per_node, "N/A");
        else if (name == "RestartCnt") v = std::to_string(j.restart_count);
        else if (name == "exit_code") v = std::to_string(j.exit_code);
        else if (name == "SubmitTime") v = Time(j.submit);
        else if (name == "StartTime") v = bad_time_polls > 0 ? "yesterday" : Time(j.start);
        else if (name == "EndTime") v = Time(j.end);
        else if (name == "PriorityLong") v = j.state == "PENDING" && j.priority_zero ? "0" : "1000";
        else if (name == "NodeList") v = Hostlist(j.nodes);
        else if (name == "Comment") v = Or(j.comment, "(null)");
        else if (name == "Name") v = j.name;
        else return Status::InvalidArgument("fake squeue: unknown field " + std::string(name));
        out += v + std::string(suffix);
      }
      out += "\n";
    }
    if (bad_time_polls > 0 && format.find("StartTime") != std::string::npos) --bad_time_polls;
    return CommandResult{0, out, ""};
  }

  // As Slurm 22.05: a pending (held or not) or running job ends CANCELLED (a run stopped so is
  // not a completion); an ended or completing one is refused.
  Result<CommandResult> Scancel(long long id) {
    auto it = jobs.find(id);
    if (it == jobs.end()) return CommandResult{1, "", "scancel: error: Invalid job id " + std::to_string(id)};
    FakeJob& j = it->second;
    if (j.state != "PENDING" && j.state != "RUNNING" && j.state != "CONFIGURING") {
      return CommandResult{1, "", "scancel: error: Kill job error on job id " + std::to_string(id) +
                                      ": Job/step already completing or completed"};
    }
    j.state = "CANCELLED";
    j.reason = "None";
    j.end = clock_.NowS();
    return CommandResult{0, "", ""};
  }

  Result<CommandResult> Scontrol(const std::vector<std::string>& argv) {
    const std::string& verb = argv[1];
    if (verb == "update") {
      std::map<std::string, std::string> kv;
      for (size_t i = 2; i < argv.size(); ++i) {
        const size_t eq = argv[i].find('=');
        kv[argv[i].substr(0, eq)] = eq == std::string::npos ? "" : argv[i].substr(eq + 1);
      }
      const long long id = std::stoll(kv["JobId"]);
      auto it = jobs.find(id);
      if (it == jobs.end()) return CommandResult{1, "", "Invalid job id specified"};
      FakeJob& j = it->second;
      // Slurm refuses to move a job that runs (a race the agent cannot see: a job Slurm started
      // again just before the agent's hold); pinning a pending job that is not held is a breach.
      if (j.state != "PENDING") return CommandResult{1, "", "Invalid node name specified for job " + kv["JobId"]};
      if (!j.priority_zero) {
        violations.push_back("job " + std::to_string(id) + " pinned while " + j.state + "/" + j.reason);
      }
      if (refuse_update.count(id) > 0) return CommandResult{1, "", "Requested node configuration is not available"};
      j.pinned.clear();
      j.gpus_per_node.clear();  // Slurm splits a per-job count again when it starts the job
      for (auto part : Split(kv["NodeList"], ',')) j.pinned.emplace_back(part);
      // Slurm 22.05 keeps a job's GPU type once a request named one (measured, docs/slurm.md): a
      // request without a type is then refused, one naming another type accepted but never
      // runnable.
      const std::string type_before = GpuType(j.tres_per_node.empty() ? j.tres_per_job : j.tres_per_node);
      const std::string& tres_after = kv.count("TresPerNode") > 0 && !kv["TresPerNode"].empty() ? kv["TresPerNode"]
                                                                                                : kv["TresPerJob"];
      const std::string type_after = GpuType(tres_after);
      if (!type_before.empty() && !tres_after.empty() && type_after.empty()) {
        return CommandResult{1, "", "Invalid GRES specification (with and without type identification) for job " +
                                        kv["JobId"]};
      }
      if (!type_before.empty() && !type_after.empty() && type_after != type_before) j.never_runnable = true;
      if (kv.count("TresPerNode") > 0) j.tres_per_node = kv["TresPerNode"];
      if (kv.count("TresPerJob") > 0) j.tres_per_job = kv["TresPerJob"];
      if (j.elastic) {
        const std::string& tres = j.tres_per_node.empty() ? j.tres_per_job : j.tres_per_node;
        const int count = std::stoi(tres.substr(tres.rfind(':') + 1));
        j.asked_gpus = j.tres_per_node.empty() ? count : count * static_cast<int>(j.pinned.size());
      }
      return CommandResult{0, "", ""};
    }
    if (verb == "release" || verb == "hold" || verb == "uhold" || verb == "requeuehold") {
      const bool incomplete = verb == "requeuehold" && argv.size() > 3 && argv[2] == "Incomplete";
      for (auto part : Split(argv[incomplete ? 3 : 2], ',')) {
        const long long id = std::stoll(std::string(part));
        auto it = jobs.find(id);
        if (it == jobs.end()) return CommandResult{1, "", "Invalid job id specified"};
        FakeJob& j = it->second;
        const bool ended = j.state != "PENDING" && j.state != "RUNNING" && j.state != "CONFIGURING";
        if (verb == "release") {
          if (j.pinned.empty()) violations.push_back("job " + std::to_string(id) + " released without a placement");
          if (j.state == "PENDING") {
            j.reason = "None";
            j.priority_zero = false;
          }
        } else if (verb == "hold" || verb == "uhold") {
          if (ended) return CommandResult{1, "", "Job has already finished for job " + std::to_string(id)};
          j.priority_zero = true;  // on a running job: no other effect until it is requeued
          j.reason = verb == "hold" ? "JobHeldAdmin" : "JobHeldUser";
        } else if (incomplete && j.state != "RUNNING" && j.state != "CONFIGURING") {
          // Only jobs that are running are requeued; the others are left alone, and it succeeds.
        } else if (j.state == "PENDING") {
          return CommandResult{1, "", "Requeue of JobId=" + std::to_string(id) + " returned an error: Job is pending execution"};
        } else {
          // Running, or (without Incomplete) completing or completed: requeued and held.
          if (j.ghost) violations.push_back("job " + std::to_string(id) + " requeued though its run had ended (it runs again)");
          j.ghost = false;
          j.state = "PENDING";
          j.reason = "job requeued in held state";
          j.priority_zero = true;
          ++j.restart_count;
          j.nodes.clear();
        }
      }
      return CommandResult{0, "", ""};
    }
    if (verb == "show" && argv.size() == 3 && argv[2] == "config") {
      return CommandResult{0, "Configuration data as of " + Time(clock_.NowS()) + "\nAccountingStorageType   = (null)\n" +
                                  "BOOT_TIME               = " + Time(boot_time) + "\nClusterName             = fake\n", ""};
    }
    if (verb == "show" && argv.size() >= 5 && argv[2] == "job" && argv[3] == "-d") {
      const FakeJob& j = jobs.at(std::stoll(argv[4]));
      std::string out = "JobId=" + argv[4] + " JobName=" + j.name + "\n   NodeList=" + Hostlist(j.nodes) + "\n";
      for (size_t i = 0; i < j.nodes.size(); ++i) {
        const int n = i < j.gpus_per_node.size() ? j.gpus_per_node[i] : 1;
        out += "     Nodes=" + j.nodes[i] + " CPU_IDs=0 Mem=0 GRES=gpu:" + Node(j.nodes[i])->type + ":" +
               std::to_string(n) + "(IDX:0-" + std::to_string(n - 1) + ")\n";
      }
      return CommandResult{0, out, ""};
    }
    return Status::NotFound("fake scontrol: " + verb);
  }

  FakeClock& clock_;
  long long next_id_ = 1;
};

}  // namespace hetsched::slurm::testing
