// Goodput jobs on several GPU types (Sia's setting): each type's truth from its own profile files,
// a model per type in what the job reports, Sia's policy choosing among the types. The second
// type's profiles are synthetic (tests/trace/two_type_profiles.h: Pollux's T4 times halved).
#include <gtest/gtest.h>

#include <filesystem>
#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../trace/two_type_profiles.h"
#include "hetsched/run/simulate_request.h"
#include "hetsched/sched/methods.h"
#include "hetsched/sim/simulator.h"

namespace hetsched {
namespace {

// A folder for this test: Sia-style profiles of cifar10 and bert ("slow": Pollux's T4 times,
// "fast": half of them), and `workload` written beside them.
std::string Prepare(const std::string& workload) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hetsched_goodput_types" / info->name();
  std::filesystem::remove_all(dir);
  for (const char* app : {"cifar10", "bert", "imagenet"}) {
    testing_util::MakeScaledProfiles((dir / "traces").string(), app, {{"slow", 1.0}, {"fast", 0.5}});
  }
  std::ofstream(dir / "workload.csv") << workload;
  return dir.string();
}

Result<RunRecord> RunOn(const std::string& dir, const std::string& gpus, const std::string& policy,
                        const std::string& types = "slow=t4,fast=a100-40gb",
                        const std::vector<std::pair<std::string, std::string>>& more = {}) {
  SimulateRequest r;
  std::vector<std::pair<std::string, std::string>> flags{{"--gpus", gpus},
                                                         {"--gpus-per-server", "4"},
                                                         {"--policy", policy},
                                                         {"--trace", dir + "/workload.csv"},
                                                         {"--profiles", dir + "/traces"},
                                                         {"--profile-types", types}};
  for (const auto& [flag, value] : more) {
    if (flag != "--policy-opt") {
      flags.emplace_back(flag, value);
      continue;
    }
    const size_t eq = value.find('=');  // KEY=VALUE, as the command line takes it
    r.methods.policy_options.Set(value.substr(0, eq), value.substr(eq + 1));
  }
  for (const auto& [flag, value] : flags) HETSCHED_RETURN_IF_ERROR(r.Set(flag, value));
  std::string report;
  HETSCHED_RETURN_IF_ERROR(r.Prepare(&report));
  HETSCHED_ASSIGN_OR_RETURN(SimInputs in, LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn()));
  HETSCHED_ASSIGN_OR_RETURN(Methods methods, CreateMethods(r.methods, in.options.seed));
  return Simulate(in.cluster, ModelZoo::BuiltIn(), in.workload, std::move(methods), in.options);
}

// One rigid job alone (its batch fixed, its GPU count its own): every step takes half as long on
// the type whose times are halved, so after the same 30 s re-allocation delay its training takes
// exactly half as long: (JCT_fast - 30) = (JCT_slow - 30) / 2.
TEST(GoodputTypesTest, AJobRunsAtItsTypesOwnTimes) {
  const std::string dir = Prepare("name,time,application,num_replicas,batch_size,category\ncifar10-0,0,cifar10,2,256,rigid\n");
  auto slow = RunOn(dir, "t4=4", "fifo");
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  auto fast = RunOn(dir, "a100-40gb=4", "fifo");
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  ASSERT_TRUE(slow->jobs[0].finished() && fast->jobs[0].finished());
  EXPECT_EQ(slow->jobs[0].device_type_name, "t4");
  EXPECT_EQ(fast->jobs[0].device_type_name, "a100-40gb");
  const double slow_train = slow->jobs[0].jct_s() - 30, fast_train = fast->jobs[0].jct_s() - 30;
  EXPECT_GT(slow_train, 1000);
  EXPECT_NEAR(fast_train, slow_train / 2, 1e-9 * slow_train);
  // Its ideal run (for slowdowns) is on the faster type of those it may use.
  auto both = RunOn(dir, "t4=4,a100-40gb=4", "fifo");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_NEAR(both->jobs[0].ideal_runtime_s, fast->jobs[0].jct_s(), 1e-6 * fast_train);
  // A cluster of a type the profiles do not cover cannot run it.
  auto none = RunOn(dir, "v100=4", "fifo");
  EXPECT_FALSE(none.ok());
}

// A goodput job's memory is its profile's: imagenet (the zoo's resnet50) at 267 samples a GPU
// would not fit an 11 GB RTX 2080 Ti by the zoo's estimate, but runs there at the local batches
// its profiles measured (Sia's imagenet runs so on its rtx nodes).
TEST(GoodputTypesTest, AGoodputJobsMemoryIsItsProfiles) {
  const std::string dir = Prepare("name,time,application,num_replicas,batch_size\nimagenet-0,0,imagenet,12,3200\n");
  auto run = RunOn(dir, "rtx-2080ti=12", "fifo", "slow=rtx-2080ti");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->jobs[0].finished());
}

