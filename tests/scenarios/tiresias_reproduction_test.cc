// Regression against Tiresias' own simulator (SymbioticLab/Tiresias @ 959f9b0, simulator/): the
// first 100 jobs of three Gavel msr traces (tests/data/tiresias/, SOURCES.md there) on 16 V100s
// in 4 servers of 4 (Tiresias' cluster file n4g4.csv), run the way `--compat tiresias` runs them:
// no preemption cost, no link contention, completions on whole seconds, the `yarn` placer (and,
// for fifo, fjf and lpjf, the peer's count, random, crandom and greedy schemes: tiresias-count,
// -random, -crandom), fifo without backfilling, fjf, dlas, dlas-gpu, their starvation variants,
// dlas-gpu-gittins and gittins counting devices (placement=count), multi-dlas-gpu, the tiresias-*
// reproductions of the peer's sjf, shortest, shortest-gpu, shortest-expected and lpjf (shortest
// with durations=TRACE), and tiresias-gandiva (the peer's gandiva schedule). The peer's figures
// are stored below with the command that produced them; ours must stay within the targets of
// issue 18 (average JCT within 2 %, makespan within 5 %) and, as every pair has so far, give them
// to the printed digit (docs/validation.md, "Tiresias").
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "hetsched/metrics/summary.h"
#include "hetsched/sim/runner.h"
#include "scenario_util.h"

