// One experiment over several seeds (experiments/seeds.h): the seed list, the row-by-row summary
// with its statistics worked out by hand, the checks that the per-seed tables line up, and a run
// of a small experiment registered here whose table depends on the seed in a known way.
#include "hetsched/experiments/seeds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "hetsched/util/file_io.h"

namespace hetsched {
namespace {

namespace fs = std::filesystem;

std::string SlurpSeeds(const std::string& path) {
  auto text = ReadFile(path);
  return text.ok() ? *text : "(cannot read " + path + ")";
}

TEST(SeedListTest, RangesAndSinglesInTheOrderGiven) {
  auto a = ParseSeedList("1-3");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(*a, (std::vector<unsigned long long>{1, 2, 3}));
  auto b = ParseSeedList("7, 1-2 ,0");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(*b, (std::vector<unsigned long long>{7, 1, 2, 0}));
  auto c = ParseSeedList("5");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, (std::vector<unsigned long long>{5}));
}

TEST(SeedListTest, BadListsSayWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},          {"3-1", "backwards"},       {"1,1", "listed twice"}, {"1-3,2", "listed twice"},
      {"a", "not a whole"},   {"1,,2", "not a whole"},    {"-1", "not a whole"},   {"1-", "not a whole"},
      {"0-5000", "more than"}, {"1.5", "not a whole"}};
  for (const auto& [text, what] : cases) {
    auto r = ParseSeedList(text);
    ASSERT_FALSE(r.ok()) << "'" << text << "' was accepted";
    EXPECT_NE(r.status().message().find(what), std::string::npos) << text << ": " << r.status().message();
  }
}

ExperimentTable Table(std::vector<std::vector<std::string>> rows) {
  ExperimentTable t;
  t.header = {"workload", "jobs", "jct_h", "plan"};
  t.rows = std::move(rows);
  return t;
}

// Three seeds, two rows. jobs is the same everywhere; jct_h of row "a" is 1, 2, 6 (mean 3; the
// sample variance ((1-3)^2 + (2-3)^2 + (6-3)^2) / 2 = 7, sd sqrt(7) = 2.64575) and of row "b"
// 4.5 on every seed (sd 0); plan is text that differs on seed 2.
TEST(SeedSummaryTest, SteadyColumnsOnceVaryingOnesAsMeanAndSpread) {
  const std::vector<ExperimentTable> tables = {
      Table({{"a", "10", "1.0", "x"}, {"b", "10", "4.5", "y"}}),
      Table({{"a", "10", "2.0", "z"}, {"b", "10", "4.5", "y"}}),
      Table({{"a", "10", "6.0", "x"}, {"b", "10", "4.5", "y"}}),
  };
  auto s = SummariseSeeds({1, 2, 3}, tables);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->columns.size(), 4u);
  EXPECT_FALSE(s->columns[0].varies);
  EXPECT_FALSE(s->columns[1].varies);
  EXPECT_TRUE(s->columns[2].varies);
  EXPECT_TRUE(s->columns[2].numeric);
  EXPECT_TRUE(s->columns[3].varies);
  EXPECT_FALSE(s->columns[3].numeric);

  const SeedStats st = StatsOf(s->values[0][2]);
  EXPECT_DOUBLE_EQ(st.mean, 3.0);
  EXPECT_DOUBLE_EQ(st.sd, std::sqrt(7.0));
  EXPECT_DOUBLE_EQ(st.min, 1.0);
  EXPECT_DOUBLE_EQ(st.max, 6.0);

  EXPECT_EQ(FormatSeedSummaryCsv(*s),
            "workload,jobs,jct_h_mean,jct_h_sd,jct_h_min,jct_h_max,jct_h_seed1,jct_h_seed2,jct_h_seed3,"
            "plan_seed1,plan_seed2,plan_seed3\n"
            "a,10,3.00,2.65,1.0,6.0,1.0,2.0,6.0,x,z,x\n"
            "b,10,4.50,0.00,4.5,4.5,4.5,4.5,4.5,y,y,y\n");
  const std::string text = FormatSeedSummaryText(*s);
  EXPECT_NE(text.find("over seeds 1, 2, 3"), std::string::npos) << text;
  EXPECT_NE(text.find("jct_h *"), std::string::npos) << text;
  EXPECT_NE(text.find("3.0 (1.0..6.0)"), std::string::npos) << text;
  EXPECT_NE(text.find("x/z/x"), std::string::npos) << text;
  // A row where a varying column is the same on every seed shows the value alone.
  EXPECT_EQ(text.find("4.5 (4.5..4.5)"), std::string::npos) << text;
}