// Sia's policy on 8 T4 and 8 "fast" GPUs: every job finishes, the run repeats (CBC is
// deterministic), and jobs end on both types (a job offered a type it has not run on gets one GPU
// there, as in Sia, and its model there once it has measured itself).
TEST(GoodputTypesTest, SiaChoosesAmongTheTypes) {
  std::string workload = "name,time,application,num_replicas,batch_size\n";
  for (int i = 0; i < 8; ++i) {
    workload += (i % 2 ? "bert-" : "cifar10-") + std::to_string(i) + "," + std::to_string(120 * i) +
                (i % 2 ? ",bert,1,12\n" : ",cifar10,1,128\n");
  }
  const std::string dir = Prepare(workload);
  auto run = RunOn(dir, "t4=8,a100-40gb=8", "sia");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::set<std::string> types;
  double gpu_s = 0;
  for (const JobRecord& j : run->jobs) {
    ASSERT_TRUE(j.finished()) << j.name;
    types.insert(j.device_type_name);
    gpu_s += j.gpu_seconds;
  }
  EXPECT_EQ(types, (std::set<std::string>{"a100-40gb", "t4"}));
  EXPECT_GT(gpu_s, 0);
  auto again = RunOn(dir, "t4=8,a100-40gb=8", "sia");
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < run->jobs.size(); ++i) EXPECT_EQ(run->jobs[i].finish_s, again->jobs[i].finish_s);
}

