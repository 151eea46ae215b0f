#include "hetsched/slurm/journal.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "hetsched/util/file_io.h"

namespace hetsched::slurm {
namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/hetsched_journal_" + std::to_string(getpid()) + "_" + name;
}

TEST(JournalTest, AppendAndReplay) {
  const std::string path = TempPath("replay");
  std::remove(path.c_str());
  {
    auto j = Journal::Open(path, nullptr);
    ASSERT_TRUE(j.ok()) << j.status().message();
    EXPECT_TRUE(j->replayed().empty());
    JournalRecord place = JournalRecord::Of("place", 7);
    place.nodes = {"a100-1", "a100-2"};
    place.devices = {0, 1, 4};
    place.type = "a100-40gb";
    place.time_s = 1795411447.25;
    ASSERT_TRUE(j->Append(JournalRecord::Of("agent_start", -1, "fifo+pack")).ok());
    ASSERT_TRUE(j->Append(place).ok());
    JournalRecord admit = JournalRecord::Of("admit", 8);
    admit.name = "evil \"$(rm -rf /)\"\n";  // free text survives as data
    admit.gpus = 2;
    ASSERT_TRUE(j->Append(admit).ok());
  }
  auto j = Journal::Open(path, nullptr);
  ASSERT_TRUE(j.ok());
  ASSERT_EQ(j->replayed().size(), 3u);
  const JournalRecord& p = j->replayed()[1];
  EXPECT_EQ(p.event, "place");
  EXPECT_EQ(p.job, 7);
  EXPECT_EQ(p.nodes, (std::vector<std::string>{"a100-1", "a100-2"}));
  EXPECT_EQ(p.devices, (std::vector<int>{0, 1, 4}));
  EXPECT_DOUBLE_EQ(p.time_s, 1795411447.25);
  EXPECT_EQ(j->replayed()[2].name, "evil \"$(rm -rf /)\"\n");
  EXPECT_EQ(j->replayed()[0].job, -1);
  std::remove(path.c_str());
}

TEST(JournalTest, TornLastRecordIsDroppedAndTruncated) {
  const std::string path = TempPath("torn");
  {
    std::ofstream f(path, std::ios::trunc);
    f << Journal::Encode(JournalRecord::Of("agent_start")) << "\n" << "{\"ev\":\"pla";
  }
  std::string warning;
  {
    auto j = Journal::Open(path, &warning);
    ASSERT_TRUE(j.ok()) << j.status().message();
    EXPECT_EQ(j->replayed().size(), 1u);
    EXPECT_NE(warning.find(":2: incomplete last record"), std::string::npos) << warning;
    ASSERT_TRUE(j->Append(JournalRecord::Of("release", 3)).ok());
  }
  auto again = Journal::Open(path, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_EQ(again->replayed().size(), 2u);
  EXPECT_EQ(again->replayed()[1].event, "release");
  std::remove(path.c_str());
}

TEST(JournalTest, BadMiddleLineIsAnErrorNamingTheLine) {
  const std::string path = TempPath("bad");
  {
    std::ofstream f(path, std::ios::trunc);
    f << Journal::Encode(JournalRecord::Of("agent_start")) << "\nnot json\n"
      << Journal::Encode(JournalRecord::Of("admit", 1)) << "\n";
  }
  auto j = Journal::Open(path, nullptr);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find(path + ":2"), std::string::npos) << j.status().message();
  std::remove(path.c_str());
}

// Issue 20 (found by fuzz_journal): numbers that do not fit the record's integer fields were
// converted with undefined behaviour (a float such as 1e300 to an int64 job id); they are errors
// naming the line and the field now, and so are times that are not finite.
TEST(JournalTest, OutOfRangeNumbersAreErrorsNotConversions) {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"ev":"admit","job":1e300})", "field 'job' must be an integer"},
      {R"({"ev":"admit","job":-2})", "field 'job' must be an integer"},
      {R"({"ev":"admit","job":3,"gpus":4294967296})", "field 'gpus' must be an integer"},
      {R"({"ev":"admit","job":3,"gpus":1.5})", "field 'gpus' must be an integer"},
      {R"({"ev":"place","job":3,"devices":[0,-1]})", "field 'devices' must list device ids"},
      {R"({"ev":"place","job":3,"devices":[1e10]})", "field 'devices' must list device ids"},
      {R"({"ev":"finish","job":3,"value":18446744073709551615})", "field 'value' must be an integer"},
      {R"({"ev":"admit","job":3,"t":1e999})", ""},  // not finite: refused (by the parser or the check)
  };
  for (const auto& [line, expected] : cases) {
    auto r = Journal::Decode(line, "j.jsonl:4");
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_NE(r.status().message().find("j.jsonl:4: " + expected), std::string::npos) << r.status().message();
  }
  auto good = Journal::Decode(R"({"ev":"finish","job":9007199254740993,"value":-9,"gpus":2147483647})", "j");
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->job, 9007199254740993);
  EXPECT_EQ(good->value, -9);
  EXPECT_EQ(good->gpus, 2147483647);
}

TEST(JournalTest, ParseKeepsWholeRecordsAndReportsATornOne) {
  const std::string a = Journal::Encode(JournalRecord::Of("agent_start"));
  auto replay = Journal::Parse(a + "\n" + a + "\n{\"ev\":\"adm", "j.jsonl");
  ASSERT_TRUE(replay.ok()) << replay.status().message();
  EXPECT_EQ(replay->records.size(), 2u);
  EXPECT_EQ(replay->good_end, 2 * (a.size() + 1));
  EXPECT_EQ(replay->warning, "j.jsonl:3: incomplete last record dropped (agent stopped mid-write)");
}
// Issue 44, cause D: a write that fails part-way (a full disk) left half a record in the file,
// and the next start refused the journal ("not a JSON object" before the last line). Now the file
// is cut back to its last whole record and the journal stays usable.
TEST(JournalTest, AWriteThatFailsPartWayLeavesNoPartOfTheRecord) {
  const std::string path = TempPath("full");
  std::remove(path.c_str());
  auto j = Journal::Open(path, nullptr);
  ASSERT_TRUE(j.ok()) << j.status().message();
  ASSERT_TRUE(j->Append(JournalRecord::Of("agent_start", -1, "fifo+pack")).ok());
  const auto size = std::filesystem::file_size(path);
  JournalRecord big = JournalRecord::Of("reject", 9, std::string(400, 'x'));
  {
    // Writes past size + 100 bytes fail (EFBIG): the first part of the record goes in, the rest not.
    rlimit saved{};
    getrlimit(RLIMIT_FSIZE, &saved);
    auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved;
    limit.rlim_cur = size + 100;
    setrlimit(RLIMIT_FSIZE, &limit);
    const Status st = j->Append(big);
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, old_handler);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("journal write failed"), std::string::npos) << st.message();
  }
  EXPECT_EQ(std::filesystem::file_size(path), size);
  ASSERT_TRUE(j->Append(JournalRecord::Of("admit", 10)).ok());  // usable again once there is room
  auto reopened = Journal::Open(path, nullptr);
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  ASSERT_EQ(reopened->replayed().size(), 2u);
  EXPECT_EQ(reopened->replayed()[1].event, "admit");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace hetsched::slurm
