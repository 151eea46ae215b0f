// Runs the built `hetsched` binary (HETSCHED_CLI_PATH) as a child process with posix_spawn: the
// arguments go to it as an argv array, never through a shell, and its stdout and stderr are
// captured into files, then read back.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace hetsched::cli_test {

struct CliResult {
  int exit_code = -1;  // the child's exit status; 128 + signal if it was killed; -1 if not run
  std::string out;
  std::string err;
};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteWholeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Runs `hetsched args...` (the built one, or `binary`); stdout/stderr go to `capture_prefix`.out / .err.
inline CliResult RunCli(const std::vector<std::string>& args, const std::string& capture_prefix,
                        const std::string& binary = HETSCHED_CLI_PATH) {
  CliResult result;
  const std::string out_path = capture_prefix + ".out";
  const std::string err_path = capture_prefix + ".err";
  std::vector<std::string> storage;
  storage.reserve(args.size() + 1);
  storage.push_back(binary);
  for (const std::string& a : args) storage.push_back(a);
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.err = "posix_spawn(" + binary + ") failed: " + std::strerror(rc);
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.err = std::string("waitpid failed: ") + std::strerror(errno);
      return result;
    }
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  result.out = ReadWholeFile(out_path);
  result.err = ReadWholeFile(err_path);
  return result;
}

// A fresh, empty directory under the test temp dir, unique to `name` and to this process (so
// that two builds' test runs, or ctest -j, never share one).
inline std::string FreshDir(const std::string& name) {
  std::string base = ::testing::TempDir();
  if (base.empty() || base.back() != '/') base += '/';
  const std::string dir = base + "hetsched_cli_test_" + std::to_string(::getpid()) + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace hetsched::cli_test
