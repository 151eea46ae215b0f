// What a run produced, back-end neutral: the simulator fills it, the Slurm agent will too, and
// metrics/report read it.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "hetsched/model/cluster.h"
#include "hetsched/model/job.h"

namespace hetsched {

// What one run segment of a job (devices held from a start to a stop or a hold) adds to its record.
// The simulator and the Slurm agent both account a run so.
struct SegmentTotals {
  double gpu_seconds = 0, busy_energy_joules = 0, cost_usd = 0, cross_node_bytes = 0, iterations_run = 0;
  int span_nodes = 0;
  // `devices` devices of `type` held for `held_s` seconds: device time, energy above idle, price.
  static SegmentTotals Holding(const DeviceType& type, double devices, double held_s) {
    SegmentTotals seg;
    seg.gpu_seconds = held_s * devices;
    seg.busy_energy_joules = held_s * devices * (type.tdp_watts - type.idle_watts);
    seg.cost_usd = held_s / 3600.0 * devices * type.price_per_hour;
    return seg;
  }
  // `devices` of `cluster` held for `held_s` seconds, each at its own type's price and power: a job
  // split over two GPU types (docs/goodput.md, "Split jobs") holds both. `first` is the type of
  // the first device; where every device is of it, exactly Holding(first, devices.size(), held_s).
  static SegmentTotals HoldingDevices(const Cluster& cluster, std::span<const DeviceId> devices, DeviceTypeId first,
                                      double held_s) {
    const DeviceCatalog& catalog = cluster.device_catalog();
    const bool one_type = std::all_of(devices.begin(), devices.end(),
                                      [&](DeviceId d) { return cluster.device(d).type == first; });
    if (one_type) return Holding(catalog.type(first), static_cast<double>(devices.size()), held_s);
    std::vector<std::pair<DeviceTypeId, double>> count{{first, 0.0}};
    for (DeviceId d : devices) {
      const DeviceTypeId t = cluster.device(d).type;
      auto it = std::find_if(count.begin(), count.end(), [t](const auto& c) { return c.first == t; });
      if (it == count.end()) {
        count.emplace_back(t, 1.0);
      } else {
        it->second += 1;
      }
    }
    SegmentTotals seg = Holding(catalog.type(first), count.front().second, held_s);
    for (size_t i = 1; i < count.size(); ++i) {
      const SegmentTotals other = Holding(catalog.type(count[i].first), count[i].second, held_s);
      seg.gpu_seconds += other.gpu_seconds;
      seg.busy_energy_joules += other.busy_energy_joules;
      seg.cost_usd += other.cost_usd;
    }
    return seg;
  }
};

struct JobRecord {
  JobId id = 0;
  std::string name;
  std::string user;
  std::string model;
  int num_gpus = 0;
  int priority = 0;
  DeviceTypeId device_type = kNoDeviceType;  // catalog id of the last allocation's type
  std::string device_type_name;              // its name; empty if the job never ran
  double submit_s = 0;
  double first_start_s = -1;
  double finish_s = -1;          // -1: did not finish (run cut off, or dropped)
  double dropped_s = -1;         // when the scheduler ended it unfinished (SchedContext::DropJob); -1: never
  double deadline_s = kNoDeadline;
  double ideal_runtime_s = 0;    // alone, on its requested count of the fastest allowed type, packed
  double gpu_seconds = 0;        // device-seconds held (incl. restart overheads)
  double busy_energy_joules = 0; // energy above idle of the devices it held
  double cost_usd = 0;           // device-hours held x hourly price
  double cross_node_bytes = 0;
  int preemptions = 0;
  int resizes = 0;               // changes of a running job's devices (SchedContext::ResizeOn)
  double resize_pause_s = 0;     // seconds without progress those changes cost
  int max_span_nodes = 0;
  // Iterations its run segments advanced it by, summed segment by segment as each closes: an
  // account kept apart from the completion check (which compares the progress integrated at
  // completion with the job's true total). Not written to jobs.csv.
  double iterations_run = 0;

