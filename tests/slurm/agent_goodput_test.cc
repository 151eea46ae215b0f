// Goodput jobs in the agent (docs/slurm.md, "Goodput jobs") with FakeSlurm: a job that names its
// application in its comment reports measurements to DIR/<jobid>.metrics; the agent reads them each
// poll into the job's state (perf/goodput_job.h), the policy (sia) sees its fitted model, and each
// placement's batch is written to DIR/<jobid>.alloc before the job is released. The reports here
// are what the job would measure: its application's own profile (Pollux's cifar10, on V100s).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fake_slurm.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/goodput_fit.h"
#include "hetsched/perf/goodput_job.h"
#include "hetsched/sched/registry.h"
#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/goodput_files.h"
#include "hetsched/trace/goodput_catalog.h"
#include "hetsched/util/file_io.h"

namespace hetsched::slurm {
namespace {

using testing::FakeSlurm;

constexpr const char* kComment =
    "hetsched application=cifar10 adaptive_batch=1 elastic=1 total_batch_size=128";

std::string TestPath(const std::string& what) {
  const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : ::testing::TempDir();
  const std::string path = base + "/hetsched_agent_goodput_" + std::to_string(getpid()) + "_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + what;
  std::filesystem::remove_all(path);
  return path;
}

class AgentGoodputTest : public ::testing::Test {
 public:
  AgentGoodputTest() : slurm(clock) {
    slurm.AddNodes(2, 2);  // 2 x 4 A100 + 2 x 8 V100; the profiles are tied to the V100s
    auto catalog = GoodputCatalog::OpenNamed(GoodputCatalog::kBuiltInDir, {{"", "v100"}}, "pollux",
                                             DeviceCatalog::BuiltIn());
    EXPECT_TRUE(catalog.ok()) << catalog.status().message();
    auto truth = catalog->Get("cifar10");
    EXPECT_TRUE(truth.ok()) << truth.status().message();
    cifar10 = std::move(truth).value();
  }
  ~AgentGoodputTest() override {
    agent.reset();
    std::filesystem::remove(journal);
    std::filesystem::remove_all(dir);
  }

  void StartAgent(const std::string& goodput_dir) {
    agent.reset();
    AgentOptions o;
    o.journal_path = journal;
    o.goodput_dir = goodput_dir;
    o.goodput_types = {{"", "v100"}};
    o.goodput_interval_s = goodput_interval_s;
    o.report = [this](const std::string& m) { reports.push_back(m); };
    auto started = Agent::Start(slurm, clock, ModelZoo::BuiltIn(),
                                std::move(CreateMethods(MethodChoice{.policy = policy})).value(), o);
    ASSERT_TRUE(started.ok()) << started.status().message();
    agent = std::move(started).value();
  }
  void Step(double seconds = 1) {
    clock.SleepS(seconds);
    ASSERT_TRUE(agent->Step().ok());
  }
  // A cifar10 job on one GPU, admitted, placed at Sia's first round (60 s), released, started.
  long long RunningJob() {
    const long long id = slurm.Submit("1", kComment);
    slurm.jobs.at(id).elastic = true;
    EXPECT_NO_FATAL_FAILURE(StartAgent(dir));
    EXPECT_NO_FATAL_FAILURE(Step());
    EXPECT_NO_FATAL_FAILURE(Step(60));
    slurm.StartReleased();
    EXPECT_NO_FATAL_FAILURE(Step());
    EXPECT_EQ(slurm.jobs.at(id).state, "RUNNING");
    return id;
  }
  nlohmann::json Alloc(long long id) const {
    auto text = ReadFile(AllocPath(dir, id));
    EXPECT_TRUE(text.ok()) << text.status().message();
    return text.ok() ? nlohmann::json::parse(*text) : nlohmann::json();
  }
  // What the job measures in its allocation (its profile's true times and gradient statistics).
  struct Measured {
    ThroughputSample sample;
    GradientStats grad;
    std::string line;
  };
  // `epoch`: the epoch whose gradient statistics it measured (the noise grows as it trains).
  Measured Measure(const nlohmann::json& alloc, double progress, int epoch = 0) const {
    const GoodputApplication& app = cifar10.reference();
    const std::vector<int> placement = alloc["placement"].get<std::vector<int>>();
    const int local = alloc["local_bsz"].get<int>(), accum = alloc["accum_steps"].get<int>();
    int gpus = 0;
    for (int g : placement) gpus += g;
    auto t = app.StepTime(placement, local);
    EXPECT_TRUE(t.ok()) << t.status().message();
    auto g = app.GradStats(static_cast<double>(gpus) * local * (accum + 1), epoch);
    EXPECT_TRUE(g.ok()) << g.status().message();
    Measured m;
    m.sample = {static_cast<int>(placement.size()), gpus, local, t->step_s - t->sync_s, t->step_s};
    m.grad = *g;
    nlohmann::json line = {{"v", 1},
                           {"gpus", gpus},
                           {"nodes", placement.size()},
                           {"local_bsz", local},
                           {"accum_steps", accum},
                           {"accum_step_s", m.sample.accum_step_s},
                           {"optim_step_s", m.sample.optim_step_s},
                           {"grad_sqr", m.grad.sqr},
                           {"grad_var", m.grad.var},
                           {"progress", progress}};
    m.line = line.dump();
    return m;
  }
  void AppendMetrics(long long id, const std::string& text) const {
    std::ofstream(MetricsPath(dir, id), std::ios::app) << text;
  }
  std::optional<GoodputJobView> View(long long id) const {
    auto v = agent->goodput_job(id, /*with_model=*/true);
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? *v : std::nullopt;
  }
  int Journaled(const std::string& event) const {
    auto j = Journal::Open(journal, nullptr);
    EXPECT_TRUE(j.ok());
    return static_cast<int>(std::count_if(j->replayed().begin(), j->replayed().end(),
                                          [&](const JournalRecord& r) { return r.event == event; }));
  }
  int Reported(const std::string& needle) const {
    return static_cast<int>(std::count_if(reports.begin(), reports.end(), [&](const std::string& m) {
      return m.find(needle) != std::string::npos;
    }));
  }

