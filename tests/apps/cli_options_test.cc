// Every option of every command is validated (issue 20): a number that is not finite, out of its
// range, or two options that conflict is a command-line error (exit 2) whose message names the
// option. The walks read the commands and their options from `--help`: a new FLOAT option is
// covered by the NaN/infinity rule without a new test line, and a new INT/UINT/FLOAT option
// without a stated range fails NumericOptionsAllStateARangeAndRefuseItsBounds. A method option
// (--policy-opt and the like) that the method does not take is refused the same way, for every
// registered method.
// GCC 12 at -O1 with ASan (the asan preset) reports a false -Wmaybe-uninitialized inside
// <regex>'s std::function (libstdc++'s _StateT); CI builds with -Werror.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "hetsched/run/simulate_request.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

using cli_test::CliResult;
using cli_test::FreshDir;
using cli_test::RunCli;
using cli_test::WriteWholeFile;

std::string Show(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

class CliOptionsTest : public ::testing::Test {
 protected:
  CliResult Run(const std::vector<std::string>& args) {
    if (dir_.empty()) dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    return RunCli(args, dir_ + "/capture" + std::to_string(runs_++));
  }
  std::string dir_;
  int runs_ = 0;
};

// The subcommands listed by `hetsched --help` (the lines under "Subcommands:").
std::vector<std::string> Commands(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream lines(help);
  std::string line;
  bool in_list = false;
  while (std::getline(lines, line)) {
    if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (in_list && line.size() > 2 && line[0] == ' ' && line[2] != ' ') {
      std::istringstream words(line);
      std::string name;
      words >> name;
      out.push_back(name);
    }
  }
  return out;
}

// The long names of a command's options whose type is FLOAT, from its `--help`.
std::vector<std::string> FloatOptions(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream lines(help);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string names, type;
    words >> names >> type;
    if (names.rfind("-", 0) != 0 || type.rfind("FLOAT", 0) != 0) continue;
    const size_t comma = names.rfind(',');
    out.push_back(comma == std::string::npos ? names : names.substr(comma + 1));
  }
  return out;
}

// A numeric option as `--help` shows it: "--max-p INT:INT in [0, 8]  ..." (our validators'
// descriptions, cli_common.h). `range` is empty when the option states none.
struct NumericOption {
  std::string name;   // the long name
  std::string type;   // INT, UINT or FLOAT
  std::string range;  // "INT >= 1", "NUMBER > 0", "NUMBER >= 0", "INT in [0, 8]", "NUMBER in (0, 1)"
};

std::vector<NumericOption> NumericOptions(const std::string& help) {
  std::vector<NumericOption> out;
  static const std::regex kLine(R"(^\s+(-\S+)\s+(INT|UINT|FLOAT)(:((INT|NUMBER) (>=|>) \S+|(INT|NUMBER) in [\[(][^\])]*[\])]))?)");
  std::istringstream lines(help);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, kLine)) continue;
    const std::string names = m[1];
    const size_t comma = names.rfind(',');
    out.push_back({comma == std::string::npos ? names : names.substr(comma + 1), m[2], m[4]});
  }
  return out;
}

// "18446744073709551615" -> "18446744073709551616": one past a bound that may not fit any integer.
std::string PlusOne(std::string digits) {
  int i = static_cast<int>(digits.size()) - 1;
  for (; i >= 0 && digits[static_cast<size_t>(i)] == '9'; --i) digits[static_cast<size_t>(i)] = '0';
  if (i < 0) return "1" + digits;
  ++digits[static_cast<size_t>(i)];
  return digits;
}

// Values just outside the stated range (each must be refused).
std::vector<std::string> OutOfRange(const std::string& range) {
  static const std::regex kBound(R"(^(INT|NUMBER) (>=|>) (\S+)$)");
  static const std::regex kInterval(R"(^(INT|NUMBER) in ([\[(])(\S+), (\S+)([\])])$)");
  std::smatch m;
  if (std::regex_match(range, m, kBound)) {
    const double min = std::stod(m[3]);
    if (m[2] == ">") return {m[3], std::to_string(min - 1)};  // the bound itself is out
    return {m[1] == "INT" ? std::to_string(static_cast<long long>(min) - 1) : std::to_string(min - 0.5)};
  }
  if (std::regex_match(range, m, kInterval)) {
    if (m[1] == "INT") {
      const std::string low = m[3];
      return {low == "0" ? "-1" : std::to_string(std::stoll(low) - 1), PlusOne(m[4]), "1.5"};
    }
    return {m[3], m[4]};  // open interval: both ends are out
  }
  return {};
}

