#include "hetsched/report/comparison.h"

#include <gtest/gtest.h>

#include "hetsched/report/writers.h"

namespace hetsched {
namespace {

// Two runs with round numbers so every cell can be checked by eye.
//   fifo/first_fit: 3/4 finished; JCT mean 7200 s = 2.00 h, median 3600 = 1.00, p95/p99 18000 =
//     5.00; queueing mean 1800 = 0.50 h; makespan 36000 = 10.00 h; util 0.8333 -> 83.3 %;
//     cost 12.5; energy 36e6 J = 10.0 kWh; Jain 0.85343 -> 0.853; FTF 1.923 -> 1.92;
//     cross-node 3e9 B = 0.003 TB.
//   gavel/pack: 4/4; JCT mean 5400 = 1.50 h, median 1800 = 0.50, p95/p99 9000 = 2.50;
//     queueing 0; makespan 18000 = 5.00 h; util 1.0 -> 100.0 %; cost 1234.5 -> 1234.50;
//     energy 7.2e6 J = 2.0 kWh; Jain 1 -> 1.000; FTF 1 -> 1.00; cross-node 1.5e12 -> 1.500 TB.
void MakeRuns(std::vector<RunRecord>* runs, std::vector<Summary>* sums) {
  RunRecord a, b;
  a.policy = "fifo";
  a.placer = "first_fit";
  b.policy = "gavel";
  b.placer = "pack";
  Summary sa, sb;
  sa.jobs_total = 4;
  sa.jobs_finished = 3;
  sa.jct_s.mean = 7200;
  sa.jct_s.median = 3600;
  sa.jct_s.p95 = sa.jct_s.p99 = 18000;
  sa.queueing_delay_s.mean = 1800;
  sa.makespan_s = 36000;
  sa.utilisation = 0.8333;
  sa.cost_usd = 12.5;
  sa.energy_joules = 36e6;
  sa.jain_fairness = 0.85343;
  sa.ftf_max = 1.923;
  sa.ftf_mean = 1.4;
  sa.cross_node_bytes = 3e9;
  sb.jobs_total = sb.jobs_finished = 4;
  sb.jct_s.mean = 5400;
  sb.jct_s.median = 1800;
  sb.jct_s.p95 = sb.jct_s.p99 = 9000;
  sb.makespan_s = 18000;
  sb.utilisation = 1;
  sb.cost_usd = 1234.5;
  sb.energy_joules = 7.2e6;
  sb.jain_fairness = 1;
  sb.ftf_max = sb.ftf_mean = 1;
  sb.cross_node_bytes = 1.5e12;
  sb.deadline_misses = 1;
  *runs = {a, b};
  *sums = {sa, sb};
}

TEST(ComparisonCells, FormatsForPeople) {
  std::vector<RunRecord> runs;
  std::vector<Summary> sums;
  MakeRuns(&runs, &sums);
  const std::vector<std::string> expected = {"fifo",  "first_fit", "3/4",   "2.00",  "1.00",
                                             "5.00",  "5.00",      "0.50",  "10.00", "83.3",
                                             "12.50", "10.0",      "0.853", "1.92",  "0.003"};
  EXPECT_EQ(ComparisonCells(runs[0], sums[0]), expected);
  EXPECT_EQ(ComparisonColumns().size(), expected.size());
}

TEST(ComparisonTable, GoldenText) {
  std::vector<RunRecord> runs;
  std::vector<Summary> sums;
  MakeRuns(&runs, &sums);
  // Column width = max(header, cells); two spaces between columns; text left-aligned, numbers
  // right-aligned; no trailing spaces.
  const std::string expected =
      "policy  placer     finished/total  avg JCT (h)  median   p95   p99  avg queueing (h)  "
      "makespan (h)  util %   cost $  energy kWh   Jain  max FTF  cross-node TB\n"
      "------  ---------  --------------  -----------  ------  ----  ----  ----------------  "
      "------------  ------  -------  ----------  -----  -------  -------------\n"
      "fifo    first_fit             3/4         2.00    1.00  5.00  5.00              0.50  "
      "       10.00    83.3    12.50        10.0  0.853     1.92          0.003\n"
      "gavel   pack                  4/4         1.50    0.50  2.50  2.50              0.00  "
      "        5.00   100.0  1234.50         2.0  1.000     1.00          1.500\n";
  EXPECT_EQ(ComparisonTable(runs, sums), expected);
}

TEST(ComparisonCsv, GoldenText) {
  std::vector<RunRecord> runs;
  std::vector<Summary> sums;
  MakeRuns(&runs, &sums);
  runs[1].policy = "my,policy";  // quoted
  const std::string expected =
      "policy,placer,planner,trace,seed,jobs_finished,jobs_total,avg_jct_s,median_jct_s,p95_jct_s,"
      "p99_jct_s,avg_queueing_delay_s,makespan_s,utilisation,cost_usd,energy_joules,"
      "jain_fairness,ftf_max,ftf_mean,cross_node_bytes,deadline_misses,preemptions\n"
      "fifo,first_fit,,,0,3,4,7200,3600,18000,18000,1800,36000,0.8333,12.5,36000000,0.85343,1.923,1.4,"
      "3000000000,0,0\n"
      "\"my,policy\",pack,,,0,4,4,5400,1800,9000,9000,0,18000,1,1234.5,7200000,1,1,1,1500000000000,1,0\n";
  EXPECT_EQ(ComparisonCsv(runs, sums), expected);
}

TEST(ComparisonTable, EmptyHasHeaderOnly) {
  const std::string table = ComparisonTable({}, {});
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 2);
}

}  // namespace
}  // namespace hetsched