  // The batch the simulator's job of the same request picks on `placement` after `reports`.
  GoodputJob Expected(const std::vector<int>& placement, const std::vector<Measured>& measured) const {
    JobSpec spec;
    spec.num_gpus = 1;
    spec.adaptive_batch = true;
    spec.total_batch_size = 128;
    GoodputJob g = GoodputSteps::New(spec, cifar10, /*adapts_batch_sizes=*/true, /*pooled=*/false);
    for (const Measured& m : measured) GoodputSteps::Measure(g, 0, m.sample, m.grad);
    EXPECT_TRUE(GoodputSteps::Place(g, placement, DeviceCatalog::BuiltIn().Find("v100-16gb")).ok());
    return g;
  }

  // The .alloc's inode: a rename over it (a rewrite) gives it a new one.
  ino_t AllocInode(long long id) const {
    struct stat st {};
    EXPECT_EQ(::stat(AllocPath(dir, id).c_str(), &st), 0);
    return st.st_ino;
  }

  std::string policy = "sia";
  double goodput_interval_s = 60;
  FakeClock clock{1.8e9};
  FakeSlurm slurm;
  GoodputTruth cifar10;
  std::string journal = TestPath(".jsonl");
  std::string dir = TestPath(".goodput");
  std::vector<std::string> reports;
  std::unique_ptr<Agent> agent;
};

// Under each goodput policy that adapts batches.
class AgentGoodputPolicyTest : public AgentGoodputTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(AgentGoodputPolicyTest, ReportsFitTheModelThePolicySeesAndPickTheBatchOfTheNextPlacement) {
  policy = GetParam();
  // The allocation is on disk, whole, when the job is released: read at the `scontrol release`.
  std::vector<std::string> alloc_at_release;
  slurm.before_command = [&](const std::vector<std::string>& argv) {
    if (argv.size() >= 3 && argv[1] == "release") {
      auto text = ReadFile(AllocPath(dir, std::stoll(argv[2])));
      alloc_at_release.push_back(text.ok() ? *text : "missing: " + text.status().message());
    }
  };
  const long long id = RunningJob();
  const GoodputApplication& app = cifar10.reference();
  ASSERT_EQ(alloc_at_release.size(), 1u);
  const nlohmann::json first = nlohmann::json::parse(alloc_at_release[0]);
  EXPECT_EQ(first, Alloc(id));
  EXPECT_EQ(first["job"], id);
  EXPECT_EQ(first["type"], "v100-16gb");
  EXPECT_EQ(first["restarts"], 0);
  EXPECT_EQ(first["adaptive"], true);
  // Nothing measured yet: it starts at its application's initial batch (Sia gives it one GPU).
  const GoodputJob unmeasured = Expected(first["placement"].get<std::vector<int>>(), {});
  EXPECT_EQ(first["batch_size"], static_cast<int>(unmeasured.batch_size()));
  EXPECT_EQ(first["local_bsz"], unmeasured.atomic_bsz);
  if (policy == "sia") {
    EXPECT_EQ(first["gpus"], 1);
  }
  std::optional<GoodputJobView> fresh = View(id);
  ASSERT_TRUE(fresh.has_value());
  EXPECT_FALSE(fresh->params.has_value());
  EXPECT_FALSE(fresh->grad.has_value());

