#include "hetsched/slurm/squeue_text.h"

#include <gtest/gtest.h>

#include <ctime>

namespace hetsched::slurm {
namespace {

// Lines as Slurm 22.05's `squeue -h -t all -O <SqueuePollCommand's fields>` printed them on the
// local test cluster (a held typed job, a running two-node job, an array task, a failed job).
constexpr const char* kPoll =
    "1|1|N/A|PENDING|JobHeldUser|all|root|1|gres:gpu:a100:2|N/A|0|0|2026-11-23T08:59:13|N/A|N/A|0||\n"
    "2|2|N/A|RUNNING|None|all|root|2|N/A|gres:gpu:v100:2|0|0|2026-11-23T08:59:13|2026-11-23T08:59:14|"
    "2027-11-23T08:59:13|4294901759|v100-[1-2]|\n"
    "9|7|1|COMPLETED|None|v100|root|1|gres:gpu:1|N/A|0|0|2026-11-23T09:00:01|2026-11-23T09:00:02|"
    "2026-11-23T09:00:03|0|v100-1|\n"
    "3|3|N/A|FAILED|NonZeroExitCode|all|root|1|N/A|gres:gpu:1|1|768|N/A|N/A|N/A|0|a100-1|\n";

double Local(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  tm.tm_isdst = -1;
  return static_cast<double>(std::mktime(&tm));
}

TEST(SqueueTextTest, PollCommandFiltersThePartitionAndEndsEveryFieldWithABar) {
  const auto argv = SqueuePollCommand("gpu");
  ASSERT_GE(argv.size(), 6u);
  EXPECT_EQ(argv[0], "squeue");
  EXPECT_EQ(argv[argv.size() - 2], "-p");
  EXPECT_EQ(argv.back(), "gpu");
  const std::string& format = argv[5];
  EXPECT_EQ(format.substr(0, 8), "JobID:|,");
  EXPECT_EQ(format.substr(format.size() - 10), "NodeList:|");
  EXPECT_EQ(format.find("Comment"), std::string::npos);  // free text is never in the poll
  EXPECT_EQ(format.find(",Name:"), std::string::npos);
  EXPECT_EQ(SqueuePollCommand("").back(), format);  // no -p: every partition
}

TEST(SqueueTextTest, ParsesThePollLineByLine) {
  auto jobs = ParseSqueuePoll(kPoll, "squeue");
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 4u);
  const SlurmJob& held = (*jobs)[0];
  EXPECT_EQ(held.id, 1);
  EXPECT_EQ(held.array_job_id, 0);  // not an array task
  EXPECT_TRUE(held.HeldByUser());
  EXPECT_EQ(held.tres_per_job, "gres:gpu:a100:2");
  EXPECT_EQ(held.tres_per_node, "");
  EXPECT_EQ(held.node_count, 1);
  EXPECT_TRUE(held.nodes.empty());
  EXPECT_EQ(held.submit_time_s, Local(2026, 11, 23, 8, 59, 13));
  EXPECT_EQ(held.start_time_s, 0);
  const SlurmJob& running = (*jobs)[1];
  EXPECT_TRUE(running.Active());
  EXPECT_EQ(running.nodes, (std::vector<std::string>{"v100-1", "v100-2"}));
  EXPECT_EQ(running.start_time_s - running.submit_time_s, 1);
  EXPECT_EQ(running.priority, 4294901759LL);
  EXPECT_EQ((*jobs)[2].array_job_id, 7);
  const SlurmJob& failed = (*jobs)[3];
  EXPECT_TRUE(failed.Terminal());
  EXPECT_EQ(failed.exit_code, 768);  // a wait status: exit 3
  EXPECT_EQ(failed.restart_count, 1);
  EXPECT_EQ(failed.end_time_s, 0);
  EXPECT_TRUE(ParseSqueuePoll("", "squeue")->empty());
}

TEST(SqueueTextTest, BadPollLinesNameTheLineAndTheField) {
  auto short_line = ParseSqueuePoll("1|1|N/A|PENDING|\n", "squeue");
  ASSERT_FALSE(short_line.ok());
  EXPECT_NE(short_line.status().message().find("squeue: line 1: expected 17 fields"), std::string::npos);
  std::string bad_time = kPoll;
  bad_time.replace(bad_time.find("2026-11-23T08:59:13"), 19, "yesterday at noon  ");
  auto t = ParseSqueuePoll(bad_time, "squeue");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("line 1, field 'SubmitTime'"), std::string::npos) << t.status().message();
  auto id = ParseSqueuePoll("x|1|N/A|PENDING|JobHeldUser|all|root|1|N/A|N/A|0|0|N/A|N/A|N/A|0||\n", "squeue");
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.status().message().find("field 'JobID'"), std::string::npos);
}

TEST(SqueueTextTest, TextFieldsAreTakenWholeAndAmbiguityIsRefused) {
  auto ok = ParseSqueueText("4|hetsched model=bert | x|y\n5|(null)\n", {4, 5});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->at(4), "hetsched model=bert | x|y");
  EXPECT_EQ(ok->at(5), "");
  // A comment with a newline makes a line that is no job of the request, or a job twice.
  EXPECT_FALSE(ParseSqueueText("4|line1\nline2\n5|x\n", {4, 5}).ok());
  EXPECT_FALSE(ParseSqueueText("4|a\n5|b\n5|forged\n", {4, 5}).ok());
  EXPECT_FALSE(ParseSqueueText("4|a\n6|b\n", {4, 5}).ok());
}