// sia-plus (docs/goodput.md, "sia-plus") with every part off is Sia's policy, to the second; with
// its parts it finishes every job, repeats, resizes jobs inside their type at the elastic price,
// and lends idle GPUs of the other type. A part's value is one of two words.
TEST(GoodputTypesTest, SiaPlusIsSiaWithParts) {
  std::string workload = "name,time,application,num_replicas,batch_size\n";
  for (int i = 0; i < 8; ++i) {
    workload += (i % 2 ? "bert-" : "cifar10-") + std::to_string(i) + "," + std::to_string(150 * i) +
                (i % 2 ? ",bert,2,24\n" : ",cifar10,4,512\n");
  }
  const std::string dir = Prepare(workload);
  const std::string types = "slow=t4,fast=a100-40gb";
  auto sia = RunOn(dir, "t4=8,a100-40gb=8", "sia");
  ASSERT_TRUE(sia.ok()) << sia.status().ToString();
  auto off = RunOn(dir, "t4=8,a100-40gb=8", "sia-plus", types,
                   {{"--policy-opt", "resize=restart"}, {"--policy-opt", "moves=sia"}, {"--policy-opt", "start=one"},
                    {"--policy-opt", "handover=off"}, {"--policy-opt", "split=off"}, {"--policy-opt", "history=off"},
                    {"--policy-opt", "remaining=0"}});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  ASSERT_EQ(off->jobs.size(), sia->jobs.size());
  for (size_t i = 0; i < sia->jobs.size(); ++i) {
    EXPECT_EQ(off->jobs[i].finish_s, sia->jobs[i].finish_s) << sia->jobs[i].name;
    EXPECT_EQ(off->jobs[i].preemptions, sia->jobs[i].preemptions) << sia->jobs[i].name;
  }
  struct Changes {
    int resizes = 0, preemptions = 0;
    double pause_s = 0;
  };
  auto count = [](const RunRecord& run) {
    Changes c;
    for (const JobRecord& j : run.jobs) {
      EXPECT_TRUE(j.finished()) << j.name;
      c.resizes += j.resizes;
      c.preemptions += j.preemptions;
      c.pause_s += j.resize_pause_s;
    }
    return c;
  };
  auto elastic = RunOn(dir, "t4=8,a100-40gb=8", "sia-plus", types,
                       {{"--policy-opt", "handover=off"}, {"--policy-opt", "split=off"}, {"--policy-opt", "remaining=0"}});
  ASSERT_TRUE(elastic.ok()) << elastic.status().ToString();
  const Changes e = count(*elastic);
  // Each at the elastic price (10 s and a broadcast of milliseconds), not the 30 s restart.
  ASSERT_GT(e.resizes, 0);
  EXPECT_GT(e.pause_s / e.resizes, 10);
  EXPECT_LT(e.pause_s / e.resizes, 10.5);
  // With hand-overs (the default), moves between the two nodes (types) keep the job's state: fewer
  // restarts, and each change costs one rendezvous (a resize) or two (a hand-over), never 30 s.
  auto plus = RunOn(dir, "t4=8,a100-40gb=8", "sia-plus", types, {{"--policy-opt", "split=off"}, {"--policy-opt", "remaining=0"}});
  ASSERT_TRUE(plus.ok()) << plus.status().ToString();
  const Changes h = count(*plus);
  ASSERT_GT(e.preemptions, 0);
  EXPECT_LT(h.preemptions, e.preemptions);
  ASSERT_GT(h.resizes, e.resizes);
  EXPECT_GT(h.pause_s / h.resizes, 10.5);
  EXPECT_LT(h.pause_s / h.resizes, 20.5);
  // Split jobs (the default, docs/goodput.md "Split jobs"): running jobs borrow the other type's
  // idle GPUs, each loan and its return an elastic resize; every job finishes, and the run repeats.
  // (The lean toward jobs near their end off in these three runs, each part measured on its own.)
  auto split = RunOn(dir, "t4=8,a100-40gb=8", "sia-plus", types, {{"--policy-opt", "remaining=0"}});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  const Changes l = count(*split);
  EXPECT_GT(l.resizes, h.resizes);
  auto again = RunOn(dir, "t4=8,a100-40gb=8", "sia-plus", types, {{"--policy-opt", "remaining=0"}});
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < split->jobs.size(); ++i) EXPECT_EQ(split->jobs[i].finish_s, again->jobs[i].finish_s);
  // The default, the lean on: every job finishes, and the run repeats.
  auto lean = RunOn(dir, "t4=8,a100-40gb=8", "sia-plus");
  auto lean_again = RunOn(dir, "t4=8,a100-40gb=8", "sia-plus");
  ASSERT_TRUE(lean.ok() && lean_again.ok());
  for (size_t i = 0; i < lean->jobs.size(); ++i) {
    EXPECT_TRUE(lean->jobs[i].finished()) << lean->jobs[i].name;
    EXPECT_EQ(lean->jobs[i].finish_s, lean_again->jobs[i].finish_s);
  }
  auto bad = RunOn(dir, "t4=8", "sia-plus", types, {{"--policy-opt", "resize=sometimes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("option 'resize' must be 'elastic' or 'restart'"), std::string::npos)
      << bad.status().ToString();
  bad = RunOn(dir, "t4=8", "sia-plus", types, {{"--policy-opt", "history=maybe"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("option 'history' must be 'on' or 'off'"), std::string::npos)
      << bad.status().ToString();
  bad = RunOn(dir, "t4=8", "sia-plus", types, {{"--policy-opt", "split_gain=-1"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("option 'split_gain' must be"), std::string::npos) << bad.status().ToString();
  for (const char* value : {"remaining=-0.5", "remaining=5", "remaining=nan", "remaining=half"}) {
    bad = RunOn(dir, "t4=8", "sia-plus", types, {{"--policy-opt", value}});
    ASSERT_FALSE(bad.ok()) << value;
    EXPECT_NE(bad.status().message().find("option 'remaining'"), std::string::npos) << bad.status().ToString();
  }
}

// Sia's simulator's Gavel (gavel-throughput, mechanism=sia) on one 4-GPU node of each type, two
// rigid 4-GPU jobs arriving at 0. The LP sums steps per second; both types are needed, and the
// fast type doubles every job's rate, so the job with more steps per second (cifar10's small
// steps against bert's) gains more there: X = 1 for cifar10 on a100 and bert on t4, a unique
// optimum. The first round is at 360 s; both are chosen (priority X / (180 / 360) = 2), and each
// round after keeps them (their priorities stay the only ones above 0). So cifar10 ends 360 s
// after it would alone on a100 from 0 (fifo), never moved; once it has ended, the next round's
// LP gives bert the a100s, and bert moves there (one preemption) and ends sooner than on t4.
TEST(GoodputTypesTest, SiasGavelGivesTheFastTypeToTheJobThatGainsMost) {
  const std::string dir =
      Prepare("name,time,application,num_replicas,batch_size\nbert-0,0,bert,4,48\ncifar10-1,0,cifar10,4,512\n");
  const std::vector<std::pair<std::string, std::string>> sia_gavel{{"--policy-opt", "mechanism=sia"}};
  auto run = RunOn(dir, "t4=4,a100-40gb=4", "gavel-throughput", "slow=t4,fast=a100-40gb", sia_gavel);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->jobs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(run->jobs[i].finished()) << run->jobs[i].name;
    EXPECT_EQ(run->jobs[i].first_start_s, 360) << run->jobs[i].name;
    EXPECT_EQ(run->jobs[i].device_type_name, "a100-40gb") << run->jobs[i].name;
  }
  EXPECT_EQ(run->jobs[1].preemptions, 0);
  EXPECT_EQ(run->jobs[0].preemptions, 1);
  // Each alone on its type, from 0.
  std::ofstream(dir + "/workload.csv") << "name,time,application,num_replicas,batch_size\nbert-0,0,bert,4,48\n";
  auto bert = RunOn(dir, "t4=4", "fifo");
  std::ofstream(dir + "/workload.csv") << "name,time,application,num_replicas,batch_size\ncifar10-1,0,cifar10,4,512\n";
  auto cifar = RunOn(dir, "a100-40gb=4", "fifo");
  ASSERT_TRUE(bert.ok() && cifar.ok());
  EXPECT_NEAR(run->jobs[1].finish_s, 360 + cifar->jobs[0].finish_s, 1e-6);
  EXPECT_GT(run->jobs[0].finish_s, run->jobs[1].finish_s);
  EXPECT_LT(run->jobs[0].finish_s, 360 + bert->jobs[0].finish_s);
  // The mechanism is one of three.
  auto bad = RunOn(dir, "t4=4", "gavel-throughput", "slow=t4,fast=a100-40gb", {{"--policy-opt", "mechanism=sai"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'hetsched', 'gavel' or 'sia'"), std::string::npos) << bad.status().ToString();
}

// Sia's heterogeneity-unaware Pollux (pollux, unaware=true) on a 4-GPU t4 node and an 8-GPU a100
// node (three virtual nodes of 4): every job finishes, each on one type at a time, and the run
// repeats with its seed. A cluster whose nodes are not whole multiples of the smallest (4 and 6)
// is refused, naming the node.
TEST(GoodputTypesTest, UnawarePolluxRunsOnVirtualNodes) {
  std::string workload = "name,time,application,num_replicas,batch_size\n";
  for (int i = 0; i < 6; ++i) {
    workload += (i % 2 ? "bert-" : "cifar10-") + std::to_string(i) + "," + std::to_string(200 * i) +
                (i % 2 ? ",bert,1,12\n" : ",cifar10,1,128\n");
  }
  const std::string dir = Prepare(workload);
  auto cluster = [&](int a100_gpus) {
    const std::string path = dir + "/cluster-" + std::to_string(a100_gpus) + ".yaml";
    std::ofstream(path) << "name: two\nracks:\n  - name: r\n    nodes:\n      - device: t4\n        num_devices: 4\n"
                           "      - device: a100-40gb\n        num_devices: "
                        << a100_gpus << "\n";
    return path;
  };
  auto run = [&](int a100_gpus) -> Result<RunRecord> {
    SimulateRequest r;
    for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
             {"--cluster", cluster(a100_gpus)},
             {"--policy", "pollux"},
             {"--trace", dir + "/workload.csv"},
             {"--profiles", dir + "/traces"},
             {"--profile-types", "slow=t4,fast=a100-40gb"}}) {
      HETSCHED_RETURN_IF_ERROR(r.Set(flag, value));
    }
    r.methods.policy_options.Set("unaware", "true");
    r.methods.policy_options.Set("max_replicas", "4");  // within the synthetic profiles (4-GPU nodes)
    r.methods.policy_options.Set("population", "20");   // a small search: the test's time
    r.methods.policy_options.Set("generations", "20");
    std::string report;
    HETSCHED_RETURN_IF_ERROR(r.Prepare(&report));
    HETSCHED_ASSIGN_OR_RETURN(SimInputs in, LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn()));
    HETSCHED_ASSIGN_OR_RETURN(Methods methods, CreateMethods(r.methods, in.options.seed));
    return Simulate(in.cluster, ModelZoo::BuiltIn(), in.workload, std::move(methods), in.options);
  };
  auto first = run(8);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::set<std::string> types;
  for (const JobRecord& j : first->jobs) {
    ASSERT_TRUE(j.finished()) << j.name;
    types.insert(j.device_type_name);
  }
  EXPECT_FALSE(types.empty());
  auto again = run(8);
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < first->jobs.size(); ++i) EXPECT_EQ(first->jobs[i].finish_s, again->jobs[i].finish_s);
  auto uneven = run(6);
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.status().message().find("not a multiple of the smallest node's 4"), std::string::npos)
      << uneven.status().ToString();
}

// `--compat sia` as a user runs it, on profiles laid out as Sia's (suffixes aws, dgx-ext and rtx;
// synthetic: Pollux's T4 times, 0.4 and 0.7 of them): Sia's cluster of 64 GPUs, its settings
// reported, every job finished on whole seconds, the run repeatable. A job alone (its ideal run)
// pays its application's own delay (cifar10 50 s, bert 120 s; Pollux's settings: 30 s) and
// trains its calibration's slowdown (1.8, 1.2) longer than under Pollux's settings.
TEST(GoodputTypesTest, SiaCompatRunsOnSiasLayout) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "hetsched_goodput_types" / info->name();
  std::filesystem::remove_all(dir);
  for (const char* app : {"cifar10", "bert"}) {
    testing_util::MakeScaledProfiles((dir / "traces").string(), app, {{"aws", 1.0}, {"dgx-ext", 0.4}, {"rtx", 0.7}});
  }
  std::string workload = "name,time,application,num_replicas,batch_size\n";
  for (int i = 0; i < 6; ++i) {
    workload += (i % 2 ? "bert-" : "cifar10-") + std::to_string(i) + "," + std::to_string(300 * i) +
                (i % 2 ? ",bert,1,12\n" : ",cifar10,1,128\n");
  }
  std::ofstream(dir / "workload.csv") << workload;
  auto prepare = [&](std::vector<std::pair<std::string, std::string>> more) -> Result<SimulateRequest> {
    SimulateRequest r;
    std::vector<std::pair<std::string, std::string>> flags{{"--compat", "sia"},
                                                           {"--policy", "sia"},
                                                           {"--trace", (dir / "workload.csv").string()},
                                                           {"--profiles", (dir / "traces").string()}};
    flags.insert(flags.end(), more.begin(), more.end());
    for (const auto& [flag, value] : flags) HETSCHED_RETURN_IF_ERROR(r.Set(flag, value));
    std::string report;
    HETSCHED_RETURN_IF_ERROR(r.Prepare(&report));
    EXPECT_NE(report.find("--profile-types aws=t4,dgx-ext=a100-40gb,rtx=rtx-2080ti"), std::string::npos) << report;
    return r;
  };
  // Sia's cluster, from the project's description of it.
  auto own = prepare({});
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  auto inputs = LoadSimInputs(own->cluster, own->workload, own->sim, ModelZoo::BuiltIn());
  ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
  EXPECT_EQ(inputs->cluster.num_devices(), 64);
  EXPECT_EQ(inputs->cluster.num_nodes(), 11);
  // The runs: the same GPUs on 4-GPU nodes, the synthetic profiles' (Pollux measured no 8-GPU node).
  auto run = [&](std::vector<std::pair<std::string, std::string>> more) -> Result<RunRecord> {
    more.insert(more.end(), {{"--gpus", "t4=24,a100-40gb=16,rtx-2080ti=24"}, {"--gpus-per-server", "4"}});
    HETSCHED_ASSIGN_OR_RETURN(SimulateRequest r, prepare(std::move(more)));
    HETSCHED_ASSIGN_OR_RETURN(SimInputs in, LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn()));
    HETSCHED_ASSIGN_OR_RETURN(Methods methods, CreateMethods(r.methods, in.options.seed));
    return Simulate(in.cluster, ModelZoo::BuiltIn(), in.workload, std::move(methods), in.options);
  };
  auto sia = run({});
  ASSERT_TRUE(sia.ok()) << sia.status().ToString();
  for (const JobRecord& j : sia->jobs) {
    ASSERT_TRUE(j.finished()) << j.name;
    EXPECT_EQ(j.finish_s, std::nearbyint(j.finish_s)) << j.name;
  }
  auto again = run({});
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < sia->jobs.size(); ++i) EXPECT_EQ(sia->jobs[i].finish_s, again->jobs[i].finish_s);
  // Pollux's settings on the same profiles: other delays, no calibration: every job sooner.
  auto pollux = run({{"--profile-settings", "pollux"}});
  ASSERT_TRUE(pollux.ok()) << pollux.status().ToString();
  double sia_jct = 0, pollux_jct = 0;
  for (size_t i = 0; i < sia->jobs.size(); ++i) {
    sia_jct += sia->jobs[i].jct_s();
    pollux_jct += pollux->jobs[i].jct_s();
    const bool bert = sia->jobs[i].name.rfind("bert", 0) == 0;
    const double train = pollux->jobs[i].ideal_runtime_s - 30;
    EXPECT_GT(train, 100);
    EXPECT_NEAR(sia->jobs[i].ideal_runtime_s, (bert ? 120 : 50) + (bert ? 1.2 : 1.8) * train, 1e-6 * train)
        << sia->jobs[i].name;
  }
  EXPECT_LT(pollux_jct, sia_jct);
}

}  // namespace
}  // namespace hetsched