  // One report: the policy's view carries the model fitted to it, as a job of the simulator would.
  const Measured m = Measure(first, 50);
  AppendMetrics(id, m.line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  std::optional<GoodputJobView> seen = View(id);
  ASSERT_TRUE(seen.has_value());
  ASSERT_TRUE(seen->params.has_value());
  const std::vector<ThroughputSample> samples = {m.sample};
  auto fitted = FitThroughputParams(samples, app.fit_tolerance());
  ASSERT_TRUE(fitted.ok());
  EXPECT_EQ(seen->params->alpha_c, fitted->alpha_c);
  EXPECT_EQ(seen->params->beta_c, fitted->beta_c);
  ASSERT_TRUE(seen->grad.has_value());
  EXPECT_EQ(seen->grad->sqr, m.grad.sqr);
  EXPECT_EQ(seen->max_profiled_replicas, first["gpus"].get<int>());
  EXPECT_EQ(Journaled("measure"), 1);

  // Slurm requeues it (its node failed): the policy places it again, and the batch of that
  // placement is the one its model picks, as the simulator's job picks it.
  slurm.RequeueBySlurm(id);
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_NO_FATAL_FAILURE(Step(60));
  ASSERT_EQ(alloc_at_release.size(), 2u);
  const nlohmann::json second = Alloc(id);
  EXPECT_EQ(second["restarts"], 1);
  const GoodputJob expected = Expected(second["placement"].get<std::vector<int>>(), {m});
  EXPECT_EQ(second["local_bsz"], expected.atomic_bsz);
  EXPECT_EQ(second["accum_steps"], expected.accum_steps);
  EXPECT_EQ(second["batch_size"], static_cast<int>(expected.batch_size()));
  EXPECT_NE(second["batch_size"], first["batch_size"]) << second.dump();
  EXPECT_TRUE(slurm.violations.empty()) << slurm.violations.front();
}

// Sia grows a job that has measured itself on one GPU (its options reach twice that): the change is a
// preemption (requeued held) and a new placement on two GPUs, whose pin rewrites the job's GPU count
// and whose allocation is written before the release.
TEST_F(AgentGoodputTest, ThePolicyGrowsARunningElasticJobThroughARequeue) {
  const long long id = RunningJob();
  AppendMetrics(id, Measure(Alloc(id), 50).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_NO_FATAL_FAILURE(Step(60));  // Sia's round: 2 GPUs, so the run on 1 is stopped
  EXPECT_EQ(slurm.Count("requeuehold", id), 1);
  EXPECT_EQ(slurm.jobs.at(id).restart_count, 1);
  ASSERT_NO_FATAL_FAILURE(Step());    // seen held: pending for the policy
  ASSERT_NO_FATAL_FAILURE(Step(60));  // the next round places it on 2 GPUs
  const nlohmann::json alloc = Alloc(id);
  EXPECT_EQ(alloc["gpus"], 2);
  EXPECT_EQ(alloc["restarts"], 1);
  EXPECT_EQ(slurm.Count("release", id), 2);
  slurm.StartReleased();
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(slurm.jobs.at(id).state, "RUNNING");
  EXPECT_EQ(slurm.jobs.at(id).asked_gpus, 2);
  EXPECT_TRUE(slurm.violations.empty()) << slurm.violations.front();
  std::optional<GoodputJobView> v = View(id);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->placement, std::vector<int>{2});
  EXPECT_EQ(v->restarts, 1);
}

INSTANTIATE_TEST_SUITE_P(Policies, AgentGoodputPolicyTest, ::testing::Values("sia", "pollux"));

TEST_F(AgentGoodputTest, AMalformedLineIsReportedWithFileLineAndFieldAndTheFileIsNotTrusted) {
  const long long id = RunningJob();
  const Measured m = Measure(Alloc(id), 10);
  std::string bad = m.line;
  bad.replace(bad.find("\"optim_step_s\":"), 15, "\"optim_step_s\":-");
  AppendMetrics(id, m.line + "\n" + bad + "\n" + m.line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Reported(MetricsPath(dir, id) + ":2: field 'optim_step_s'"), 1);
  EXPECT_EQ(Reported("not trusted any more"), 1);
  std::optional<GoodputJobView> v = View(id);
  ASSERT_TRUE(v.has_value());
  EXPECT_FALSE(v->params.has_value());  // line 1's measurement is dropped too
  EXPECT_FALSE(v->grad.has_value());
  EXPECT_EQ(Journaled("measure"), 1);
  EXPECT_EQ(Journaled("measure_bad"), 1);
  // Nothing more is read from it, nor reported again; the job runs on.
  AppendMetrics(id, m.line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Journaled("measure"), 1);
  EXPECT_EQ(Reported("not trusted any more"), 1);
  EXPECT_EQ(agent->Jobs().front().phase, "running");
}

TEST_F(AgentGoodputTest, APartialLastLineIsWaitedFor) {
  const long long id = RunningJob();
  const Measured m = Measure(Alloc(id), 10);
  AppendMetrics(id, m.line.substr(0, 40));  // the job is still writing it
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Journaled("measure"), 0);
  EXPECT_TRUE(reports.empty()) << reports.front();
  EXPECT_FALSE(View(id)->params.has_value());
  AppendMetrics(id, m.line.substr(40) + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Journaled("measure"), 1);
  EXPECT_TRUE(View(id)->params.has_value());
  EXPECT_TRUE(reports.empty()) << reports.front();
}

TEST_F(AgentGoodputTest, ARestartedAgentKeepsTheMeasurementsAndReadsOnlyWhatIsNew) {
  const long long id = RunningJob();
  const nlohmann::json alloc = Alloc(id);
  const Measured m1 = Measure(alloc, 10);
  AppendMetrics(id, m1.line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  const std::optional<GoodputJobView> before = View(id);
  ASSERT_TRUE(before.has_value() && before->params.has_value());

  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));  // a new agent on the same journal
  std::optional<GoodputJobView> after = View(id);
  ASSERT_TRUE(after.has_value());
  ASSERT_TRUE(after->params.has_value());
  EXPECT_EQ(after->params->alpha_c, before->params->alpha_c);
  EXPECT_EQ(after->params->beta_c, before->params->beta_c);
  EXPECT_EQ(after->grad->var, before->grad->var);
  EXPECT_EQ(after->placement, before->placement);
  EXPECT_EQ(after->atomic_bsz, alloc["local_bsz"].get<int>());

