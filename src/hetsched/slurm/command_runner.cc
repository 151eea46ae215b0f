#include "hetsched/slurm/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace hetsched::slurm {

namespace {

// Closes both ends of the pipes on every path out of Run().
struct Pipes {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  Pipes() = default;
  Pipes(const Pipes&) = delete;
  Pipes& operator=(const Pipes&) = delete;
  ~Pipes() {
    for (int fd : {out[0], out[1], err[0], err[1]}) {
      if (fd >= 0) close(fd);
    }
  }
};

std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    if (extra.count(key) == 0) env.push_back(std::move(entry));
  }
  for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> CPointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string DescribeCommand(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += a.find_first_of(" \t'\"") == std::string::npos ? a : "'" + a + "'";
  }
  return out;
}

std::vector<Result<CommandResult>> CommandRunner::RunAll(const std::vector<std::vector<std::string>>& argvs) {
  std::vector<Result<CommandResult>> out;
  out.reserve(argvs.size());
  for (const auto& argv : argvs) out.push_back(Run(argv));
  return out;
}

namespace {

// One started child: its pid and the read ends of its stdout and stderr.
struct Child {
  pid_t pid = -1;
  Pipes p;
  CommandResult result;
};

// Starts argv with stdin from /dev/null and stdout/stderr into pipes.
Status Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, Child& child) {
  if (argv.empty()) return Status::InvalidArgument("run: empty command");
  Pipes& p = child.p;
  if (pipe2(p.out, O_CLOEXEC) != 0 || pipe2(p.err, O_CLOEXEC) != 0) {
    return Status::IoError("run " + argv[0] + ": pipe: " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, p.out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, p.err[1], 2);
  std::vector<std::string> args = argv;
  std::vector<std::string> envs = env;
  auto c_args = CPointers(args);
  auto c_env = CPointers(envs);
  const int rc = posix_spawnp(&child.pid, c_args[0], &actions, nullptr, c_args.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    child.pid = -1;
    return Status::NotFound("run " + argv[0] + ": " + std::strerror(rc));
  }
  close(p.out[1]);
  close(p.err[1]);
  p.out[1] = p.err[1] = -1;
  return Status::Ok();
}

// Reads every child's stdout and stderr until all are closed (true) or the deadline passes (false).
bool DrainChildren(std::vector<Child>& children, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::vector<pollfd> fds;
  std::vector<std::string*> sinks;
  for (Child& c : children) {
    if (c.pid < 0) continue;
    fds.push_back({c.p.out[0], POLLIN, 0});
    sinks.push_back(&c.result.out);
    fds.push_back({c.p.err[0], POLLIN, 0});
    sinks.push_back(&c.result.err);
  }
  size_t open_fds = fds.size();
  char buf[65536];
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int n = poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  return true;
}

}  // namespace

Result<CommandResult> PosixCommandRunner::Run(const std::vector<std::string>& argv) {
  return std::move(RunAll({argv}).front());
}

std::vector<Result<CommandResult>> PosixCommandRunner::RunAll(const std::vector<std::vector<std::string>>& argvs) {
  const std::vector<std::string> env = MergedEnvironment(env_);
  std::vector<Child> children(argvs.size());
  std::vector<Status> spawned(argvs.size());
  for (size_t i = 0; i < argvs.size(); ++i) spawned[i] = Spawn(argvs[i], env, children[i]);

  const bool timed_out = !DrainChildren(children, timeout_s_);
  std::vector<Result<CommandResult>> results;
  results.reserve(argvs.size());
  for (size_t i = 0; i < argvs.size(); ++i) {
    Child& c = children[i];
    if (c.pid < 0) {
      results.push_back(spawned[i]);
      continue;
    }
    // A child that closed its output has exited or will soon; one still writing is killed.
    if (timed_out) kill(c.pid, SIGKILL);
    int status = 0;
    while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) {
      results.push_back(Status::IoError(DescribeCommand(argvs[i]) + ": still running after " +
                                        std::to_string(timeout_s_) + " s, killed"));
      continue;
    }
    c.result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    results.push_back(std::move(c.result));
  }
  return results;
}

}  // namespace hetsched::slurm