TEST_F(CliOptionsTest, NumericOptionsAllStateARangeAndRefuseItsBounds) {
  const CliResult help = Run({"--help"});
  ASSERT_EQ(help.exit_code, 0) << Show(help);
  int walked = 0;
  for (const std::string& command : Commands(help.out)) {
    const CliResult command_help = Run({command, "--help"});
    ASSERT_EQ(command_help.exit_code, 0) << command << "\n" << Show(command_help);
    for (const NumericOption& option : NumericOptions(command_help.out)) {
      SCOPED_TRACE(command + " " + option.name + " " + option.type + " [" + option.range + "]");
      // A count, rate, time, seed or fraction with no range would take -5 or 0 silently.
      const std::vector<std::string> bad = OutOfRange(option.range);
      ASSERT_FALSE(bad.empty()) << "hetsched " << command << " " << option.name
                                << ": a numeric option without a range (give it WholeAtLeast, NumberAbove, ...)";
      for (const std::string& value : bad) {
        const CliResult r = Run({command, option.name, value});
        EXPECT_EQ(r.exit_code, 2) << value << "\n" << Show(r);
        EXPECT_NE(r.err.find(option.name), std::string::npos) << value << "\n" << Show(r);
        EXPECT_NE(r.err.find("must be"), std::string::npos) << value << "\n" << Show(r);
      }
      ++walked;
    }
  }
  EXPECT_GE(walked, 40) << "the walk found too few numeric options: has --help's layout changed?";
}

// Every registered policy, placer and planner refuses an option key it does not take, and a
// value it cannot read, as a bad command line naming the flag and the method, before any input
// is read or output written.
TEST_F(CliOptionsTest, AMethodOptionTheMethodDoesNotTakeExitsTwoNamingBoth) {
  struct Kind {
    std::string name_flag, options_flag, kind;
    std::vector<MethodInfo> methods;
  };
  const Kind kinds[] = {
      {"--policy", "--policy-opt", "policy", Registry<JobScheduler>::Instance().List()},
      {"--placer", "--placer-opt", "placer", Registry<Placer>::Instance().List()},
      {"--planner", "--planner-opt", "planner", Registry<Planner>::Instance().List()},
  };
  int walked = 0;
  for (const Kind& k : kinds) {
    for (const MethodInfo& m : k.methods) {
      const std::string where = ::testing::TempDir() + "/cli_options_method_out_" + std::to_string(walked);
      std::filesystem::remove_all(where);
      const CliResult r =
          Run({"simulate", k.name_flag, m.name, k.options_flag, "no_such_key=1", "-o", where, "-q"});
      EXPECT_EQ(r.exit_code, 2) << k.kind << " " << m.name << "\n" << Show(r);
      EXPECT_NE(r.err.find(k.options_flag), std::string::npos) << m.name << "\n" << Show(r);
      EXPECT_NE(r.err.find(k.kind + " '" + m.name + "'"), std::string::npos) << m.name << "\n" << Show(r);
      EXPECT_NE(r.err.find("no_such_key"), std::string::npos) << m.name << "\n" << Show(r);
      EXPECT_EQ(r.out, "") << m.name << ": nothing read or run before the refusal";
      EXPECT_FALSE(std::filesystem::exists(where)) << m.name;
      ++walked;
    }
  }
  EXPECT_GE(walked, 30);
}

TEST_F(CliOptionsTest, MethodNamesAndOptionValuesExitTwoNamingTheOptionAndMethod) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> says;  // each must appear in the message
  };
  const std::string journal = ::testing::TempDir() + "/cli_options_agent_journal.jsonl";
  const Case cases[] = {
      {{"simulate", "--policy", "no-such-policy"}, {"--policy", "unknown policy 'no-such-policy'"}},
      {{"simulate", "--placer", "no-such-placer"}, {"--placer", "unknown placer"}},
      {{"simulate", "--policy", "tiresias-las", "--policy-opt", "window=0"},
       {"--policy-opt", "policy 'tiresias-las'", "'window' must be >= 1"}},
      {{"simulate", "--policy", "tiresias-las", "--policy-opt", "window=abc"},
       {"--policy-opt", "policy 'tiresias-las'", "'window'", "'abc'"}},
      {{"simulate", "--policy", "tiresias-las", "--policy-opt", "thresholds=10;x"},
       {"--policy-opt", "policy 'tiresias-las'", "'thresholds'"}},
      // The factory's message does not name the method: the CLI adds it.
      {{"simulate", "--policy", "gavel-las", "--policy-opt", "round=-1"},
       {"--policy-opt", "policy 'gavel-las'", "'round' must be a positive number"}},
      {{"simulate", "--policy-opt", "window"}, {"--policy-opt", "expected key=value"}},
      {{"simulate", "--policy", "fifo", "--round", "60", "--policy-opt", "round=60"}, {"--round", "both given"}},
      {{"compare", "--policies", "fifo,tiresias-las:window=0"}, {"--policies", "policy 'tiresias-las'", "'window'"}},
      {{"compare", "--placers", "pack:bogus=1"}, {"--placers", "placer 'pack'", "bogus"}},
      {{"agent", "--slurm", "--policy", "srtf", "--policy-opt", "margin=-5", "--journal", journal},
       {"--policy-opt", "policy 'srtf'", "'margin' must be >= 0"}},
      {{"agent", "--journal", journal}, {"--slurm"}},
      {{"plan", "-m", "resnet50", "--throughput", "10", "--planner-opt", "bogus=1"},
       {"--planner-opt", "hetero planner 'dp'", "bogus"}},
      {{"plan", "-m", "resnet50", "--throughput", "10", "--planner", "no-such-planner"}, {"--planner", "unknown"}},
      {{"sweep", "--configs", "c.txt", "--slurm", "--local"}, {"--local", "excludes"}},
      {{"sweep", "--configs", "c.txt", "--local", "--timeout", "5"}, {"--timeout", "requires --slurm"}},
      {{"sweep", "--configs", "c.txt", "--task", "0", "--local"}, {"--task", "excludes"}},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const auto& a : c.args) line += " " + a;
    const CliResult r = Run(c.args);
    EXPECT_EQ(r.exit_code, 2) << "hetsched" << line << "\n" << Show(r);
    for (const std::string& says : c.says) {
      EXPECT_NE(r.err.find(says), std::string::npos) << "hetsched" << line << ": no '" << says << "'\n" << Show(r);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(journal)) << "the agent refused before opening its journal";
}