  // A second configuration reported after the restart: read alone (line 1 is not measured twice),
  // and the model is fitted to both.
  nlohmann::json other = alloc;
  other["local_bsz"] = alloc["local_bsz"].get<int>() * 2;
  const Measured m2 = Measure(other, 20);
  AppendMetrics(id, m2.line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Journaled("measure"), 2);
  std::optional<GoodputJobView> both = View(id);
  ASSERT_TRUE(both.has_value() && both->params.has_value());
  const std::vector<ThroughputSample> samples = {m1.sample, m2.sample};
  auto fitted = FitThroughputParams(samples, cifar10.reference().fit_tolerance());
  ASSERT_TRUE(fitted.ok());
  EXPECT_EQ(both->params->alpha_c, fitted->alpha_c);
  EXPECT_EQ(both->params->beta_c, fitted->beta_c);
  EXPECT_TRUE(reports.empty()) << reports.front();

  // Ended: not run again by a restarted agent, and its file no longer read.
  slurm.End(id);
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));
  AppendMetrics(id, "garbage\n");
  ASSERT_NO_FATAL_FAILURE(Step(60));
  EXPECT_EQ(agent->Jobs().front().phase, "finished");
  EXPECT_EQ(slurm.Count("release", id), 1);
  EXPECT_TRUE(reports.empty()) << reports.front();
}