namespace hetsched {
namespace {

struct PeerFigure {
  const char* trace;   // tests/data/tiresias/<trace>.tiresias.csv
  const char* policy;  // the peer's --schedule
  double avg_jct_s;
  double makespan_s;
  const char* ours = nullptr;  // our policy when its name differs from the peer's
  const char* placer = "yarn";  // ours for the peer's --scheme (yarn unless said)
  const char* placer_option = nullptr;
  int gpus = 16;  // 4 a server
};

// cd simulator && python3 run_sim.py --cluster_spec=n4g4.csv --scheme=yarn
//   --trace_file=<trace>.tiresias.csv --schedule=<policy> --log_path=out
// (Tiresias converted to Python 3 with lib2to3); average of job.csv's JCT column, and
// max(end_time) - min(submit_time). Measured 2026-11-25.
constexpr PeerFigure kPeer[] = {
    {"s6c71a0", "fifo", 3828609.1, 9007031},  {"s6c71a0", "dlas", 1320935.1, 5640939},
    {"s6c71a0", "dlas-gpu", 1661373.4, 5621080}, {"s11cb48", "fifo", 155698.1, 4263766},
    {"s11cb48", "dlas", 130772.8, 4265122},   {"s11cb48", "dlas-gpu", 130807.4, 4264579},
    {"sb436b2", "fifo", 2040450.4, 3577321},  {"sb436b2", "dlas", 484662.2, 2800329},
    {"sb436b2", "dlas-gpu", 469490.4, 2793134},
    // --schedule=fjf, measured 2026-12-03 (every job starts and ends at the peer's second).
    {"s6c71a0", "fjf", 2287852.9, 5588849},   {"s11cb48", "fjf", 131956.2, 4263766},
    {"sb436b2", "fjf", 536771.6, 2839147},
    // --schedule=lpjf, measured 2026-12-04 (every job starts and ends at the peer's second).
    {"s6c71a0", "lpjf", 4092531.6, 8092887, "tiresias-lpjf"},
    {"s11cb48", "lpjf", 155754.4, 4263766, "tiresias-lpjf"},
    {"sb436b2", "lpjf", 2107349.6, 3670512, "tiresias-lpjf"},
    // --schedule=sjf, shortest, shortest-gpu, measured 2026-12-04 with the peer's memory leak
    // fixed (cluster.py:98: node.init_node(..., self.mem_p_node)); unfixed, the peer stops after
    // 1, 13 and 7 (sjf), 5, 16 and 1 (shortest), 5, 16 and 5 (shortest-gpu) jobs.
    {"s6c71a0", "sjf", 2222483.2, 5588849, "tiresias-sjf"},
    {"s11cb48", "sjf", 130975.7, 4263766, "tiresias-sjf"},
    {"sb436b2", "sjf", 474622.6, 2798270, "tiresias-sjf"},
    {"s6c71a0", "shortest", 844873.1, 7397320, "tiresias-shortest"},
    {"s11cb48", "shortest", 130751.8, 4338720, "tiresias-shortest"},
    {"sb436b2", "shortest", 384529.5, 3156253, "tiresias-shortest"},
    {"s6c71a0", "shortest-gpu", 844946.8, 7399518, "tiresias-shortest-gpu"},
    {"s11cb48", "shortest-gpu", 130674.6, 4338720, "tiresias-shortest-gpu"},
    {"sb436b2", "shortest-gpu", 387498.0, 2929767, "tiresias-shortest-gpu"},
    // --schedule=dlas-gpu-gittins, dlas-gpu-gittins-N and dlas-gpu-N (N = 05, 10, 100, 1000; the
    // peer's dlas-gpu-1, -2, -4, -8 are its dlas-gpu-gittins-N), measured 2026-12-04 with the
    // peer as published (it reads simulator/yarn-gput1000.csv, our default distribution).
    // --schedule=gittins and shortest-expected, measured 2026-12-04 with the peer fixed as above
    // (cluster.py:98) and, for gittins, JOBS.job_dist_data = job_dist_data added at
    // run_sim.py:2075 (as published it stops with a TypeError at run_sim.py:1246, on its first
    // ranking); unfixed, shortest-expected stops after 1, 14 and 8 jobs. Every job starts and
    // ends at the peer's second (docs/validation.md, "Gittins, expected-length, starvation and
    // multi-class variants").
    {"s6c71a0", "dlas-gpu-gittins", 949145.8, 6039902},
    {"s11cb48", "dlas-gpu-gittins", 130721.5, 4310660},
    {"sb436b2", "dlas-gpu-gittins", 608521.3, 2909051},
    {"s6c71a0", "gittins", 2222483.2, 5588849},
    {"s11cb48", "gittins", 135561.2, 4263766},
    {"sb436b2", "gittins", 535660.3, 2839147},
    {"s6c71a0", "shortest-expected", 2196462.5, 5473157, "tiresias-shortest-expected"},
    {"s11cb48", "shortest-expected", 132772.4, 4263766, "tiresias-shortest-expected"},
    {"sb436b2", "shortest-expected", 527446.1, 2898611, "tiresias-shortest-expected"},
    {"s6c71a0", "dlas-gpu-gittins-1", 936828.6, 5814948},
    {"s11cb48", "dlas-gpu-gittins-1", 130606.9, 4264579},
    {"sb436b2", "dlas-gpu-gittins-1", 687860.1, 2868776},
    {"s6c71a0", "dlas-gpu-gittins-2", 945374.4, 5384638},
    {"s11cb48", "dlas-gpu-gittins-2", 130707.3, 4264579},
    {"sb436b2", "dlas-gpu-gittins-2", 687166.4, 2946699},
    {"s6c71a0", "dlas-gpu-gittins-4", 989489.3, 5202490},
    {"s11cb48", "dlas-gpu-gittins-4", 130677.8, 4264579},
    {"sb436b2", "dlas-gpu-gittins-4", 685938.9, 2980363},
    {"s6c71a0", "dlas-gpu-gittins-8", 1026287.1, 5450587},
    {"s11cb48", "dlas-gpu-gittins-8", 130762.2, 4264579},
    {"sb436b2", "dlas-gpu-gittins-8", 669638.4, 2947483},
    {"s6c71a0", "dlas-gpu-05", 1038114.4, 6227608},
    {"s11cb48", "dlas-gpu-05", 130924.9, 4264579},
    {"sb436b2", "dlas-gpu-05", 688796.0, 2884949},
    {"s6c71a0", "dlas-gpu-10", 1075443.5, 5600165},
    {"s11cb48", "dlas-gpu-10", 130780.1, 4264579},
    {"sb436b2", "dlas-gpu-10", 666598.0, 2845560},
    {"s6c71a0", "dlas-gpu-100", 1329311.1, 6067676},
    {"s11cb48", "dlas-gpu-100", 130807.4, 4264579},
    {"sb436b2", "dlas-gpu-100", 490690.8, 2960907},
    {"s6c71a0", "dlas-gpu-1000", 1548809.3, 5626829},
    {"s11cb48", "dlas-gpu-1000", 130807.4, 4264579},
    {"sb436b2", "dlas-gpu-1000", 470941.8, 2819024},
    // --schedule=dlas-gpu-pack, measured 2026-12-04 (the peer as published): dlas-gpu's figures,
    // every model's GPU share being 1 (models.py:22).
    {"s6c71a0", "dlas-gpu-pack", 1661373.4, 5621080},
    {"s11cb48", "dlas-gpu-pack", 130807.4, 4264579},
    {"sb436b2", "dlas-gpu-pack", 469490.4, 2793134},
    // --schedule=multi-dlas-gpu with --scheme=count (the peer refuses it with yarn,
    // run_sim.py:2014-2017), measured 2026-12-04 (the peer as published).
    {"s6c71a0", "multi-dlas-gpu", 1964797.1, 5593400},
    {"s11cb48", "multi-dlas-gpu", 132716.0, 4265987},
    {"sb436b2", "multi-dlas-gpu", 537302.5, 2845526},
    // --schedule=fifo with the other placement schemes, measured 2026-12-04 (docs/validation.md,
    // "Placement schemes"). --scheme=count (the peer as published) is tiresias-count. --scheme=random
    // and crandom (tiresias-random, -crandom with seed=1), the peer seeded, as it never seeds its
    // generator, and with node.py:155 reading node_dict.get('mem', 0) (as published each stops at
    // its first job end with KeyError: 'mem'):
    //   python3 -c 'import random,runpy,sys; random.seed(1); sys.argv=["run_sim.py"]+sys.argv[1:];
    //     runpy.run_path("run_sim.py", run_name="__main__")' --cluster_spec=n4g4.csv
    //     --scheme=random --trace_file=<trace>.tiresias.csv --schedule=fifo --log_path=out
    // Every job at the peer's second, and the same figures as count (cores never bind on n4g4's 40
    // a node).
    {"s6c71a0", "fifo", 2997573.6, 6920395, nullptr, "tiresias-count"},
    {"s11cb48", "fifo", 138873.2, 4263766, nullptr, "tiresias-count"},
    {"sb436b2", "fifo", 2040450.4, 3577321, nullptr, "tiresias-count"},
    {"s6c71a0", "fifo", 2997573.6, 6920395, nullptr, "tiresias-random", "seed=1"},
    {"s11cb48", "fifo", 138873.2, 4263766, nullptr, "tiresias-random", "seed=1"},
    {"sb436b2", "fifo", 2040450.4, 3577321, nullptr, "tiresias-random", "seed=1"},
    {"s6c71a0", "fifo", 2997573.6, 6920395, nullptr, "tiresias-crandom", "seed=1"},
    {"s11cb48", "fifo", 138873.2, 4263766, nullptr, "tiresias-crandom", "seed=1"},
    {"sb436b2", "fifo", 2040450.4, 3577321, nullptr, "tiresias-crandom", "seed=1"},
    // --scheme=greedy (the peer as published) starts every job at its arrival: its placement takes
    // nothing (cluster.py:1393-1403), so no GPU is ever in use. hetsched does not overbook
    // devices; the same run is any placer on a cluster larger than all jobs together (400 GPUs).
    {"s6c71a0", "fifo", 662323.2, 4948358, nullptr, "tiresias-count", nullptr, 400},
    {"s11cb48", "fifo", 129471.2, 4263766, nullptr, "tiresias-count", nullptr, 400},
    {"sb436b2", "fifo", 101935.2, 1402648, nullptr, "tiresias-count", nullptr, 400},
    // --schedule=fjf and lpjf with --scheme=count, and lpjf with greedy (its skip of the job after
    // each start still delays jobs: 662,621.4 s against fifo's 662,323.2 on s6c71a0), measured
    // 2026-12-04 as above (every job at the peer's second; random and crandom give count's figures).
    {"s6c71a0", "fjf", 2222483.2, 5588849, nullptr, "tiresias-count"},
    {"s11cb48", "fjf", 135561.2, 4263766, nullptr, "tiresias-count"},
    {"sb436b2", "fjf", 535660.3, 2839147, nullptr, "tiresias-count"},
    {"s6c71a0", "lpjf", 2989148.2, 6920395, "tiresias-lpjf", "tiresias-count"},
    {"s11cb48", "lpjf", 138873.2, 4263766, "tiresias-lpjf", "tiresias-count"},
    {"sb436b2", "lpjf", 2107345.5, 3670512, "tiresias-lpjf", "tiresias-count"},
    {"s6c71a0", "lpjf", 662621.4, 4948358, "tiresias-lpjf", "tiresias-count", nullptr, 400},
    {"s11cb48", "lpjf", 129471.2, 4263766, "tiresias-lpjf", "tiresias-count", nullptr, 400},
    {"sb436b2", "lpjf", 102404.0, 1402648, "tiresias-lpjf", "tiresias-count", nullptr, 400},
    // --schedule=gandiva --scheme=gandiva (the peer as published; the scheme must be gandiva too:
    // only gandiva_placement fills the node sets that time_slicing_execute runs), measured
    // 2026-12-05 (docs/validation.md, "tiresias-gandiva"):
    //   python3 run_sim.py --cluster_spec=n4g4.csv --scheme=gandiva --trace_file=<trace>.tiresias.csv
    //     --schedule=gandiva --log_path=out
    // Every job at the peer's second. tiresias-gandiva places jobs by its node sets (the placer is
    // not asked).
    {"s6c71a0", "gandiva", 2154899.5, 8350236, "tiresias-gandiva"},
    {"s11cb48", "gandiva", 163724.9, 4963556, "tiresias-gandiva"},
    {"sb436b2", "gandiva", 570129.0, 3190267, "tiresias-gandiva"},
};

class TiresiasReproductionTest : public ::testing::TestWithParam<PeerFigure> {};

TEST_P(TiresiasReproductionTest, WithinTargets) {
  const PeerFigure& peer = GetParam();
  const std::string trace = std::string("tests/data/tiresias/") + peer.trace + ".tiresias.csv";
  const Workload workload = scenario_util::MustReadTrace(trace, "tiresias", -1);
  ASSERT_EQ(workload.jobs.size(), 100u);
  auto cluster = MakeShorthandCluster({{"v100", peer.gpus}}, 4, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  MethodChoice choice;
  choice.policy = peer.ours != nullptr ? peer.ours : peer.policy;
  // dlas, its variants and gittins count devices; shortest and shortest-gpu read true durations.
  const bool fifo = choice.policy == "fifo";
  const bool dlas = choice.policy.rfind("dlas", 0) == 0 || choice.policy == "gittins";
  const bool shortest = choice.policy == "tiresias-shortest" || choice.policy == "tiresias-shortest-gpu";
  choice.policy_options =
      *Options::Parse(fifo       ? std::vector<std::string>{"backfill=none"}
                      : dlas     ? std::vector<std::string>{"placement=count"}
                      : shortest ? std::vector<std::string>{"durations=" + scenario_util::SourcePath(trace)}
                                 : std::vector<std::string>{});
  choice.placer = peer.placer;
  if (peer.placer_option != nullptr) choice.placer_options = *Options::Parse({peer.placer_option});
  SimOptions options;
  options.restart_cost_s = 0;
  options.contention = false;
  options.whole_second_completions = true;
  auto run = RunSimulation(*cluster, ModelZoo::BuiltIn(), workload, choice, options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const Summary summary = Summarize(*run);
  ASSERT_EQ(summary.jobs_finished, 100);
  EXPECT_LE(std::abs(summary.jct_s.mean / peer.avg_jct_s - 1), 0.02)
      << "average JCT " << summary.jct_s.mean << " s vs the peer's " << peer.avg_jct_s << " s";
  EXPECT_LE(std::abs(summary.makespan_s / peer.makespan_s - 1), 0.05)
      << "makespan " << summary.makespan_s << " s vs the peer's " << peer.makespan_s << " s";
  EXPECT_NEAR(summary.jct_s.mean, peer.avg_jct_s, 0.051);  // the peer's figure, printed to 0.1 s
  EXPECT_NEAR(summary.makespan_s, peer.makespan_s, 0.5);
}

INSTANTIATE_TEST_SUITE_P(Peer, TiresiasReproductionTest, ::testing::ValuesIn(kPeer),
                         [](const ::testing::TestParamInfo<PeerFigure>& param_info) {
                           const PeerFigure& p = param_info.param;
                           std::string name =
                               std::string(p.trace) + "_" + (p.ours != nullptr ? p.ours : p.policy);
                           if (std::string(p.placer) != "yarn") name += std::string("_") + p.placer;
                           if (p.gpus != 16) name += "_" + std::to_string(p.gpus) + "gpus";
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace hetsched