  // What the record takes from the job's spec (what its scheduler saw): id, name, user, model,
  // GPU count, priority, submission and deadline, times as the spec has them. The simulator and
  // the Slurm agent both fill a record's header so.
  void TakeSpec(const JobSpec& spec) {
    id = spec.id;
    name = spec.name;
    user = spec.user;
    model = spec.model;
    num_gpus = spec.num_gpus;
    priority = spec.priority;
    submit_s = spec.submit_time_s;
    deadline_s = spec.deadline_s;
  }
  void Add(const SegmentTotals& seg) {
    gpu_seconds += seg.gpu_seconds;
    busy_energy_joules += seg.busy_energy_joules;
    cost_usd += seg.cost_usd;
    cross_node_bytes += seg.cross_node_bytes;
    iterations_run += seg.iterations_run;
    max_span_nodes = std::max(max_span_nodes, seg.span_nodes);
  }
  bool finished() const { return finish_s >= 0; }
  double jct_s() const { return finish_s - submit_s; }
  double queueing_delay_s() const { return first_start_s - submit_s; }
};

// Step function of cluster occupancy, one sample per change (or per sampling interval). Its
// busy devices per type are in RunRecord::timeline_busy_by_type.
struct TimelineSample {
  double time_s = 0;
  int busy_devices = 0;
  int running_jobs = 0;
  int pending_jobs = 0;
};

// The highest load a link carried during the run (busier direction), and its capacity (after
// efficiency; 0 = unlimited or unknown). Links are "nic:<node>" and "uplink:<rack>".
struct LinkPeak {
  std::string link;
  double peak_Bps = 0;
  double capacity_Bps = 0;
};

struct RunRecord {
  std::string policy;
  std::string placer;
  std::string planner;
  std::string trace;
  std::string cluster_summary;
  unsigned long long seed = 0;
  int total_devices = 0;
  std::vector<std::string> device_types;     // names of types present, catalog order
  std::vector<int> devices_per_type;         // same order
  double idle_power_watts = 0;               // whole cluster, all devices idle
  std::vector<JobRecord> jobs;               // in job-id order (rejected jobs excluded)
  long long jobs_rejected = 0;               // jobs that could never fit, skipped by request
  long long jobs_dropped = 0;                // jobs the scheduler ended unfinished (JobRecord::dropped_s)
  std::vector<std::string> rejected_reasons; // the first few
  std::vector<TimelineSample> timeline;      // time order
  // Busy devices per type of every timeline sample, one row of device_types.size() counts per
  // sample, flat (a vector in each sample cost more than the sample itself: 7.7M samples on a
  // 1M-job Tiresias-LAS run). Use BusyByType(i) and AppendSample().
  std::vector<int> timeline_busy_by_type;
  std::vector<LinkPeak> link_peaks;          // links that carried cross-node traffic
  // Where the simulator's true speed came from: jobs that ran at measured throughputs throughout,
  // jobs of a measured type that ran at least once in a configuration the table lacks (GPU count,
  // or a measured failure) and got the model there, jobs timed by their trace's run time
  // (JobTruth::runtime_s), goodput jobs (their application's profile, JobSpec::application), and
  // the rest (the performance model throughout).
  bool truth_table_used = false;
  long long jobs_truth_measured = 0;
  long long jobs_truth_model = 0;
  long long jobs_truth_mixed = 0;
  long long jobs_truth_runtime = 0;
  long long jobs_truth_goodput = 0;  // goodput jobs: their application's measured profile
  bool truth_reported() const { return truth_table_used || jobs_truth_runtime > 0 || jobs_truth_goodput > 0; }
  long long events = 0;
  long long scheduler_calls = 0;
  double wall_seconds = 0;                   // simulator wall-clock (not part of determinism)

  // Sample i's busy devices per type (device_types order); empty if the row is missing.
  std::span<const int> BusyByType(size_t i) const {
    const size_t width = device_types.size();
    if ((i + 1) * width > timeline_busy_by_type.size()) return {};
    return std::span<const int>(timeline_busy_by_type).subspan(i * width, width);
  }
  // Appends a sample and its row. REQUIRES: busy_by_type.size() == device_types.size().
  void AppendSample(const TimelineSample& s, std::span<const int> busy_by_type) {
    timeline.push_back(s);
    timeline_busy_by_type.insert(timeline_busy_by_type.end(), busy_by_type.begin(), busy_by_type.end());
  }
};

}  // namespace hetsched