// The simulator re-picks a running job's batch at each of its epoch ends (sim/goodput_run.cc
// GoodputEpochEnds); the agent does so when the job's reports reach a new epoch, and rewrites its
// .alloc (seq + 1, the same placement and restarts) only when the batch changed.
TEST_F(AgentGoodputTest, AnEpochEndInTheReportsRePicksTheBatchAndRewritesTheAllocOnlyWhenItChanged) {
  const long long id = RunningJob();  // agent time 62; the first interval's re-pick is at 120
  const nlohmann::json first = Alloc(id);
  EXPECT_EQ(first["seq"], 1);
  const GoodputApplication& app = cifar10.reference();
  const double epoch1 = app.ProgressAt(1);
  ASSERT_GT(epoch1, 0);
  // A report inside epoch 0: the model is there (the policy sees it), the batch is not re-picked.
  // Its gradient is noisy (cifar10's at epoch 15): a larger batch pays (652 instead of 128).
  constexpr int kNoisy = 15;
  const Measured m = Measure(first, epoch1 / 2, kNoisy);
  AppendMetrics(id, m.line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_TRUE(View(id)->params.has_value());
  EXPECT_EQ(Alloc(id), first);
  // A report that reaches epoch 1: re-picked from the one configuration measured, as the
  // simulator's job picks it on the same placement (Expected: Place on the same reports).
  const ino_t before = AllocInode(id);
  AppendMetrics(id, Measure(first, epoch1, kNoisy).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  const nlohmann::json second = Alloc(id);
  const GoodputJob expected = Expected(first["placement"].get<std::vector<int>>(), {m});
  EXPECT_EQ(second["seq"], 2);
  EXPECT_EQ(second["restarts"], 0);
  EXPECT_EQ(second["placement"], first["placement"]);
  EXPECT_EQ(second["nodes"], first["nodes"]);
  EXPECT_EQ(second["local_bsz"], expected.atomic_bsz);
  EXPECT_EQ(second["accum_steps"], expected.accum_steps);
  EXPECT_EQ(second["batch_size"], static_cast<int>(expected.batch_size()));
  EXPECT_NE(second["batch_size"], first["batch_size"]) << second.dump();
  EXPECT_NE(AllocInode(id), before);
  EXPECT_EQ(View(id)->atomic_bsz, expected.atomic_bsz);
  EXPECT_EQ(Journaled("repick"), 1);
  // The next epoch's end with nothing new measured: the same batch, the file left alone.
  const ino_t rewritten = AllocInode(id);
  AppendMetrics(id, Measure(first, app.ProgressAt(2), kNoisy).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Alloc(id), second);
  EXPECT_EQ(AllocInode(id), rewritten);
  EXPECT_EQ(Journaled("repick"), 1);
  EXPECT_TRUE(reports.empty()) << reports.front();
  EXPECT_TRUE(slurm.violations.empty()) << slurm.violations.front();
}

// And every goodput interval of the agent's clock (`--goodput-interval`, on a grid from its time
// origin, as the simulator's GoodputTick), an adaptive job's batch whatever its epoch.
TEST_F(AgentGoodputTest, TheGoodputIntervalRePicksAnAdaptiveJobsBatch) {
  goodput_interval_s = 50;
  const long long id = RunningJob();  // agent time 62: the next interval ends at 100
  const nlohmann::json first = Alloc(id);
  const Measured m = Measure(first, 1, /*epoch=*/15);  // a noisy gradient: a larger batch pays
  AppendMetrics(id, m.line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());    // 63
  ASSERT_NO_FATAL_FAILURE(Step(36));  // 99
  EXPECT_EQ(Alloc(id), first);
  ASSERT_NO_FATAL_FAILURE(Step());  // 100
  const nlohmann::json picked = Alloc(id);
  const GoodputJob expected = Expected(first["placement"].get<std::vector<int>>(), {m});
  EXPECT_EQ(picked["seq"], 2);
  EXPECT_EQ(picked["local_bsz"], expected.atomic_bsz);
  EXPECT_EQ(picked["accum_steps"], expected.accum_steps);
  EXPECT_NE(picked["batch_size"], first["batch_size"]) << picked.dump();
  EXPECT_EQ(Journaled("repick"), 1);
  // The next interval (150) finds the same batch: nothing written.
  const ino_t written = AllocInode(id);
  ASSERT_NO_FATAL_FAILURE(Step(50));
  EXPECT_EQ(Alloc(id), picked);
  EXPECT_EQ(AllocInode(id), written);
  EXPECT_EQ(Journaled("repick"), 1);
}

// A goodput job's rate (JobStatus::iteration_rate, what a policy reads for its time left) is its
// reports' progress over the agent's time between reads, never the release's estimate (the
// performance model's steps: another unit): 0 until two reads of this placement showed progress.
TEST_F(AgentGoodputTest, AJobsRateIsItsReportedProgressOverTime) {
  const long long id = RunningJob();  // agent time 62
  EXPECT_EQ(agent->job_status(id).iteration_rate, 0);
  const nlohmann::json first = Alloc(id);
  AppendMetrics(id, Measure(first, 100).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());  // 63: the first read marks 100
  EXPECT_EQ(agent->job_status(id).iteration_rate, 0);
  AppendMetrics(id, Measure(first, 250).line + "\n" + Measure(first, 400).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step(10));  // 73: 300 in 10 s
  EXPECT_DOUBLE_EQ(agent->job_status(id).iteration_rate, 30);
  EXPECT_DOUBLE_EQ(agent->job_status(id).iterations_done, 400);
  AppendMetrics(id, Measure(first, 1000).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step(20));  // 93: 900 in 30 s since the mark
  EXPECT_DOUBLE_EQ(agent->job_status(id).iteration_rate, 30);
}

// A re-picked batch is journaled (`repick`, with the allocation) before its file is written: a
// restarted agent keeps it (it neither loses it nor writes the stale one back), and writes it if
// the stop came between the record and the file.
TEST_F(AgentGoodputTest, ARestartedAgentKeepsTheRePickedBatchAndWritesOneItDidNotWrite) {
  const long long id = RunningJob();
  const nlohmann::json first = Alloc(id);
  const std::string first_text = *ReadFile(AllocPath(dir, id));
  AppendMetrics(id, Measure(first, cifar10.reference().ProgressAt(1), /*epoch=*/15).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  const nlohmann::json picked = Alloc(id);
  ASSERT_EQ(picked["seq"], 2);
  ASSERT_NE(picked["batch_size"], first["batch_size"]);

  // Restarted: the re-picked batch is its state, and its file (right) is left alone.
  const ino_t written = AllocInode(id);
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));
  EXPECT_EQ(View(id)->atomic_bsz, picked["local_bsz"].get<int>());
  EXPECT_EQ(View(id)->accum_steps, picked["accum_steps"].get<int>());
  EXPECT_EQ(AllocInode(id), written);
  ASSERT_NO_FATAL_FAILURE(Step(60));  // an interval's re-pick (120): the same batch
  EXPECT_EQ(Alloc(id), picked);
  EXPECT_EQ(AllocInode(id), written);
  EXPECT_TRUE(reports.empty()) << reports.front();

  // Stopped after the record and before the file: the file still holds seq 1. The restarted agent
  // writes the journaled allocation.
  ASSERT_TRUE(WriteFileAtomic(AllocPath(dir, id), first_text).ok());
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));
  EXPECT_EQ(Alloc(id), picked);
  EXPECT_EQ(Reported("goodput job " + std::to_string(id) + ": " + AllocPath(dir, id) +
                     " did not hold its journaled allocation (seq 2"),
            1);

  // A journal from before allocations were journaled (no `text` in its `place`, no `repick`): the
  // placement's batch is picked again from the replayed reports, seq 1.
  agent.reset();
  auto text = ReadFile(journal);
  ASSERT_TRUE(text.ok());
  std::string old;
  for (size_t at = 0; at < text->size();) {
    const size_t nl = text->find('\n', at);
    nlohmann::json r = nlohmann::json::parse(text->substr(at, nl - at));
    at = nl + 1;
    if (r["ev"] == "repick") continue;
    if (r["ev"] == "place") r.erase("text");
    old += r.dump() + "\n";
  }
  ASSERT_TRUE(WriteFileAtomic(journal, old).ok());
  ASSERT_TRUE(WriteFileAtomic(AllocPath(dir, id), first_text).ok());
  reports.clear();
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));
  EXPECT_EQ(Alloc(id), first);
  EXPECT_TRUE(reports.empty()) << reports.front();
  EXPECT_EQ(View(id)->atomic_bsz, first["local_bsz"].get<int>());
}