// A sweep checks every configuration as `simulate` would before running any: a bad one late in
// the file is named (file and line) and nothing runs.
TEST_F(CliOptionsTest, SweepChecksEveryConfigurationBeforeRunningAny) {
  const std::string dir = ::testing::TempDir() + "/cli_options_sweep";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string configs = dir + "/study.txt";
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {"--policy fifo --gpus v100=8 --synthetic 0", "--synthetic"},
           {"--policy tiresias-las --policy-opt window=0 --gpus v100=8 --synthetic 5", "--policy-opt"},
           {"--policy fifo --gpus v100=8 --synthetic 5 --restart-cost nan", "--restart-cost"},
           {"--policy no-such --gpus v100=8 --synthetic 5", "--policy"}}) {
    WriteWholeFile(configs, "--policy fifo --gpus v100=8 --synthetic 5\n# a comment\n" + bad + "\n");
    const CliResult r = Run({"sweep", "--configs", configs, "--local", "-o", dir + "/out"});
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << Show(r);
    EXPECT_NE(r.err.find(configs + ":3:"), std::string::npos) << bad << "\n" << Show(r);
    EXPECT_NE(r.err.find(says), std::string::npos) << bad << "\n" << Show(r);
    EXPECT_FALSE(std::filesystem::exists(dir + "/out/runs/0")) << bad << ": the first configuration ran";
  }
}

// --gpus is a command-line value: a list the parser cannot read, an unknown type or a count
// below 1 exits 2 naming the option, for every command that takes it (issue 45: it exited 1).
// The Python module's settings (run/simulate_request.h) are `hetsched simulate`'s flags: each one
// is an option of the command, and a value the library refuses the command refuses too, with the
// same words (both use run/value_checks.h).
TEST_F(CliOptionsTest, EverySimulateRequestSettingIsASimulateFlagCheckedAlike) {
  const CliResult help = Run({"simulate", "--help"});
  ASSERT_EQ(help.exit_code, 0) << Show(help);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--gpus", "v100=0"},         {"--gpus-per-server", "0"}, {"--synthetic", "-3"},   {"--arrival-rate", "0"},
      {"--max-jobs", "1.5"},        {"--on-bad-row", "maybe"},   {"--seed", "-1"},       {"--restart-cost", "-1"},
      {"--resize-rendezvous", "x"}, {"--max-time", "0"},        {"--round", "-360"}};
  for (std::string_view flag : SimulateRequestFlags()) {
    EXPECT_NE(help.out.find(std::string(flag) + " "), std::string::npos) << flag << " is not a simulate flag";
  }
  for (const auto& [flag, value] : bad) {
    SimulateRequest request;
    const Status refused = request.Set(flag, value);
    ASSERT_FALSE(refused.ok()) << flag << " " << value;
    const CliResult r = Run({"simulate", flag, value, "-q", "-o", dir_ + "/out"});
    EXPECT_EQ(r.exit_code, 2) << Show(r);
    EXPECT_NE(r.err.find(refused.message()), std::string::npos) << refused.message() << "\n" << Show(r);
  }
}