// Answers the batched fetch with a comment broken over two lines, then each job alone.
class TextRunner : public CommandRunner {
 public:
  Result<CommandResult> Run(const std::vector<std::string>& argv) override {
    calls.push_back(argv);
    if (argv[5] == "4,5") return CommandResult{0, "4|first line\nsecond|line\n5|plain\n", ""};
    if (argv[5] == "4") return CommandResult{0, "first line\nsecond|line\n", ""};
    if (argv[5] == "5") return CommandResult{0, "plain\n", ""};
    return CommandResult{1, "", "slurm_load_jobs error: Invalid job id specified"};
  }
  std::vector<std::vector<std::string>> calls;
};

TEST(SqueueTextTest, FetchFallsBackToOneJobAtATimeWhenTheBatchIsAmbiguous) {
  TextRunner runner;
  auto texts = FetchTextField(runner, {4, 5, 6}, "Comment");
  ASSERT_TRUE(texts.ok());
  EXPECT_EQ(texts->at(4), "first line\nsecond|line");
  EXPECT_EQ(texts->at(5), "plain");
  EXPECT_EQ(texts->count(6), 0u);  // gone: left out
  ASSERT_EQ(runner.calls.size(), 4u);
  EXPECT_EQ(runner.calls[0].back(), "JobID:|,Comment:0");
  EXPECT_EQ(runner.calls[1].back(), "Comment:0");
}

TEST(SqueueTextTest, ScontrolDetailGivesEachNodesGpus) {
  const char* text =
      "JobId=8 JobName=job.sh\n"
      "   NodeList=a100-[1-2]\n"
      "     Nodes=a100-1 CPU_IDs=0 Mem=0 GRES=gpu:a100:4(IDX:0-3)\n"
      "     Nodes=a100-2 CPU_IDs=0 Mem=0 GRES=gpu:a100:2(IDX:0-1)\n"
      "     Nodes=v100-[1-2] CPU_IDs=0-1 Mem=0 GRES=gpu:v100:1(IDX:5)\n";
  auto d = ParseScontrolGresDetail(text, "scontrol");
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->size(), 4u);
  EXPECT_EQ(d->at("a100-1"), "gpu:a100:4(IDX:0-3)");
  EXPECT_EQ(d->at("a100-2"), "gpu:a100:2(IDX:0-1)");
  EXPECT_EQ(d->at("v100-2"), "gpu:v100:1(IDX:5)");
  EXPECT_FALSE(ParseScontrolGresDetail("     Nodes=a100-[1 CPU_IDs=0 GRES=gpu:1(IDX:0)\n", "x").ok());
}

TEST(SqueueTextTest, SlurmTimes) {
  EXPECT_EQ(*ParseSlurmTime("N/A", "t"), 0);
  EXPECT_EQ(*ParseSlurmTime("Unknown", "t"), 0);
  EXPECT_EQ(*ParseSlurmTime("NONE", "t"), 0);  // 22.05's end time of a job cancelled while pending
  EXPECT_EQ(*ParseSlurmTime("2026-01-02T03:04:05", "t"), Local(2026, 1, 2, 3, 4, 5));
  EXPECT_FALSE(ParseSlurmTime("2026-01-02", "t").ok());
  EXPECT_FALSE(ParseSlurmTime("2026-01-02T03:04:05x", "t").ok());
}

// Issue 20: a count that does not fit an int is an error, not a wrapped value.
TEST(SqueueTextTest, CountsOutOfRangeAreErrors) {
  auto nodes = ParseSqueuePoll("1|1|N/A|PENDING|JobHeldUser|all|root|99999999999|N/A|N/A|0|0|N/A|N/A|N/A|0||\n", "squeue");
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("field 'NumNodes': 99999999999 is outside [0, 10000000]"), std::string::npos)
      << nodes.status().message();
  auto restarts = ParseSqueuePoll("1|1|N/A|PENDING|JobHeldUser|all|root|1|N/A|N/A|-1|0|N/A|N/A|N/A|0||\n", "squeue");
  EXPECT_FALSE(restarts.ok());
}
TEST(ScontrolShowConfigTest, BootTimeIsSlurmctldsStart) {
  const std::string text = "Configuration data as of 2026-12-02T02:14:24\nAccountingStorageType   = (null)\n"
                           "BOOT_TIME               = 2026-12-02T02:14:09\nClusterName             = x\n";
  auto boot = ParseBootTime(text, "scontrol show config");
  ASSERT_TRUE(boot.ok()) << boot.status().message();
  auto expected = ParseSlurmTime("2026-12-02T02:14:09", "t");
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(*boot, *expected);
  auto missing = ParseBootTime("ClusterName = x\n", "scontrol show config");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "scontrol show config: no BOOT_TIME line with a time");
  auto bad = ParseBootTime("BOOT_TIME = soon\n", "scontrol show config");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("BOOT_TIME: 'soon' is not a time"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace hetsched::slurm