// A `repick` record whose allocation does not follow the job's last (its seq, its placement) is an
// error naming the journal, the job and the record.
TEST_F(AgentGoodputTest, AJournaledAllocationThatDoesNotFollowTheLastIsAnError) {
  const long long id = RunningJob();
  AppendMetrics(id, Measure(Alloc(id), cifar10.reference().ProgressAt(1), /*epoch=*/15).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  ASSERT_EQ(Journaled("repick"), 1);
  agent.reset();
  auto text = ReadFile(journal);
  ASSERT_TRUE(text.ok());
  const size_t at = text->rfind("\\\"seq\\\":2");  // the repick record's allocation
  ASSERT_NE(at, std::string::npos) << *text;
  std::string bad = *text;
  bad.replace(at, 9, "\\\"seq\\\":1");
  ASSERT_TRUE(WriteFileAtomic(journal, bad).ok());
  AgentOptions o;
  o.journal_path = journal;
  o.goodput_dir = dir;
  o.goodput_types = {{"", "v100"}};
  auto started = Agent::Start(slurm, clock, ModelZoo::BuiltIn(),
                              std::move(CreateMethods(MethodChoice{.policy = policy})).value(), o);
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.status().message().find(journal + ": goodput job " + std::to_string(id) +
                                            ": repick record: its allocation (job " + std::to_string(id) +
                                            ", seq 1) is not of the job's placement after seq 1"),
            std::string::npos)
      << started.status().message();
}

