// run/: a simulation request's settings by flag (checked as the command line checks them), the
// relations between them, a compat profile applied to what was not given, --round folded into the
// policy's options, and the inputs loaded from the request.
#include <gtest/gtest.h>

#include "hetsched/run/compat_apply.h"
#include "hetsched/run/sim_inputs.h"
#include "hetsched/run/simulate_request.h"
#include "hetsched/run/value_checks.h"

namespace hetsched {
namespace {

TEST(SimulateRequestTest, SettingsGoToTheirFieldsAndAreRecordedAsGiven) {
  SimulateRequest r;
  ASSERT_TRUE(r.Set("--gpus", "v100=8,k80=4").ok());
  ASSERT_TRUE(r.Set("--gpus-per-server", "2").ok());
  ASSERT_TRUE(r.Set("--restart-cost", "12.5").ok());
  ASSERT_TRUE(r.Set("--no-contention", "true").ok());
  ASSERT_TRUE(r.Set("--seed", "18446744073709551615").ok());
  ASSERT_TRUE(r.Set("--policy", "srtf").ok());
  EXPECT_EQ(r.cluster.gpus, "v100=8,k80=4");
  EXPECT_EQ(r.cluster.gpus_per_server, 2);
  EXPECT_EQ(r.sim.restart_cost_s, 12.5);
  EXPECT_TRUE(r.sim.no_contention);
  EXPECT_EQ(r.workload.seed, 18446744073709551615ULL);
  EXPECT_EQ(r.methods.policy, "srtf");
  EXPECT_EQ(r.given().size(), 6u);
  EXPECT_EQ(r.given().at("--restart-cost"), "12.5");
}

TEST(SimulateRequestTest, ABadValueOrAnUnknownFlagIsRefusedNamingTheFlag) {
  SimulateRequest r;
  const Status nan = r.Set("--restart-cost", "nan");
  EXPECT_EQ(nan.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(nan.message(), "--restart-cost: must be a finite number >= 0, got 'nan'");
  EXPECT_EQ(r.Set("--gpus", "v100=8x").message(),
            "--gpus: entry 'v100=8x': the count must be a whole number >= 0");
  EXPECT_EQ(r.Set("--seed", "-1").message(), "--seed: must be a whole number in [0, 18446744073709551615], got '-1'");
  EXPECT_EQ(r.Set("--no-contention", "perhaps").message(), "--no-contention: must be true or false, got 'perhaps'");
  EXPECT_EQ(r.Set("--out", "x").message(), "--out: not a setting of a simulation");
  EXPECT_TRUE(r.given().empty());  // nothing refused is recorded
  EXPECT_EQ(r.sim.restart_cost_s, 30);
}

TEST(SimulateRequestTest, PrepareChecksWhatASettingNeedsOrExcludes) {
  std::string report;
  SimulateRequest needs;
  ASSERT_TRUE(needs.Set("--arrival-rate", "4").ok());
  EXPECT_EQ(needs.Prepare(&report).message(), "--arrival-rate requires --synthetic");
  SimulateRequest excludes;
  ASSERT_TRUE(excludes.Set("--trace", "a.csv").ok());
  ASSERT_TRUE(excludes.Set("--synthetic", "10").ok());
  EXPECT_EQ(excludes.Prepare(&report).message(), "--synthetic excludes --trace");
  SimulateRequest fine;
  ASSERT_TRUE(fine.Set("--synthetic", "10").ok());
  ASSERT_TRUE(fine.Set("--arrival-rate", "4").ok());
  EXPECT_TRUE(fine.Prepare(&report).ok());
  EXPECT_EQ(report, "");  // no compat profile
}

TEST(SimulateRequestTest, ACompatProfileSetsOnlyWhatWasNotGivenAndSaysSo) {
  SimulateRequest r;
  ASSERT_TRUE(r.Set("--compat", "gavel").ok());
  ASSERT_TRUE(r.Set("--policy", "gavel-las").ok());
  ASSERT_TRUE(r.Set("--restart-cost", "7").ok());
  std::string report;
  ASSERT_TRUE(r.Prepare(&report).ok()) << report;
  EXPECT_EQ(r.sim.restart_cost_s, 7);        // given: kept
  EXPECT_TRUE(r.sim.no_contention);          // the profile's
  EXPECT_TRUE(r.sim.assume_consolidated);    // the profile's
  EXPECT_EQ(r.workload.seed, 0u);            // the profile's --seed 0
  EXPECT_EQ(r.methods.policy_options.values().at("round"), "360");   // --round 360, folded in
  EXPECT_EQ(r.methods.policy_options.values().at("mechanism"), "gavel");
  EXPECT_FALSE(r.given().contains("--seed"));  // the profile's settings are not the user's
  EXPECT_NE(report.find("compat  : gavel: "), std::string::npos) << report;
  EXPECT_NE(report.find("  kept --restart-cost 7"), std::string::npos) << report;
  EXPECT_NE(report.find("  set  --no-contention true"), std::string::npos) << report;
  EXPECT_NE(report.find("[gavel-las]"), std::string::npos) << report;
}

TEST(SimulateRequestTest, AnUnknownProfileNamesCompat) {
  SimulateRequest r;
  ASSERT_TRUE(r.Set("--compat", "slurmsim").ok());
  std::string report;
  const Status st = r.Prepare(&report);
  EXPECT_EQ(st.message().rfind("--compat: ", 0), 0u) << st.message();
}

TEST(SimulateRequestTest, RoundIsThePolicyOptionRoundUnlessBothAreGiven) {
  MethodChoice choice;
  ASSERT_TRUE(FoldRoundIntoPolicy(0, &choice).ok());
  EXPECT_FALSE(choice.policy_options.Has("round"));
  ASSERT_TRUE(FoldRoundIntoPolicy(120, &choice).ok());
  EXPECT_EQ(choice.policy_options.values().at("round"), "120");
  EXPECT_EQ(FoldRoundIntoPolicy(60, &choice).message(), "--round and --policy-opt round=... both given: choose one");
}

TEST(SimulateRequestTest, InputsComeFromTheRequestWithTheirOptionsAndTable) {
  SimulateRequest r;
  ASSERT_TRUE(r.Set("--gpus", "v100=8").ok());
  ASSERT_TRUE(r.Set("--synthetic", "5").ok());
  ASSERT_TRUE(r.Set("--max-time", "1000").ok());
  auto in = LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn());
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_EQ(in->cluster.num_devices(), 8);
  EXPECT_EQ(in->workload.jobs.size(), 5u);
  EXPECT_EQ(in->options.max_time_s, 1000);
  ASSERT_NE(in->measured, nullptr);  // --throughputs auto: Gavel's table, built in
  EXPECT_EQ(in->options.measured_throughputs, in->measured.get());
  EXPECT_TRUE(in->measured->has_pairs());  // --pair-throughputs auto: Gavel's co-location table too
  EXPECT_NE(DescribeSimInputs(*in).find("cluster : "), std::string::npos);
  ASSERT_TRUE(r.Set("--pair-throughputs", "none").ok());
  auto no_pairs = LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn());
  ASSERT_TRUE(no_pairs.ok());
  EXPECT_FALSE(no_pairs->measured->has_pairs());
  ASSERT_TRUE(r.Set("--pair-throughputs", "no/such/pairs.csv").ok());
  auto missing = LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--pair-throughputs"), std::string::npos) << missing.status().message();
  r.sim.pair_throughputs = "auto";
  r.sim.throughputs = "none";
  auto none = LoadSimInputs(r.cluster, r.workload, r.sim, ModelZoo::BuiltIn());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->options.measured_throughputs, nullptr);
}

