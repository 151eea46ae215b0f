#include "hetsched/metrics/summary.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hetsched {
namespace {

JobRecord Job(JobId id, int gpus, double submit, double start, double finish, double ideal) {
  JobRecord j;
  j.id = id;
  j.num_gpus = gpus;
  j.submit_s = submit;
  j.first_start_s = start;
  j.finish_s = finish;
  j.ideal_runtime_s = ideal;
  return j;
}

TimelineSample Sample(double t, int busy, int running, int pending) {
  TimelineSample s;
  s.time_s = t;
  s.busy_devices = busy;
  s.running_jobs = running;
  s.pending_jobs = pending;
  return s;
}

// Four devices, idle power 100 W.
//   J0: 2 GPUs, submit 0,  start 0,   finish 100, ideal 100, deadline 150 (met)
//   J1: 2 GPUs, submit 0,  start 0,   finish 200, ideal 100, deadline 150 (missed), 1 preemption
//   J2: 2 GPUs, submit 50, start 100, finish 300, ideal 100
//   J3: 4 GPUs, submit 100, start 300, cut off (unfinished), deadline 1000 (missed), 2 preemptions
// Timeline (busy, running, pending):
//   t=0 (4,2,0)  t=50 (4,2,1)  t=100 (4,2,1)  t=200 (2,1,1)  t=300 (4,1,0)
RunRecord HandMadeRun() {
  RunRecord run;
  run.total_devices = 4;
  run.idle_power_watts = 100;
  run.jobs = {Job(0, 2, 0, 0, 100, 100), Job(1, 2, 0, 0, 200, 100), Job(2, 2, 50, 100, 300, 100),
              Job(3, 4, 100, 300, -1, 100)};
  run.jobs[0].deadline_s = 150;
  run.jobs[1].deadline_s = 150;
  run.jobs[3].deadline_s = 1000;
  const double cost[] = {1.0, 2.0, 3.0, 0.5};
  const double energy[] = {1000, 2000, 3000, 500};
  const double cross[] = {1e9, 0, 2e9, 0};
  const int preempt[] = {0, 1, 0, 2};
  for (size_t i = 0; i < 4; ++i) {
    run.jobs[i].cost_usd = cost[i];
    run.jobs[i].busy_energy_joules = energy[i];
    run.jobs[i].cross_node_bytes = cross[i];
    run.jobs[i].preemptions = preempt[i];
  }
  run.timeline = {Sample(0, 4, 2, 0), Sample(50, 4, 2, 1), Sample(100, 4, 2, 1), Sample(200, 2, 1, 1),
                  Sample(300, 4, 1, 0)};
  return run;
}

TEST(Summarize, HandMadeRun) {
  const Summary s = Summarize(HandMadeRun());
  EXPECT_EQ(s.jobs_total, 4);
  EXPECT_EQ(s.jobs_finished, 3);

  // JCT over finished jobs: 100, 200, 250. Mean 550/3; nearest rank: median = rank ceil(1.5)=2
  // -> 200; p95 = rank ceil(2.85)=3 -> 250; p99 -> 250.
  EXPECT_EQ(s.jct_s.count, 3);
  EXPECT_DOUBLE_EQ(s.jct_s.mean, 550.0 / 3);
  EXPECT_DOUBLE_EQ(s.jct_s.median, 200);
  EXPECT_DOUBLE_EQ(s.jct_s.p95, 250);
  EXPECT_DOUBLE_EQ(s.jct_s.p99, 250);
  EXPECT_DOUBLE_EQ(s.jct_s.max, 250);

  // Queueing: 0, 0, 50 -> mean 50/3, median 0 (rank 2), p95 50.
  EXPECT_DOUBLE_EQ(s.queueing_delay_s.mean, 50.0 / 3);
  EXPECT_DOUBLE_EQ(s.queueing_delay_s.median, 0);
  EXPECT_DOUBLE_EQ(s.queueing_delay_s.p95, 50);

  // Slowdown JCT/ideal: 1, 2, 2.5 -> mean 5.5/3, median 2, max 2.5.
  EXPECT_DOUBLE_EQ(s.slowdown.mean, 5.5 / 3);
  EXPECT_DOUBLE_EQ(s.slowdown.median, 2);
  EXPECT_DOUBLE_EQ(s.slowdown.max, 2.5);

  // Makespan: last finish 300 - first submit 0.
  EXPECT_DOUBLE_EQ(s.makespan_s, 300);
  // Busy device-seconds on [0,300]: 4*100 + 4*100 + 2*100 = 1000 (the sample at 300 has no
  // width inside the window). Utilisation = 1000 / (4 * 300) = 5/6.
  EXPECT_DOUBLE_EQ(s.utilisation, 1000.0 / 1200.0);
  // Cost 1 + 2 + 3 + 0.5; energy 100 W * 300 s + (1000+2000+3000+500) J = 36500 J.
  EXPECT_DOUBLE_EQ(s.cost_usd, 6.5);
  EXPECT_DOUBLE_EQ(s.energy_joules, 36500);

  // Jain: x = ideal/JCT = 1, 0.5, 0.4; (1.9)^2 / (3 * (1 + 0.25 + 0.16)) = 3.61 / 4.23.
  EXPECT_NEAR(s.jain_fairness, 3.61 / 4.23, 1e-12);

  // FTF. Active jobs (running+pending): [0,50) 2, [50,200) 3, [200,300) 2, then 1.
  //   J0 on [0,100]:  (2*50 + 3*50)/100 = 2.5;  T_ind = 100*max(1, 2*2.5/4) = 125;   rho = 0.8
  //   J1 on [0,200]:  (100 + 3*150)/200 = 2.75; T_ind = 100*1.375 = 137.5;           rho = 16/11
  //   J2 on [50,300]: (3*150 + 2*100)/250 = 2.6; T_ind = 100*1.3 = 130;               rho = 25/13
  EXPECT_NEAR(s.ftf_max, 25.0 / 13, 1e-12);
  EXPECT_NEAR(s.ftf_mean, (0.8 + 16.0 / 11 + 25.0 / 13) / 3, 1e-12);

  EXPECT_DOUBLE_EQ(s.cross_node_bytes, 3e9);
  // J1 finished at 200 > 150; J3 never finished and has a deadline. J0 met its deadline.
  EXPECT_EQ(s.deadline_misses, 2);
  EXPECT_EQ(s.preemptions, 3);
}

TEST(Summarize, FtfShareNeverBelowIdealRuntime) {
  // One 1-GPU job alone on 8 devices: N_avg = 1, share term 1*1/8 < 1, so T_ind = ideal = 40 and
  // rho = JCT/ideal = 60/40 = 1.5. Jain's index of a single job is 1.
  RunRecord run;
  run.total_devices = 8;
  run.jobs = {Job(0, 1, 10, 30, 70, 40)};
  run.timeline = {Sample(10, 0, 0, 1), Sample(30, 1, 1, 0), Sample(70, 0, 0, 0)};
  const Summary s = Summarize(run);
  EXPECT_DOUBLE_EQ(s.ftf_max, 1.5);
  EXPECT_DOUBLE_EQ(s.ftf_mean, 1.5);
  EXPECT_DOUBLE_EQ(s.jain_fairness, 1);
  // Busy device-seconds on [10,70]: 1*40 = 40 over 8*60 = 480 -> 1/12.
  EXPECT_DOUBLE_EQ(s.utilisation, 40.0 / 480);
}

TEST(Summarize, JainOfEqualAndUnequalShares) {
  // Two jobs, ideal 10 each; JCTs 10 and 10 -> x = 1, 1 -> J = 4/(2*2) = 1.
  RunRecord equal;
  equal.total_devices = 2;
  equal.jobs = {Job(0, 1, 0, 0, 10, 10), Job(1, 1, 0, 0, 10, 10)};
  EXPECT_DOUBLE_EQ(Summarize(equal).jain_fairness, 1);
  // JCTs 10 and 40 -> x = 1, 0.25 -> (1.25)^2 / (2 * 1.0625) = 1.5625 / 2.125 = 0.735294...
  RunRecord unequal = equal;
  unequal.jobs[1].finish_s = 40;
  EXPECT_NEAR(Summarize(unequal).jain_fairness, 1.5625 / 2.125, 1e-12);
}

void ExpectAllFinite(const Summary& s) {
  for (const Distribution* d : {&s.jct_s, &s.queueing_delay_s, &s.slowdown}) {
    for (double v : {d->mean, d->median, d->p95, d->p99, d->max}) EXPECT_TRUE(std::isfinite(v));
  }
  for (double v : {s.makespan_s, s.utilisation, s.cost_usd, s.energy_joules, s.jain_fairness, s.ftf_max,
                   s.ftf_mean, s.cross_node_bytes}) {
    EXPECT_TRUE(std::isfinite(v));
  }
}

TEST(Summarize, EmptyRecord) {
  const Summary s = Summarize(RunRecord{});
  EXPECT_EQ(s.jobs_total, 0);
  EXPECT_EQ(s.jobs_finished, 0);
  EXPECT_EQ(s.jct_s.count, 0);
  EXPECT_DOUBLE_EQ(s.makespan_s, 0);
  EXPECT_DOUBLE_EQ(s.utilisation, 0);
  EXPECT_DOUBLE_EQ(s.energy_joules, 0);
  EXPECT_DOUBLE_EQ(s.jain_fairness, 0);
  ExpectAllFinite(s);
}

TEST(Summarize, NoFinishedJobs) {
  // One job cut off while running: no JCT, makespan 0 (nothing finished), energy = its busy
  // energy only (idle power * 0 s), deadline counted as missed.
  RunRecord run;
  run.total_devices = 4;
  run.idle_power_watts = 50;
  run.jobs = {Job(0, 2, 0, 5, -1, 100)};
  run.jobs[0].busy_energy_joules = 700;
  run.jobs[0].deadline_s = 1e6;
  run.timeline = {Sample(0, 0, 0, 1), Sample(5, 2, 1, 0)};
  const Summary s = Summarize(run);
  EXPECT_EQ(s.jobs_finished, 0);
  EXPECT_DOUBLE_EQ(s.makespan_s, 0);
  EXPECT_DOUBLE_EQ(s.utilisation, 0);
  EXPECT_DOUBLE_EQ(s.energy_joules, 700);
  EXPECT_EQ(s.deadline_misses, 1);
  ExpectAllFinite(s);
}

TEST(Summarize, ZeroMakespan) {
  // A job submitted and finished at t=10 (zero JCT): makespan 0, utilisation 0, and the job is
  // left out of Jain/FTF (ideal/JCT undefined), which then read 0.
  RunRecord run;
  run.total_devices = 1;
  run.jobs = {Job(0, 1, 10, 10, 10, 5)};
  run.timeline = {Sample(10, 0, 0, 0)};
  const Summary s = Summarize(run);
  EXPECT_EQ(s.jobs_finished, 1);
  EXPECT_DOUBLE_EQ(s.makespan_s, 0);
  EXPECT_DOUBLE_EQ(s.utilisation, 0);
  EXPECT_DOUBLE_EQ(s.jain_fairness, 0);
  EXPECT_DOUBLE_EQ(s.ftf_max, 0);
  EXPECT_DOUBLE_EQ(s.slowdown.max, 0);  // 0 / 5
  ExpectAllFinite(s);
}

TEST(Describe, NearestRankPercentiles) {
  // 1..20: median = rank ceil(10) = 10; p95 = rank ceil(19) = 19 (not 20: 0.95*20 must be
  // exactly 19); p99 = rank ceil(19.8) = 20. Mean 210/20 = 10.5.
  std::vector<double> v;
  for (int i = 20; i >= 1; --i) v.push_back(i);  // unsorted on purpose
  const Distribution d = Describe(v);
  EXPECT_EQ(d.count, 20);
  EXPECT_DOUBLE_EQ(d.mean, 10.5);
  EXPECT_DOUBLE_EQ(d.median, 10);
  EXPECT_DOUBLE_EQ(d.p95, 19);
  EXPECT_DOUBLE_EQ(d.p99, 20);
  EXPECT_DOUBLE_EQ(d.max, 20);
  // 1..100: p95 = 95, p99 = 99; 1..101: p99 = rank ceil(99.99) = 100.
  std::vector<double> w;
  for (int i = 1; i <= 100; ++i) w.push_back(i);
  EXPECT_DOUBLE_EQ(Describe(w).p95, 95);
  EXPECT_DOUBLE_EQ(Describe(w).p99, 99);
  w.push_back(101);
  EXPECT_DOUBLE_EQ(Describe(w).p99, 100);
}

TEST(Describe, SingleEmptyAndNonFinite) {
  const Distribution one = Describe({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.p99, 7);
  const Distribution none = Describe({});
  EXPECT_EQ(none.count, 0);
  EXPECT_DOUBLE_EQ(none.mean, 0);
  // Non-finite values are ignored: {3, NaN, inf, 5} -> {3, 5}.
  const Distribution d = Describe({3, std::nan(""), INFINITY, 5});
  EXPECT_EQ(d.count, 2);
  EXPECT_DOUBLE_EQ(d.mean, 4);
  EXPECT_DOUBLE_EQ(d.median, 3);
}

}  // namespace
}  // namespace hetsched