// The simulator shows the policy what is left of a placement's delay (GoodputJobView::delay_left_s:
// Sia keeps such a job where it is); the agent shows the same delay from the placement, until the
// job's first report since it: the job is restoring as far as the agent can tell.
TEST_F(AgentGoodputTest, ThePolicySeesAPlacedJobRestoringUntilItReports) {
  const long long id = RunningJob();  // placed at agent time 61; now 62
  // Pollux's settings give cifar10 no delay of its own: 30 s (GoodputSteps::kDefaultRestartDelayS).
  EXPECT_EQ(View(id)->delay_left_s, 30 - 1);
  ASSERT_NO_FATAL_FAILURE(Step(10));
  EXPECT_EQ(View(id)->delay_left_s, 30 - 11);
  // A restarted agent counts from the run's start as Slurm reports it (a whole second).
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));
  const double since_start = clock.NowS() - std::floor(slurm.jobs.at(id).start);
  EXPECT_EQ(View(id)->delay_left_s, std::max(0.0, 30 - since_start));
  EXPECT_GT(View(id)->delay_left_s, 0);
  AppendMetrics(id, Measure(Alloc(id), 1).line + "\n");
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(View(id)->delay_left_s, 0);
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));  // replayed: it has reported
  EXPECT_EQ(View(id)->delay_left_s, 0);
  // Not placed: no delay.
  slurm.RequeueBySlurm(id);
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(View(id)->delay_left_s, 0);
}

// An allocation that cannot be written is a fault: the agent stops before it releases the job.
// A second cifar10 job, admitted after the first reported once: its view (what its policy sees).
std::optional<GoodputJobView> SecondJobAfterTheFirstReported(AgentGoodputTest& t, AgentGoodputTest::Measured* first,
                                                             long long* second_id) {
  const long long id = t.RunningJob();
  *first = t.Measure(t.Alloc(id), 50);
  t.AppendMetrics(id, first->line + "\n");
  t.Step();
  *second_id = t.slurm.Submit("1", kComment);
  t.Step();
  return t.View(*second_id);
}