TEST_F(CliOptionsTest, ABadGpusListIsACommandLineError) {
  for (const std::string command : {"simulate", "compare"}) {
    for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
             {"v100=nan", "entry 'v100=nan': the count must be a whole number >= 0"},
             {"v100=8x", "entry 'v100=8x': the count must be a whole number >= 0"},
             {"v100=-1", "entry 'v100=-1': the count must be a whole number >= 0"},
             {"v100=0", "entry 'v100=0': the count must be >= 1"},
             {"v100", "entry 'v100': expected TYPE=COUNT"},
             {"=4", "entry '=4': no type"},
             {"v100=4,,k80=2", "entry '': no type"},
             {"tpu=4", "unknown device type 'tpu'"}}) {
      const CliResult r = Run({command, "--gpus", bad, "--synthetic", "3", "-o", ::testing::TempDir() + "/cli_gpus"});
      EXPECT_EQ(r.exit_code, 2) << command << " " << bad << "\n" << Show(r);
      EXPECT_NE(r.err.find("--gpus: " + says), std::string::npos) << command << " " << bad << "\n" << Show(r);
    }
  }
  const CliResult ok = Run({"simulate", "--gpus", " v100 = 8 , k80=4", "--synthetic", "3", "-o",
                            ::testing::TempDir() + "/cli_gpus"});
  EXPECT_EQ(ok.exit_code, 0) << Show(ok);
}

TEST_F(CliOptionsTest, NoNumberOfAnyCommandTakesNanOrInfinity) {
  const CliResult help = Run({"--help"});
  ASSERT_EQ(help.exit_code, 0) << Show(help);
  const std::vector<std::string> commands = Commands(help.out);
  ASSERT_GE(commands.size(), 8u) << help.out;
  int walked = 0;
  for (const std::string& command : commands) {
    const CliResult command_help = Run({command, "--help"});
    ASSERT_EQ(command_help.exit_code, 0) << command << "\n" << Show(command_help);
    for (const std::string& option : FloatOptions(command_help.out)) {
      for (const std::string bad : {"nan", "inf"}) {
        const CliResult r = Run({command, option, bad});
        EXPECT_EQ(r.exit_code, 2) << command << " " << option << " " << bad << "\n" << Show(r);
        EXPECT_NE(r.err.find(option), std::string::npos) << command << " " << option << "\n" << Show(r);
        EXPECT_NE(r.err.find("finite"), std::string::npos) << command << " " << option << "\n" << Show(r);
      }
      ++walked;
    }
  }
  EXPECT_GE(walked, 8) << "the walk found too few FLOAT options: has --help's layout changed?";
}

TEST_F(CliOptionsTest, RangesAndConflictsExitTwoNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string option;  // must appear in the message
    std::string says;
  };
  const Case cases[] = {
      // `--synthetic -5` used to run the demo trace and exit 0.
      {{"simulate", "--synthetic", "-5"}, "--synthetic", "whole number >= 1, got '-5'"},
      {{"simulate", "--synthetic", "0"}, "--synthetic", "whole number >= 1"},
      {{"simulate", "--synthetic", "5", "--trace", "t.csv"}, "--synthetic", "excludes"},
      {{"simulate", "--gpus", "v100=4", "--cluster", HETSCHED_SOURCE_DIR "/data/default_cluster.yaml"}, "--gpus",
       "excludes"},
      {{"simulate", "--gpus-per-server", "4"}, "--gpus-per-server", "requires --gpus"},
      {{"simulate", "--synthetic", "5", "--arrival-rate", "0"}, "--arrival-rate", "finite number > 0"},
      {{"simulate", "--arrival-rate", "10"}, "--arrival-rate", "requires --synthetic"},
      {{"simulate", "--max-jobs", "0"}, "--max-jobs", "whole number >= 1"},
      {{"simulate", "--restart-cost", "-1"}, "--restart-cost", "finite number >= 0"},
      {{"simulate", "--max-time", "0"}, "--max-time", "finite number > 0"},
      {{"compare", "--synthetic", "-1"}, "--synthetic", "whole number >= 1"},
      {{"forecast", "--trace", "t.trace", "--window", "-60"}, "--window", "finite number > 0"},
      {{"plan", "-m", "resnet50", "--throughput", "-3"}, "--throughput", "finite number > 0"},
      {{"plan", "-m", "resnet50", "--micro-batches", "0"}, "--micro-batches", "whole number >= 1"},
  };
  for (const Case& c : cases) {
    std::string line;
    for (const auto& a : c.args) line += " " + a;
    const CliResult r = Run(c.args);
    EXPECT_EQ(r.exit_code, 2) << "hetsched" << line << "\n" << Show(r);
    EXPECT_NE(r.err.find(c.option), std::string::npos) << "hetsched" << line << "\n" << Show(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "hetsched" << line << "\n" << Show(r);
  }
}

}  // namespace
}  // namespace hetsched
