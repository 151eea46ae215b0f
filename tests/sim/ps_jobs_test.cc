// Parameter-server container jobs in the simulator: every container placer runs a mixed
// workload with the full audit after every scheduling call (no node over-committed, nothing
// double-booked), all jobs finish, and DLTAP sends fewer bytes across nodes than spreading.
// Jobs that can never fit, and device placers given container jobs, are errors naming the job.
#include <gtest/gtest.h>

#include "hetsched/sim/runner.h"
#include "hetsched/sim/simulator.h"
#include "sim_world.h"

namespace hetsched {
namespace {

using testing_util::MakeSimWorld;
using testing_util::MakeWorkload;
using testing_util::UnitJob;

constexpr int64_t kGB = 1'000'000'000;

// The "unit" model with 1e8 B of parameters: every cross-node worker-server pair moves bytes.
void AddParamModel(testing_util::SimWorld& w) {
  ModelProfile m = *w.zoo.Find("unit");
  m.name = "unit-params";
  m.layers[0].param_bytes = 1e8;
  w.zoo.Add(m);
}

Job PsUnitJob(JobId id, double submit_s, int ps, int workers, double runtime_s) {
  Job j = UnitJob(id, submit_s, workers, runtime_s);
  j.spec.model = "unit-params";
  j.spec.num_ps = ps;
  j.spec.num_workers = workers;
  j.spec.ps_request = ContainerRequest{1000, 4 * kGB, 0};
  j.spec.worker_request = ContainerRequest{2000, 8 * kGB, 1};
  j.spec.parallelism = Parallelism::kDataPS;
  return j;
}

Result<RunRecord> RunWith(const testing_util::SimWorld& w, const Workload& workload, const std::string& placer) {
  MethodChoice choice;
  choice.policy = "fifo";
  choice.placer = placer;
  SimOptions options;
  options.full_audit_every = 1;
  return RunSimulation(*w.cluster, w.zoo, workload, choice, options);
}

Workload Mixed() {
  // Nodes: 4 GPUs, 8 cores, 64 GB. Jobs of 1-2 servers and 2-6 workers, plus a device job.
  std::vector<Job> jobs;
  for (int i = 0; i < 12; ++i) {
    jobs.push_back(PsUnitJob(i, i * 0.5, 1 + i % 2, 2 + (i * 3) % 5, 3.0 + 0.3 * (i % 4)));
  }
  jobs.push_back(UnitJob(12, 7, 2, 3));
  return MakeWorkload(std::move(jobs));
}

TEST(PsJobsSimTest, EveryContainerPlacerRunsAMixedWorkloadUnderTheFullAudit) {
  auto w = MakeSimWorld(4, 4);
  AddParamModel(*w);
  const Workload workload = Mixed();
  double dltap_bytes = 0, spread_bytes = 0;
  for (const char* placer : {"dltap", "k8s-spread", "k8s-binpack", "k8s-random"}) {
    auto run = RunWith(*w, workload, placer);
    ASSERT_TRUE(run.ok()) << placer << ": " << run.status().ToString();
    double bytes = 0;
    for (const JobRecord& job : run->jobs) {
      EXPECT_TRUE(job.finished()) << placer << " job " << job.id;
      bytes += job.cross_node_bytes;
    }
    if (std::string(placer) == "dltap") dltap_bytes = bytes;
    if (std::string(placer) == "k8s-spread") spread_bytes = bytes;
  }
  EXPECT_GT(spread_bytes, 0);
  EXPECT_LT(dltap_bytes, spread_bytes);
}

TEST(PsJobsSimTest, AJobThatCanNeverFitIsNamed) {
  auto w = MakeSimWorld(2, 4);
  AddParamModel(*w);
  Job big = PsUnitJob(0, 0, 1, 2, 3);
  big.spec.worker_request.cpu_millicores = 9000;  // nodes have 8 cores
  auto run = RunWith(*w, MakeWorkload({big}), "dltap");
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("job 0"), std::string::npos) << run.status().message();
  EXPECT_NE(run.status().message().find("can never fit"), std::string::npos) << run.status().message();
}

TEST(PsJobsSimTest, DevicePlacersRefuseContainerJobs) {
  auto w = MakeSimWorld(2, 4);
  AddParamModel(*w);
  auto run = RunWith(*w, MakeWorkload({PsUnitJob(0, 0, 1, 2, 3)}), "pack");
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("placer 'pack' does not place containers"), std::string::npos)
      << run.status().message();
}

}  // namespace
}  // namespace hetsched