// sia-plus's history (docs/goodput.md, "History") in the agent as in the simulator: a job starts
// from what its application's earlier jobs reported (their samples on each type, the first gradient
// statistics), and a restarted agent rebuilds that from the journal. Under sia (no history) it
// starts from nothing of its own.
TEST_F(AgentGoodputTest, AJobStartsFromWhatItsApplicationsEarlierJobsReported) {
  policy = "sia-plus";
  Measured first;
  long long second_id = 0;
  std::optional<GoodputJobView> second = SecondJobAfterTheFirstReported(*this, &first, &second_id);
  ASSERT_TRUE(second.has_value());
  ASSERT_TRUE(second->params.has_value());
  const std::vector<ThroughputSample> samples = {first.sample};
  auto fitted = FitThroughputParams(samples, cifar10.reference().fit_tolerance());
  ASSERT_TRUE(fitted.ok());
  EXPECT_EQ(second->params->alpha_c, fitted->alpha_c);
  EXPECT_EQ(second->params->beta_c, fitted->beta_c);
  ASSERT_TRUE(second->grad.has_value());
  EXPECT_EQ(second->grad->sqr, first.grad.sqr);
  // Restarted: the same view from the replayed reports.
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));
  std::optional<GoodputJobView> again = View(second_id);
  ASSERT_TRUE(again.has_value());
  ASSERT_TRUE(again->params.has_value());
  EXPECT_EQ(again->params->alpha_c, fitted->alpha_c);
}

TEST_F(AgentGoodputTest, UnderSiaAJobStartsFromNothingOfItsApplication) {
  policy = "sia";
  Measured first;
  long long second_id = 0;
  std::optional<GoodputJobView> second = SecondJobAfterTheFirstReported(*this, &first, &second_id);
  ASSERT_TRUE(second.has_value());
  EXPECT_FALSE(second->params.has_value());
  EXPECT_FALSE(second->grad.has_value());
}

// A job's last reports, written between the agent's last poll and its end, are read once after
// it ended (found by the live test: tests/slurm_live/goodput_test.cc), then its file never again.
TEST_F(AgentGoodputTest, TheReportsAJobWroteJustBeforeItEndedAreRead) {
  const long long id = RunningJob();
  const Measured m = Measure(Alloc(id), 50);
  AppendMetrics(id, m.line + "\n");
  slurm.End(id);
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(agent->counts().finished, 1);
  EXPECT_EQ(Journaled("measure"), 1);
  AppendMetrics(id, m.line + "\n");  // nothing after its end is read
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Journaled("measure"), 1);
}

TEST_F(AgentGoodputTest, AnAllocationThatCannotBeWrittenStopsTheAgentBeforeTheRelease) {
  const long long id = slurm.Submit("1", kComment);
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));
  ASSERT_NO_FATAL_FAILURE(Step());
  std::filesystem::create_directories(AllocPath(dir, id));  // nothing can be renamed over it
  clock.SleepS(60);
  Status st = agent->Step();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("goodput job " + std::to_string(id) + ": its allocation cannot be written"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(slurm.Count("update", id), 0);
  EXPECT_EQ(slurm.Count("release", id), 0);
}

TEST_F(AgentGoodputTest, GoodputJobsNeedTheDirectoryAndAKnownApplication) {
  const long long no_dir = slurm.Submit("1", kComment);
  ASSERT_NO_FATAL_FAILURE(StartAgent(""));
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Reported("Slurm job " + std::to_string(no_dir) +
                     ": comment field 'application': this agent runs no goodput jobs"),
            1);
  const long long unknown = slurm.Submit("1", "hetsched application=nosuch total_batch_size=128");
  const long long typo =
      slurm.Submit("1", "hetsched application=cifar10 adaptive_bacth=1 total_batch_size=128");
  ASSERT_NO_FATAL_FAILURE(StartAgent(dir));
  ASSERT_NO_FATAL_FAILURE(Step());
  EXPECT_EQ(Reported("Slurm job " + std::to_string(unknown) +
                     ": comment field 'application': unknown application 'nosuch'"),
            1);
  EXPECT_EQ(Reported("Slurm job " + std::to_string(typo) + ": comment field 'adaptive_bacth' is unknown"), 1);
  EXPECT_EQ(agent->counts().rejected, 3);
  // A goodput directory that cannot be made stops the agent at its start, naming it.
  AgentOptions o;
  o.journal_path = journal;
  o.goodput_dir = "/dev/null/goodput";
  auto started = Agent::Start(slurm, clock, ModelZoo::BuiltIn(),
                              std::move(CreateMethods(MethodChoice{.policy = "sia"})).value(), o);
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.status().message().find("goodput directory /dev/null/goodput"), std::string::npos)
      << started.status().message();
}

}  // namespace
}  // namespace hetsched::slurm
