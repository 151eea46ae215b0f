// How the Slurm back end runs Slurm's client commands (sinfo, squeue, scontrol, sbatch): through
// an injected interface, so unit tests use a fake and only integration tests touch real daemons.
// Commands are argument vectors executed directly (posix_spawn, PATH lookup), never through a
// shell: job names, comments and scripts cannot be interpreted as shell syntax.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::slurm {

struct CommandResult {
  int exit_code = 0;   // the command's exit status; 128+N if killed by signal N
  std::string out;     // stdout
  std::string err;     // stderr
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs argv[0] (looked up in PATH) with argv. An error only when the command could not be run
  // at all (not found, timeout); a non-zero exit is a result, not an error.
  // REQUIRES: !argv.empty().
  virtual Result<CommandResult> Run(const std::vector<std::string>& argv) = 0;
  // Runs independent commands, possibly at the same time; one result per command, in order.
  // Default: one after the other.
  virtual std::vector<Result<CommandResult>> RunAll(const std::vector<std::vector<std::string>>& argvs);
};

// The real runner. `env` entries are added to (or override) the agent's own environment, e.g.
// {"SLURM_CONF", "/tmp/c/etc/slurm.conf"}. A command still running after `timeout_s` is killed
// (SIGKILL) and reported as an IoError. Thread-compatible (no shared state besides the options).
class PosixCommandRunner : public CommandRunner {
 public:
  explicit PosixCommandRunner(std::map<std::string, std::string> env = {}, double timeout_s = 30)
      : env_(std::move(env)), timeout_s_(timeout_s) {}
  Result<CommandResult> Run(const std::vector<std::string>& argv) override;
  // All at once (each its own process; the shared timeout counts from the first start).
  std::vector<Result<CommandResult>> RunAll(const std::vector<std::vector<std::string>>& argvs) override;

 private:
  std::map<std::string, std::string> env_;
  double timeout_s_;
};

// "scontrol update JobId=3 NodeList=a100-1" style rendering for logs and error messages (each
// argument quoted if it has spaces). Never executed.
std::string DescribeCommand(const std::vector<std::string>& argv);

}  // namespace hetsched::slurm