// Digits follow each row's own values: 1.5, 2.25 and 3 (mean 2.25, sd sqrt(0.5625) = 0.75) are
// shown with two decimals (three in the CSV's mean and deviation), least and greatest as written;
// the other row, written with four decimals, keeps them.
TEST(SeedSummaryTest, EachRowKeepsTheDigitsOfItsOwnValues) {
  ExperimentTable a, b, c;
  for (ExperimentTable* t : {&a, &b, &c}) t->header = {"case", "x"};
  a.rows = {{"p", "1.5"}, {"q", "0.1000"}};
  b.rows = {{"p", "2.25"}, {"q", "0.2000"}};
  c.rows = {{"p", "3"}, {"q", "0.3000"}};
  auto s = SummariseSeeds({1, 2, 3}, {a, b, c});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(FormatSeedSummaryCsv(*s),
            "case,x_mean,x_sd,x_min,x_max,x_seed1,x_seed2,x_seed3\n"
            "p,2.250,0.750,1.5,3,1.5,2.25,3\n"
            "q,0.20000,0.10000,0.1000,0.3000,0.1000,0.2000,0.3000\n");
  const std::string text = FormatSeedSummaryText(*s);
  EXPECT_NE(text.find("2.25 (1.5..3)"), std::string::npos) << text;
  EXPECT_NE(text.find("0.2000 (0.1000..0.3000)"), std::string::npos) << text;
}

TEST(SeedSummaryTest, TablesThatDoNotLineUpAreRefused) {
  ExperimentTable other = Table({{"a", "10", "1.0", "x"}});
  other.header[2] = "jct_s";
  auto r = SummariseSeeds({1, 2}, {Table({{"a", "10", "1.0", "x"}}), other});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("seed 2's table has other columns"), std::string::npos) << r.status().message();
  r = SummariseSeeds({4, 9}, {Table({{"a", "10", "1.0", "x"}}), Table({})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("seed 9's table has 0 row(s), seed 4's has 1"), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(SummariseSeeds({1}, {}).ok());
}

TEST(SeedSummaryTest, ARaggedRowNamesItsFileAndLine) {
  const std::string path = ::testing::TempDir() + "/ragged_seed_table.csv";
  ASSERT_TRUE(WriteFileAtomic(path, "a,b\n1,2\n3\n").ok());
  auto r = ReadExperimentTable(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path + ":3: 1 field(s), the header has 2"), std::string::npos)
      << r.status().message();
  ASSERT_TRUE(WriteFileAtomic(path, "a,b\n1,2\n\n3,4\n").ok());
  auto ok = ReadExperimentTable(path);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->rows.size(), 2u);
  fs::remove(path);
}

// An experiment whose table is known per seed: one row, "score" = 10 x seed.
class SeedEcho : public Experiment {
 public:
  std::string_view name() const override { return "seed-echo"; }
  Status Run(ExperimentContext& ctx) override {
    ++runs;
    if (ctx.check_only) return Status::Ok();
    ctx.headline = "score " + std::to_string(10 * ctx.seed);
    return WriteFileAtomic(ctx.out_dir + "/seed-echo.csv", "case,score\nonly," + std::to_string(10 * ctx.seed) + "\n");
  }
  int runs = 0;
};

TEST(SeedSummaryTest, RunsOncePerSeedIntoItsOwnFolderAndSummarises) {
  const std::string dir = ::testing::TempDir() + "/seed_echo_run";
  fs::remove_all(dir);
  ASSERT_TRUE(MakeDirs(dir).ok());
  SeedEcho echo;
  std::string printed;
  ExperimentContext ctx;
  ctx.out_dir = dir;
  ctx.print = [&printed](const std::string& s) { printed += s; };
  Status st = RunExperimentOverSeeds(echo, ctx, {2, 5});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(echo.runs, 2);
  EXPECT_EQ(SlurpSeeds(dir + "/seed-2/seed-echo.csv"), "case,score\nonly,20\n");
  EXPECT_EQ(SlurpSeeds(dir + "/seed-5/seed-echo.csv"), "case,score\nonly,50\n");
  // mean 35, sd sqrt((15^2 + 15^2) / 1) = 21.2132
  EXPECT_EQ(SlurpSeeds(dir + "/seed-echo_seeds.csv"),
            "case,score_mean,score_sd,score_min,score_max,score_seed2,score_seed5\nonly,35.0,21.2,20,50,20,50\n");
  EXPECT_EQ(SlurpSeeds(dir + "/seed-echo_seeds.txt").find("35.0 (20..50)") != std::string::npos, true)
      << SlurpSeeds(dir + "/seed-echo_seeds.txt");
  EXPECT_EQ(ctx.headline, "seed 2: score 20\nseed 5: score 50");
  EXPECT_NE(printed.find("== seed 5 (2 of 2)"), std::string::npos) << printed;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetsched
