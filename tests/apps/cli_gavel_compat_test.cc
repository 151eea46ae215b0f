// `--compat gavel` against Gavel's own simulator (stanford-futuredata/gavel @ c4fa400) on two
// 100-job cases, one 2,000-job case and two 300-job cases on other clusters (tests/data/gavel/SOURCES.md): the peer's average JCT and makespan are stored
// below as numbers, with the command that made them; ours must stay within the fidelity targets
// of issue #18 (average JCT 2%, makespan 5%; heterogeneity-aware gain 3%). docs/validation.md,
// "Gavel", has the full tables.
//
// The peer's figures: with Gavel laid out by the development tools beside the project (a cvxpy
// stand-in; docs/validation.md, "Gavel"),
//   GAVEL_SHIM_SOLVER=SOLVER bash run_gavel.sh tests/data/gavel/CASE.10f.trace POLICY 36:36:36 4
// i.e. simulate_scheduler_with_trace.py -t CASE.10f.trace -p POLICY --throughputs_file
// simulation_throughputs.json -c 36:36:36 --num_gpus_per_server 4:4:4 --seed 0 (other clusters:
// their V100:P100:K80 counts and GPUs per server in place of 36:36:36 and 4); "Average job
// completion time" and the time of the log's last line (the makespan). LP policies with the
// interior-point solver (cvxopt, closest to Gavel's ECOS); the FIFOs solve nothing.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace hetsched {
namespace {

namespace fs = std::filesystem;
using cli_test::FreshDir;
using cli_test::ReadWholeFile;
using cli_test::RunCli;
using cli_test::WriteWholeFile;

struct GavelFigures {
  const char* gavel_case;
  const char* gavel_policy;
  const char* solver;
  const char* ours;
  double avg_jct_s;   // Gavel's "Average job completion time"
  double makespan_s;  // Gavel's last log timestamp
  int jobs = 100;
  const char* gpus = "v100=36,p100=36,k80=36";
  const char* per_server = "4";
  // Ours equal to Gavel's to the millisecond (both figures), not only within the targets.
  bool exact = false;
};

// Measured 2026-11-25 (the gavel helper, 2-core machine).
constexpr GavelFigures kFigures[] = {
    {"s6c71a0", "fifo", "-", "gavel-fifo", 677781.603, 4950782.120},
    {"s6c71a0", "fifo_perf", "-", "gavel-fifo-perf", 655729.667, 4948645.360},
    {"s6c71a0", "max_min_fairness_perf", "cvxopt", "gavel-las", 663306.383, 4948619.782},
    {"s6c71a0", "max_min_fairness", "cvxopt", "gavel-las-agnostic", 1026774.927, 7026701.698},
    {"s6c71a0", "min_total_duration_perf", "cvxopt", "gavel-makespan", 663472.312, 4948619.868},
    {"s6c71a0", "finish_time_fairness_perf", "cvxopt", "gavel-ftf", 663310.730, 4948619.700},
    {"sb436b2", "fifo", "-", "gavel-fifo", 236525.317, 4683776.392},
    {"sb436b2", "fifo_perf", "-", "gavel-fifo-perf", 151552.925, 1404017.064},
    // Measured 2026-11-25 (session 8), cvxopt. Within the targets since --compat gavel keeps an
    // interior point and gavel-ftf follows Gavel's reference (reference=gavel).
    {"sb436b2", "max_min_fairness", "cvxopt", "gavel-las-agnostic", 187718.930, 2295739.863},
    {"sb436b2", "finish_time_fairness_perf", "cvxopt", "gavel-ftf", 142259.046, 1497681.590},
    // Measured 2026-11-25 (session 9), cvxopt. The optimal faces here are wide, and where cvxopt
    // stops inside them is set by its own start and steps: with the central path's end
    // (point=centre) these were -13.3% and -19.8% JCT; with cvxopt's method (point=cvxopt) they meet
    // the targets.
    {"sb436b2", "max_min_fairness_perf", "cvxopt", "gavel-las", 172160.358, 1404683.569},
    {"sb436b2", "min_total_duration_perf", "cvxopt", "gavel-makespan", 190583.436, 1404010.822},
    // Measured 2026-11-25 (session 8). The cluster empties between jobs here: Gavel still ends
    // that round, resets and re-solves with no jobs (fifo's next arrival then draws a type);
    // before hetsched did the same, gavel-fifo was +7.2% JCT, -11.7% makespan on this case.
    {"c11cb48", "fifo", "-", "gavel-fifo", 60545.470, 11428238.530, 2000},
    {"c11cb48", "fifo_perf", "-", "gavel-fifo-perf", 49459.968, 9140588.765, 2000},
    // Measured 2026-11-26 (session 14): cases on clusters the others do not use (16 V100 + 12 P100
    // + 8 K80, 4 per server; 8 + 8 + 8, 2 per server). On u2869ce the cluster idles with a job
    // waiting outside the allocation: Gavel waits for the next arrival; before hetsched did the
    // same, gavel-fifo was -6.9% JCT, -1.6% makespan here.
    {"u2869ce", "fifo", "-", "gavel-fifo", 81498.552, 4719714.522, 300, "v100=16,p100=12,k80=8"},
    {"u2869ce", "fifo_perf", "-", "gavel-fifo-perf", 57366.440, 4580014.286, 300, "v100=16,p100=12,k80=8"},
    {"u2869ce", "max_min_fairness_perf", "cvxopt", "gavel-las", 64301.538, 4643179.672, 300, "v100=16,p100=12,k80=8"},
    {"u2869ce", "max_min_fairness", "cvxopt", "gavel-las-agnostic", 64514.265, 4631579.257, 300,
     "v100=16,p100=12,k80=8"},
    {"u2869ce", "min_total_duration_perf", "cvxopt", "gavel-makespan", 83267.296, 4579534.565, 300,
     "v100=16,p100=12,k80=8"},
    {"u2869ce", "finish_time_fairness_perf", "cvxopt", "gavel-ftf", 52510.895, 4619034.060, 300,
     "v100=16,p100=12,k80=8"},
    {"ue13805", "fifo", "-", "gavel-fifo", 1396544.260, 12640845.369, 300, "v100=8,p100=8,k80=8", "2"},
    {"ue13805", "fifo_perf", "-", "gavel-fifo-perf", 1090735.633, 7513690.488, 300, "v100=8,p100=8,k80=8", "2"},
    // Measured 2026-12-03 (session 34, a helper), cvxopt. On sb436b2 (Gavel 133,551.251 s, makespan
    // 1,537,643.523 s) ours is +0.3% JCT and +4.6% makespan, the vertex against cvxopt's interior
    // point of a degenerate LP (Gavel's own HiGHS run is +4.6% there too): not held here.
    {"s6c71a0", "max_sum_throughput_perf", "cvxopt", "gavel-throughput", 663131.716, 4948619.652},
    // Measured 2026-12-04 (session 37; no solver): ours equal to the millisecond on all six cases of
    // docs/validation.md, "Gavel's isolated".
    {"s6c71a0", "isolated", "-", "gavel-isolated", 1026718.724, 7026628.755},
    {"sb436b2", "isolated", "-", "gavel-isolated", 396152.914, 2350333.647, 100, "v100=16,p100=16,k80=16"},
    {"u2869ce", "isolated", "-", "gavel-isolated", 56228.740, 4589513.285, 300},
    // The heterogeneity-blind min_total_duration and finish_time_fairness (session 37), cvxopt.
    {"s6c71a0", "min_total_duration", "cvxopt", "gavel-makespan-agnostic", 1026834.257, 7028447.292},
    {"sb436b2", "finish_time_fairness", "cvxopt", "gavel-ftf-agnostic", 189607.190, 2331060.280},
    {"sb436b2", "min_total_duration", "cvxopt", "gavel-makespan-agnostic", 428370.074, 2294967.513, 100,
     "v100=16,p100=16,k80=16"},
    // Gavel's water filling (2026-12-04, a helper), cvxopt (its MILP by GLPK): ours within 0.23% JCT
    // and 0.20% makespan on ten cases (docs/validation.md, "Gavel's water filling").
    {"s6c71a0", "max_min_fairness_water_filling_perf", "cvxopt", "gavel-water-filling", 663156.894, 4948740.978},
    {"s6c71a0", "max_min_fairness_water_filling", "cvxopt", "gavel-water-filling-agnostic", 1026989.573, 7026183.807},
    {"sb436b2", "max_min_fairness_water_filling_perf", "cvxopt", "gavel-water-filling", 142916.480, 1418187.413},
    {"sb436b2", "max_min_fairness_water_filling", "cvxopt", "gavel-water-filling-agnostic", 188561.909, 2300441.995},
    {"sb436b2", "max_min_fairness_water_filling_perf", "cvxopt", "gavel-water-filling", 298569.591, 1624504.162, 100,
     "v100=16,p100=16,k80=16"},
    {"sb436b2", "max_min_fairness_water_filling", "cvxopt", "gavel-water-filling-agnostic", 395916.893, 2365600.898, 100,
     "v100=16,p100=16,k80=16"},
    {"u2869ce", "max_min_fairness_water_filling_perf", "cvxopt", "gavel-water-filling", 47196.535, 4580247.166, 300,
     "v100=16,p100=16,k80=16"},
    {"u2869ce", "max_min_fairness_water_filling", "cvxopt", "gavel-water-filling-agnostic", 63114.230, 4605204.466, 300,
     "v100=16,p100=16,k80=16"},
    // Gavel's packed policies (space sharing; 2026-12-04, session 39, a helper's runs: HiGHS unless
    // cvxopt) on the first 100 single-GPU jobs of msr 6c71a0 (docs/validation.md, "Gavel's packed
    // policies"). Not held: min_total_duration_packed (any feasible point: -2.7% JCT at 8:8:8,
    // +4.4% at 36:36:36) and finish_time_fairness_packed at 36:36:36 (-10.7% against HiGHS; the
    // solvers' own spread on max_min_fairness_packed there is 11.6%); water filling at 36:36:36 is
    // within 0.15% but takes 24 s.
    {"g1s6c71a0", "fifo_packed", "-", "gavel-fifo-packed", 776632.777, 4948660.549, 100, "v100=36,p100=36,k80=36", "4",
     true},
    {"g1s6c71a0", "max_min_fairness_packed", "cvxopt", "gavel-las-packed", 823104.545, 5040978.065},
    // Exact since both jobs of a pair micro-task finish at its end, as in Gavel (pair_finish=micro_task,
    // issue #47; before: 1,860,746.838 s, -0.003%).
    {"g1s6c71a0", "fifo_packed", "-", "gavel-fifo-packed", 1860800.331, 6170972.758, 100, "v100=8,p100=8,k80=8", "4",
     true},
    {"g1s6c71a0", "max_min_fairness_packed", "highs", "gavel-las-packed", 1113437.565, 5908791.779, 100,
     "v100=8,p100=8,k80=8"},
    {"g1s6c71a0", "finish_time_fairness_packed", "highs", "gavel-ftf-packed", 1118580.414, 5915139.676, 100,
     "v100=8,p100=8,k80=8"},
    {"g1s6c71a0", "max_min_fairness_water_filling_packed", "highs", "gavel-water-filling-packed", 1105251.775,
     5847819.799, 100, "v100=8,p100=8,k80=8"},
    // Gavel's gandiva and allox (2026-12-04, a helper; no LP solver): ours equal to the millisecond
    // (gandiva at 8:8:8 since both jobs of a pair micro-task finish at its end, as Gavel records
    // them, pair_finish=micro_task, issue #47; before: 1,321,281.647 s, -0.009%):
    // docs/validation.md, "Gavel's AlloX and gandiva", docs/space_sharing.md, "Gavel's gandiva".
    {"g1s6c71a0", "gandiva", "-", "gavel-gandiva", 1321404.636, 7152649.394, 100, "v100=8,p100=8,k80=8", "4", true},
    {"g1s6c71a0", "gandiva", "-", "gavel-gandiva", 794272.995, 4952257.464, 100, "v100=36,p100=36,k80=36", "4", true},
    {"g1s6c71a0", "allox", "-", "gavel-allox", 1270109.566, 6793580.664, 100, "v100=8,p100=8,k80=8", "4", true},
    {"g1s6c71a0", "allox", "-", "gavel-allox", 791668.367, 4948619.093, 100, "v100=36,p100=36,k80=36", "4", true},
};

struct Ours {
  double avg_jct_s = 0;
  double makespan_s = 0;
};

Ours RunOurs(const std::string& gavel_case, const std::string& policy, int jobs = 100,
             const std::string& gpus = "v100=36,p100=36,k80=36", const std::string& per_server = "4") {
  const std::string dir = FreshDir("gavel_compat_" + gavel_case + "_" + policy);
  const std::string trace = std::string(HETSCHED_TEST_DATA_DIR) + "/gavel/" + gavel_case + ".7f.trace";
  const auto r = RunCli({"simulate", "--compat", "gavel", "--policy", policy, "--gpus", gpus,
                         "--gpus-per-server", per_server, "--trace", trace, "-q", "-o", dir + "/out"},
                        dir + "/cap");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Ours ours;
  if (r.exit_code == 0) {
    const auto summary = nlohmann::json::parse(ReadWholeFile(dir + "/out/summary.json"));
    EXPECT_EQ(summary["jobs_finished"], jobs);
    ours.avg_jct_s = summary["jct_s"]["mean"].get<double>();
    ours.makespan_s = summary["makespan_s"].get<double>();
  }
  fs::remove_all(dir);
  return ours;
}

// One test per row, so that the shards of the test binary share the rows (each is a whole run).
class CliGavelCompatRowTest : public ::testing::TestWithParam<GavelFigures> {};

TEST_P(CliGavelCompatRowTest, AverageJctAndMakespanWithinTargetsOfGavelsSimulator) {
  const GavelFigures& f = GetParam();
  SCOPED_TRACE(std::string(f.gavel_case) + " " + f.gavel_policy + " vs " + f.ours);
  const Ours ours = RunOurs(f.gavel_case, f.ours, f.jobs, f.gpus, f.per_server);
  EXPECT_NEAR(ours.avg_jct_s / f.avg_jct_s, 1.0, 0.02);
  EXPECT_NEAR(ours.makespan_s / f.makespan_s, 1.0, 0.05);
  if (f.exact) {  // Gavel prints three decimals
    EXPECT_NEAR(ours.avg_jct_s, f.avg_jct_s, 1e-3);
    EXPECT_NEAR(ours.makespan_s, f.makespan_s, 1e-3);
  }
}

INSTANTIATE_TEST_SUITE_P(GavelRows, CliGavelCompatRowTest, ::testing::ValuesIn(kFigures),
                         [](const ::testing::TestParamInfo<GavelFigures>& row) {
                           std::string name = std::string(row.param.gavel_case) + "_" + row.param.ours + "_" +
                                              std::to_string(row.index);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(CliGavelCompatTest, HeterogeneityAwareGainWithinThreePercent) {
  // Gavel: max_min_fairness / max_min_fairness_perf average JCT = 1026774.927 / 663306.383 = 1.548.
  const double gavel_gain = 1026774.927 / 663306.383;
  const double ours = RunOurs("s6c71a0", "gavel-las-agnostic").avg_jct_s / RunOurs("s6c71a0", "gavel-las").avg_jct_s;
  EXPECT_NEAR(ours / gavel_gain, 1.0, 0.03);
}

// Gavel's failed micro-task, end to end: one ResNet-50 (batch 64) job on 8 V100s with 12,463 steps.
// T = 17.303172756892167 steps/s (Gavel's table, consolidated), so a round runs int(T x 360) =
// 6,229 steps in 359.991782 s; after two rounds 5 steps are left for 8 workers (5 // 8 = 0), and
// each of the next micro-tasks fails after 5 / T = 0.288964 s; the fifth drops the job. Gavel's
// log on this trace (run_gavel.sh with -c 8:0:0, fifo_perf): "[Job failed] Job ID: 0" at
// 721.4283863072334 s, after the two successful micro-tasks and five failed ones.
TEST(CliGavelCompatTest, AJobWithFewerStepsLeftThanGpusIsDroppedAsInGavel) {
  const std::string dir = FreshDir("gavel_compat_drop");
  WriteWholeFile(dir + "/drop.trace",
                 "ResNet-50 (batch size 64)\tcd %s/x && python3 main.py\t--num_steps\t1\t12463\t0.000000\t8\n");
  const auto r = RunCli({"simulate", "--compat", "gavel", "--policy", "gavel-fifo-perf", "--gpus", "v100=8",
                         "--gpus-per-server", "8", "--trace", dir + "/drop.trace", "-o", dir + "/out"},
                        dir + "/cap");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 job(s) dropped unfinished"), std::string::npos) << r.out;
  const auto summary = nlohmann::json::parse(ReadWholeFile(dir + "/out/summary.json"));
  EXPECT_EQ(summary["jobs_finished"], 0);
  EXPECT_EQ(summary["jobs_dropped"], 1);
  const auto run = nlohmann::json::parse(ReadWholeFile(dir + "/out/run.json"));
  EXPECT_NEAR(run["jobs"][0]["dropped_s"].get<double>(), 721.4283863072334, 1e-6);
  fs::remove_all(dir);
}

// A job that Gavel's measured table (the policy's view under --compat gavel) has no throughput
// for at its GPU count on any type of the cluster can never be given a share: Gavel's simulator
// would loop for ever. The run stops when nothing else can progress, as an input error (exit 1,
// not 3: the workload, not a bug), naming the job and why, and writes nothing.
TEST(CliGavelCompatTest, AJobThePolicyCanNeverPlaceIsAnInputError) {
  const std::string dir = FreshDir("gavel_compat_never");
  WriteWholeFile(dir + "/never.trace",
                 "Recommendation (batch size 8192)\tcd %s/x && python3 train.py --batch_size 8192\t-n\t1\t557847\t"
                 "1456.000000\t4\n");
  const auto r = RunCli({"simulate", "--compat", "gavel", "--policy", "gavel-las", "--gpus", "v100=8",
                         "--gpus-per-server", "8", "--trace", dir + "/never.trace", "-o", dir + "/out"},
                        dir + "/cap");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("policy 'gavel-las' cannot run job 0 ('Recommendation (batch size 8192)', 4 GPU(s)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("can never give it a share"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out/summary.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetsched
