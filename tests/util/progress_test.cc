// The progress line: its text, the time left, its redraw rate (a fake clock).
#include "hetsched/util/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace hetsched {
namespace {

std::string Written(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[512];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

TEST(ProgressTest, FormatDuration) {
  EXPECT_EQ(FormatDuration(0), "0 s");
  EXPECT_EQ(FormatDuration(59.4), "59 s");
  EXPECT_EQ(FormatDuration(187), "3 m 07 s");
  EXPECT_EQ(FormatDuration(3720), "1 h 02 m");
  EXPECT_EQ(FormatDuration(2 * 86400 + 3 * 3600), "2 d 03 h");
  EXPECT_EQ(FormatDuration(-1), "?");
}

TEST(ProgressTest, TimeLeftFromTheRateSoFar) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  double now = 100;
  ProgressLine line("simulate fifo", "jobs", f, [&] { return now; });
  now = 110;  // 10 s for the first 2,500 of 10,000 jobs: 30 s left
  line.Update(2500, 10000);
  const std::string first = Written(f);
  EXPECT_NE(first.find("simulate fifo"), std::string::npos) << first;
  EXPECT_NE(first.find(" 25.0%"), std::string::npos) << first;
  EXPECT_NE(first.find("2,500/10,000 jobs"), std::string::npos) << first;
  EXPECT_NE(first.find("30 s left"), std::string::npos) << first;
  EXPECT_NE(first.find("[#######......"), std::string::npos) << first;
  now = 110.05;  // within 100 ms of the last draw: nothing
  line.Update(2600, 10000);
  EXPECT_EQ(Written(f), first);
  now = 150;  // the end is always drawn, with the time it took, and the line ends
  line.Update(10000, 10000);
  const std::string all = Written(f);
  EXPECT_NE(all.find("100.0%"), std::string::npos) << all;
  EXPECT_NE(all.find("done in 50 s"), std::string::npos) << all;
  EXPECT_EQ(all.back(), '\n');
  line.Update(10000, 10000);  // nothing after the end
  EXPECT_EQ(Written(f), all);
  std::fclose(f);
}

TEST(ProgressTest, NoEstimateBeforeOnePercentOrOneSecond) {
  std::FILE* f = std::tmpfile();
  double now = 0;
  ProgressLine line("x", "runs", f, [&] { return now; });
  now = 0.5;
  line.Update(5, 1000);
  EXPECT_EQ(Written(f).find("left"), std::string::npos);
  std::fclose(f);
}

}  // namespace
}  // namespace hetsched