TEST(SimulateRequestTest, ATraceInMemoryIsReadAsAFileWouldBeAndNamedInErrors) {
  WorkloadSource w;
  w.text = "submit_time_s,model,num_gpus,iterations\n0,resnet50,1,100\n5,resnet50,x,100\n";
  w.text_origin = "DataFrame";
  w.format = "native";
  auto bad = w.Load(DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("DataFrame:3: field 'num_gpus'", 0), 0u) << bad.status().message();
  w.text = "submit_time_s,model,num_gpus,iterations\n0,resnet50,1,100\n";
  auto good = w.Load(DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn());
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->jobs.size(), 1u);
  w.trace = "also.csv";
  EXPECT_FALSE(w.Load(DeviceCatalog::BuiltIn(), ModelZoo::BuiltIn()).ok());  // one source only
}

TEST(ValueChecksTest, EachCheckSaysWhatItExpects) {
  EXPECT_EQ(WholeAtLeastCheck(1).check("0"), "must be a whole number >= 1, got '0'");
  EXPECT_EQ(WholeAtLeastCheck(1).check(" 3 "), "");
  EXPECT_EQ(NumberAboveCheck(0).check("inf"), "must be a finite number > 0, got 'inf'");
  EXPECT_EQ(NumberBetweenCheck(0, 1).check("0.5"), "");
  EXPECT_EQ(WholeInRangeCheck(1, 3).check("4"), "must be a whole number in [1, 3], got '4'");
  EXPECT_EQ(OneOfCheck({"stop", "skip"}).check("skip"), "");
  EXPECT_EQ(OneOfCheck({"stop", "skip"}).check("go"), "must be one of stop, skip, got 'go'");
  EXPECT_EQ(DeviceCountsCheck().check("v100=0"), "entry 'v100=0': the count must be >= 1");
  EXPECT_NE(DeviceCountsCheck().check("tpu9=4"), "");
  EXPECT_EQ(SeedCheck().check("18446744073709551616"),
            "must be a whole number in [0, 18446744073709551615], got '18446744073709551616'");
  EXPECT_TRUE(ParseBoolText("on") && !ParseBoolText("off"));
}

}  // namespace
TEST(SimulateRequestTest, ProfileTypesAsAUserWritesThem) {
  auto t = ParseProfileTypes("aws=t4, dgx-ext=a100-40gb,rtx=rtx-2080ti");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, (std::vector<std::pair<std::string, std::string>>{{"aws", "t4"}, {"dgx-ext", "a100-40gb"}, {"rtx", "rtx-2080ti"}}));
  auto bare = ParseProfileTypes("t4");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(*bare, (std::vector<std::pair<std::string, std::string>>{{"", "t4"}}));
  for (const char* bad : {"", "aws=", "../x=t4", "a/b=t4"}) {
    EXPECT_FALSE(ParseProfileTypes(bad).ok()) << bad;
  }
}

}  // namespace hetsched
