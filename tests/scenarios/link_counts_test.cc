// Link contention under churn, audited at every scheduling call. A job's estimate is recomputed
// only when the slowest per-flow share of its ring can have changed; for a ring job the
// simulator counts how many of its links give one flow exactly that share and how many give
// less, and keeps the estimate while the counts say it stands (ChangeMark in
// sim/simulator_impl.h). A wrong count leaves a job at a stale speed, which the full audit finds
// (each running job's kept estimate against a fresh one under the current load, and the counts
// against a recount). The cluster has small servers on slow NICs in racks joined by slow
// uplinks, so that most jobs span servers and many span racks; a preemptive policy starts and
// stops jobs in bursts, within one call and across calls.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "hetsched/model/cluster.h"
#include "hetsched/model/device.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/sim/runner.h"
#include "hetsched/trace/trace.h"

namespace hetsched {
namespace {

// Eight racks of three 2-GPU servers (v100 racks, then p100 racks) on 10 GbE NICs and one 25 GbE
// uplink a rack: a 4-GPU job spans two servers, an 8- or 16-GPU job racks.
Cluster ChurnCluster() {
  std::string spec = "name: churn\ndefaults:\n  nic: eth10\n  uplink: eth25\n  uplink_count: 1\nracks:\n";
  for (const char* type : {"v100", "v100", "v100", "v100", "p100", "p100", "p100", "p100"}) {
    spec += std::string("  - nodes:\n      - device: ") + type + "\n        num_devices: 2\n        count: 3\n";
  }
  auto cluster = ParseClusterSpec(spec, "link_counts_test", DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn());
  EXPECT_TRUE(cluster.ok()) << cluster.status().ToString();
  return cluster.ok() ? std::move(cluster).value() : Cluster();
}

class LinkCountsTest : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(LinkCountsTest, KeptEstimatesMatchTheLoadAtEveryCall) {
  const auto [policy, placer] = GetParam();
  const Cluster cluster = ChurnCluster();
  SyntheticOptions so;
  so.num_jobs = 300;
  so.arrival_rate_per_hour = 120;  // far more than 48 GPUs serve: queues, preemptions, bursts
  so.seed = 19;
  so.size_mix = {{2, 1}, {4, 3}, {8, 3}, {16, 1}};
  so.model_mix = {{"resnet50", 1}, {"transformer", 1}, {"lm", 1}};
  so.reference_device = "v100";
  auto workload = GenerateSynthetic(so, cluster.device_catalog(), ModelZoo::BuiltIn());
  ASSERT_TRUE(workload.ok()) << workload.status().ToString();
  MethodChoice choice;
  choice.policy = policy;
  choice.placer = placer;
  SimOptions options;
  options.restart_cost_s = 10;
  options.check_invariants = true;
  options.full_audit_every = 1;  // AuditLinks after every scheduling call
  auto run = RunSimulation(cluster, ModelZoo::BuiltIn(), *workload, choice, options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();

  // The run is the one described: every job finished, many over several servers and racks, with
  // the uplinks loaded.
  int multi_node = 0, preempted = 0;
  for (const JobRecord& j : run->jobs) {
    EXPECT_TRUE(j.finished()) << "job " << j.id;
    if (j.max_span_nodes >= 2) ++multi_node;
    if (j.preemptions > 0) ++preempted;
  }
  EXPECT_GT(multi_node, 200);
  bool uplink_loaded = false;
  for (const LinkPeak& p : run->link_peaks) uplink_loaded |= p.link.rfind("uplink:", 0) == 0 && p.peak_Bps > 0;
  EXPECT_TRUE(uplink_loaded);
  if (std::string(policy) == "tiresias-las") {
    EXPECT_GT(preempted, 20);
  }
}

std::string CaseName(const ::testing::TestParamInfo<std::tuple<const char*, const char*>>& param) {
  std::string name = std::string(std::get<0>(param.param)) + "_" + std::get<1>(param.param);
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(PreemptiveAndNot, LinkCountsTest,
                         ::testing::Combine(::testing::Values("tiresias-las", "fifo"),
                                            ::testing::Values("pack", "first-fit")),
                         CaseName);

}  // namespace
}  // namespace hetsched
