#include "hetsched/slurm/journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
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

}  // namespace
}  // namespace hetsched::slurm
