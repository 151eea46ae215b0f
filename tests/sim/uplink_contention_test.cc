// Golden scenarios for link contention: two jobs that share a NIC, and two jobs that cross racks
// and share both racks' uplinks but no NIC; each slows the other while both run (worked by hand
// below). Every scheduling call is audited, which also checks each job's kept speed. And a
// scheduler sees, within one call, the speeds its own starts made (the simulator re-times the
// jobs a call slows at its end, but re-times a job at once when the scheduler looks at it).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "hetsched/sched/context.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sim/runner.h"
#include "hetsched/sim/simulator.h"
#include "sim_world.h"

namespace hetsched {
namespace {

// sim_world's GPU and "unit" model, plus "heavy": the same with 1e9 B of parameters in the layer.
// One link class "slow": 1.25 GB/s x efficiency 0.8 = 1 GB/s effective ("fast" is 80 GB/s). Node i
// (of `nodes`, `per_node` GPUs each) sits in rack i % `racks`; intra links are "fast"; NICs and
// rack uplinks are "slow" or "fast" as asked.
std::unique_ptr<testing_util::SimWorld> HeavyWorld(int racks, int nodes, int per_node, bool slow_nics,
                                                   bool slow_uplinks) {
  auto w = testing_util::MakeSimWorld(0, 1);  // the catalogs, the model; nodes added here
  LinkClass slow;
  slow.name = "slow";
  slow.bandwidth_Bps = 1.25e9;
  slow.efficiency = 0.8;
  const LinkClassId slow_id = w->links.Add(slow);
  const LinkClassId fast = w->links.Lookup("fast").value();
  w->cluster = std::make_unique<Cluster>(&w->devices, &w->links);
  for (int r = 0; r < racks; ++r) {
    Rack rack;
    rack.name = "r" + std::to_string(r);
    rack.uplink = slow_uplinks ? slow_id : fast;
    w->cluster->AddRack(rack);
  }
  for (int i = 0; i < nodes; ++i) {
    Node n;
    n.name = "n" + std::to_string(i);
    n.rack = i % racks;
    n.device_type = 0;
    n.num_devices = per_node;
    n.intra_link = fast;
    n.nic = slow_nics ? slow_id : fast;
    n.cpu_cores = 8;
    n.host_memory_bytes = 64e9;
    w->cluster->AddNode(n);
  }
  ModelProfile heavy = *w->zoo.Find("unit");
  heavy.name = "heavy";
  heavy.layers[0].param_bytes = 1e9;
  w->zoo.Add(heavy);
  return w;
}

// Four one-GPU nodes, in rack order r0, r1, r0, r1, so that first-fit puts a 2-GPU job on one
// node of each rack; fast NICs, slow uplinks. A ring of 2 moves 2 (n-1)/n x 1e9 = 1e9 B per
// member and iteration: alone 3 ms compute + 1e9 B / 1 GB/s = 1.003 s an iteration; two jobs on
// the uplinks: 3 ms + 1e9 B / 0.5 GB/s = 2.003 s.
std::unique_ptr<testing_util::SimWorld> TwoRackWorld() { return HeavyWorld(2, 4, 1, false, true); }

// Three nodes of two GPUs in one rack (nothing crosses its uplink); slow NICs.
std::unique_ptr<testing_util::SimWorld> SharedNicWorld() { return HeavyWorld(1, 3, 2, true, false); }

Job HeavyJob(JobId id, int64_t iterations, int gpus = 2) {
  Job j = testing_util::UnitJob(id, 0, gpus, 3);
  j.spec.model = "heavy";
  j.spec.iterations = iterations;
  j.spec.estimated_runtime_s = 0;
  j.truth.total_iterations = static_cast<double>(iterations);
  return j;
}

Result<RunRecord> RunFifo(const testing_util::SimWorld& w, const Workload& workload) {
  MethodChoice choice;
  choice.policy = "fifo";
  choice.placer = "first-fit";
  SimOptions options;
  options.restart_cost_s = 0;
  options.full_audit_every = 1;
  return RunSimulation(*w.cluster, w.zoo, workload, choice, options);
}

TEST(UplinkContentionTest, JobsSharingANicSlowEachOther) {
  auto w = SharedNicWorld();
  // A (3 GPUs, 100 iterations) on n0 x 2 + n1, B (3 GPUs, 50 iterations) on n1 + n2 x 2: they
  // share n1's NIC. A ring of 3 moves 2 (3-1)/3 x 1e9 = 4/3 GB per member and iteration: alone
  // 3 ms + 4/3 s; sharing n1 (0.5 GB/s each) 3 ms + 8/3 s. B: 50 x (8/3 + 0.003) = 133.48333 s;
  // A has done 50 by then, and 50 more alone take 50 x (4/3 + 0.003) = 66.81667 s: 200.3 s.
  auto run = RunFifo(*w, testing_util::MakeWorkload({HeavyJob(0, 100, 3), HeavyJob(1, 50, 3)}));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_NEAR(run->jobs[1].finish_s, 50 * (8.0 / 3 + 0.003), 1e-6);
  EXPECT_NEAR(run->jobs[0].finish_s, 50 * (8.0 / 3 + 0.003) + 50 * (4.0 / 3 + 0.003), 1e-6);
}

TEST(UplinkContentionTest, JobsSharingOnlyRackUplinksSlowEachOther) {
  auto w = TwoRackWorld();
  // A (100 iterations) on n0 + n1, B (50 iterations) on n2 + n3, both at t = 0.
  auto run = RunFifo(*w, testing_util::MakeWorkload({HeavyJob(0, 100), HeavyJob(1, 50)}));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->jobs.size(), 2u);
  // Both cross racks and share no NIC: while both run, each has half of each uplink.
  // B: 50 x 2.003 = 100.15 s. A: 50 iterations by then, the other 50 alone at 1.003 s:
  // 100.15 + 50.15 = 150.3 s. (Were A not slowed when B starts, it would end at 100.3 s.)
  EXPECT_NEAR(run->jobs[1].finish_s, 100.15, 1e-6);
  EXPECT_NEAR(run->jobs[0].finish_s, 150.3, 1e-6);
  // Each uplink carried both jobs: 2 x 1e9 B per 2.003 s in each direction.
  bool saw_uplink = false;
  for (const LinkPeak& peak : run->link_peaks) {
    if (peak.link.rfind("uplink:", 0) != 0) continue;
    saw_uplink = true;
    EXPECT_NEAR(peak.peak_Bps, 2e9 / 2.003, 1e-3 * 1e9) << peak.link;
  }
  EXPECT_TRUE(saw_uplink);
}

// Starts job 0, reads its speed, starts job 1 (which shares a NIC with it) and reads job 0's
// speed again, all in its first call; later calls do nothing.
class TwoStartsScheduler final : public JobScheduler {
 public:
  explicit TwoStartsScheduler(std::vector<double>* seen) : seen_(seen) {}
  std::string_view name() const override { return "two-starts"; }
  void OnJobSubmitted(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobFinished(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRequeued(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void OnJobRunning(const JobStatus& /*job*/, SchedContext& /*ctx*/) override {}
  void Schedule(SchedContext& ctx) override {
    if (started_) return;
    started_ = true;
    EXPECT_TRUE(ctx.TryStart(0, 3));
    seen_->push_back(ctx.job(0).iteration_rate);
    EXPECT_TRUE(ctx.TryStart(1, 3));
    seen_->push_back(ctx.job(0).iteration_rate);
  }

 private:
  std::vector<double>* seen_;
  bool started_ = false;
};

TEST(UplinkContentionTest, ASchedulerSeesTheSpeedsItsOwnStartsMadeWithinOneCall) {
  auto w = SharedNicWorld();
  MethodChoice choice;
  choice.policy = "fifo";
  choice.placer = "first-fit";
  auto methods = CreateMethods(choice);
  ASSERT_TRUE(methods.ok()) << methods.status().ToString();
  std::vector<double> seen;
  methods->scheduler = std::make_unique<TwoStartsScheduler>(&seen);
  SimOptions options;
  options.restart_cost_s = 0;
  options.full_audit_every = 1;
  auto run = Simulate(*w->cluster, w->zoo, testing_util::MakeWorkload({HeavyJob(0, 100, 3), HeavyJob(1, 50, 3)}),
                      std::move(methods).value(), options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  // As in JobsSharingANicSlowEachOther: job 0 alone 1 / (4/3 s + 3 ms) iterations/s, then, with
  // job 1 on n1's NIC too, 1 / (8/3 s + 3 ms), already when the scheduler looks again.
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[0], 1 / (4.0 / 3 + 0.003), 1e-12);
  EXPECT_NEAR(seen[1], 1 / (8.0 / 3 + 0.003), 1e-12);
  EXPECT_NEAR(run->jobs[1].finish_s, 50 * (8.0 / 3 + 0.003), 1e-6);
  EXPECT_NEAR(run->jobs[0].finish_s, 50 * (8.0 / 3 + 0.003) + 50 * (4.0 / 3 + 0.003), 1e-6);
}

}  // namespace
}  // namespace hetsched
