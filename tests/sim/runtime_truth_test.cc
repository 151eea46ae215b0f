// A trace's run time as the simulator's truth (JobTruth::runtime_s; docs/formats-trace.md, "Run
// times as the truth"): on its GPU count of the reference type a job runs exactly that long,
// whatever the iteration count says and however its devices are laid out; on another type the
// run time scales by the model's packed estimates.
#include <gtest/gtest.h>

#include "hetsched/sim/runner.h"
#include "hetsched/sim/simulator.h"
#include "hetsched/trace/calibrate.h"

namespace hetsched {
namespace {

Job ResNetJob(JobId id, int gpus, double runtime_s, DeviceTypeId type) {
  Job j;
  j.spec.id = id;
  j.spec.model = "resnet50";
  j.spec.num_gpus = gpus;
  j.spec.iterations = 1000;  // the model alone would run these in well under 500 s
  j.spec.allowed_types = {type};
  j.truth.total_iterations = 1000;
  j.truth.runtime_s = runtime_s;
  return j;
}

class RuntimeTruthTest : public ::testing::Test {
 protected:
  RuntimeTruthTest()
      : devices_(DeviceCatalog::BuiltIn()),
        links_(LinkCatalog::BuiltIn()),
        cluster_(*MakeShorthandCluster({{"v100", 12}, {"k80", 4}}, 4, devices_, links_)),
        v100_(*devices_.Lookup("v100")),
        k80_(*devices_.Lookup("k80")) {}

  Result<RunRecord> Run(const Workload& w, bool contention, bool whole_seconds = false) {
    MethodChoice choice;
    choice.policy = "fifo";
    choice.policy_options = *Options::Parse({"backfill=none"});
    choice.placer = "first-fit";
    SimOptions options;
    options.contention = contention;
    options.whole_second_completions = whole_seconds;
    options.full_audit_every = 1;
    return RunSimulation(cluster_, ModelZoo::BuiltIn(), w, choice, options);
  }

  const DeviceCatalog& devices_;
  const LinkCatalog& links_;
  Cluster cluster_;
  DeviceTypeId v100_, k80_;
};

// Job 0: 1 V100 for 500 s. Job 1: 8 V100s for 300 s, laid out by first-fit over three 4-GPU
// servers (job 0 holds one device of the first: 3 + 4 + 1; the model would make that slower
// than one 8-GPU server; the trace's figure holds for any layout). Job 2: the 500 s of job 0 on a K80 instead: 500 x (packed K80 iteration time /
// packed V100 iteration time), the model's ratio.
TEST_F(RuntimeTruthTest, RunTimeHoldsOnTheReferenceTypeAndScalesOnOthers) {
  Workload w;
  w.jobs = {ResNetJob(0, 1, 500, v100_), ResNetJob(1, 8, 300, v100_), ResNetJob(2, 1, 500, k80_)};
  w.runtime_device = "v100";
  for (bool contention : {true, false}) {
    auto run = Run(w, contention);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    EXPECT_NEAR(run->jobs[0].finish_s, 500, 1e-6);
    EXPECT_NEAR(run->jobs[1].finish_s, 300, 1e-6);
    EXPECT_EQ(run->jobs[1].max_span_nodes, 3);
    auto k80 = RuntimeCalibrator::Create(devices_, links_, "k80");
    auto v100 = RuntimeCalibrator::Create(devices_, links_, "v100");
    const ModelProfile& model = *ModelZoo::BuiltIn().Find("resnet50");
    const double ratio = *k80->IterationSeconds(model, 0, 1) / *v100->IterationSeconds(model, 0, 1);
    EXPECT_GT(ratio, 1.5);  // a K80 is much slower than a V100
    EXPECT_NEAR(run->jobs[2].finish_s, 500 * ratio, 1e-6);
    EXPECT_NEAR(run->jobs[0].ideal_runtime_s, 500, 1e-6);
  }
}

// SimOptions::whole_second_completions (set by --compat tiresias): one iteration in 49 s runs at
// 1/49 iterations per second, and 1 / (1/49) is 49.00000000000001 in doubles (93 s: 92.99999999999999);
// on a peer's clock of whole seconds both jobs end on the second.
TEST_F(RuntimeTruthTest, WholeSecondCompletionsEndOnTheSecond) {
  Workload w;
  w.jobs = {ResNetJob(0, 1, 49, v100_), ResNetJob(1, 1, 93, v100_)};
  for (Job& j : w.jobs) j.spec.iterations = 1, j.truth.total_iterations = 1;
  w.runtime_device = "v100";
  auto exact = Run(w, false);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_EQ(exact->jobs[0].finish_s, 1.0 / (1.0 / 49));
  EXPECT_NE(exact->jobs[0].finish_s, 49.0);
  EXPECT_NE(exact->jobs[1].finish_s, 93.0);
  auto whole = Run(w, false, /*whole_seconds=*/true);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->jobs[0].finish_s, 49.0);
  EXPECT_EQ(whole->jobs[1].finish_s, 93.0);
}

TEST_F(RuntimeTruthTest, RunTimesNeedAReferenceDevice) {
  Workload w;
  w.jobs = {ResNetJob(0, 1, 500, v100_)};
  auto run = Run(w, true);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("names no reference device"), std::string::npos);
  w.runtime_device = "no-such-gpu";
  run = Run(w, true);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("reference device"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
