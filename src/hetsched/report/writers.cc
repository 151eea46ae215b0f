// Per-run output files: summary.json, jobs.csv, timeline.csv (formats in docs/formats-output.md).
// The comparison table lives in comparison.cc.
#include "hetsched/report/writers.h"


#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "hetsched/metrics/step_integral.h"
#include "hetsched/report/format.h"
#include "hetsched/report/run_record_json.h"
#include "hetsched/report/timeline_resample.h"
#include "hetsched/util/file_io.h"

namespace hetsched {
namespace {

using Json = nlohmann::ordered_json;  // insertion order = the documented key order

// JSON precision: seconds to the millisecond, money to 1e-4 $, energy to 0.1 J, ratios to 1e-6.
constexpr int kSecondsDecimals = 3;
constexpr int kRatioDecimals = 6;
constexpr int kUsdDecimals = 4;
constexpr int kJouleDecimals = 1;

Json DistributionJson(const Distribution& d, int decimals) {
  Json j;
  j["count"] = d.count;
  j["mean"] = RoundTo(d.mean, decimals);
  j["median"] = RoundTo(d.median, decimals);
  j["p95"] = RoundTo(d.p95, decimals);
  j["p99"] = RoundTo(d.p99, decimals);
  j["max"] = RoundTo(d.max, decimals);
  return j;
}

// Bytes are whole numbers; written as integers while they fit in 64 bits.
Json BytesJson(double bytes) {
  if (std::isfinite(bytes) && std::fabs(bytes) < 9e18) return static_cast<long long>(std::llround(bytes));
  return RoundTo(bytes, 0);
}

// Busy fraction of each device type over the makespan window [first submit, first submit +
// makespan]: busy device-seconds of the type / (devices of the type x makespan).
Json BusyFractionByType(const RunRecord& run, const Summary& summary) {
  Json by_type = Json::object();
  double first_submit_s = 0;
  if (!run.jobs.empty()) {
    first_submit_s = run.jobs.front().submit_s;
    for (const JobRecord& job : run.jobs) first_submit_s = std::min(first_submit_s, job.submit_s);
  }
  for (size_t k = 0; k < run.device_types.size(); ++k) {
    const int devices = k < run.devices_per_type.size() ? run.devices_per_type[k] : 0;
    double fraction = 0;
    if (devices > 0 && summary.makespan_s > 0) {
      const TimelineValueAt busy_of_type = [&run, k](size_t i) {
        const std::span<const int> row = run.BusyByType(i);
        return k < row.size() ? static_cast<double>(row[k]) : 0.0;
      };
      const double busy_s =
          IntegrateTimeline(run.timeline, busy_of_type, first_submit_s, first_submit_s + summary.makespan_s);
      fraction = busy_s / (devices * summary.makespan_s);
    }
    by_type[run.device_types[k]] = RoundTo(fraction, kRatioDecimals);
  }
  return by_type;
}

void AppendInteger(long long v, std::string* out) {
  char buffer[24];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  out->append(buffer, static_cast<size_t>(end - buffer));
}

// One CSV row appended field by field to a file's text, a comma before every field but the
// first (a formatted string per field cost more than a 2,000-job simulation).
class CsvRow {
 public:
  explicit CsvRow(std::string* out) : out_(out) {}
  CsvRow& Text(std::string_view v) {
    Separate();
    AppendCsvField(v, out_);
    return *this;
  }
  CsvRow& Integer(long long v) {
    Separate();
    AppendInteger(v, out_);
    return *this;
  }
  // An empty field when not `present` ("not applicable": unfinished job, no deadline) or not finite.
  CsvRow& Real(double v, int decimals, bool present = true) {
    Separate();
    if (present) AppendTrimmed(v, decimals, out_);
    return *this;
  }
  void End() { out_->push_back('\n'); }

 private:
  void Separate() {
    if (!first_) out_->push_back(',');
    first_ = false;
  }
  std::string* out_;
  bool first_ = true;
};

}  // namespace

std::string SummaryJson(const RunRecord& run, const Summary& summary) {
  Json j;
  AppendRunIdentity(run, &j);
  j["jobs_total"] = summary.jobs_total;
  j["jobs_finished"] = summary.jobs_finished;
  j["jobs_dropped"] = summary.jobs_dropped;
  j["jct_s"] = DistributionJson(summary.jct_s, kSecondsDecimals);
  j["queueing_delay_s"] = DistributionJson(summary.queueing_delay_s, kSecondsDecimals);
  j["slowdown"] = DistributionJson(summary.slowdown, kRatioDecimals);
  j["makespan_s"] = RoundTo(summary.makespan_s, kSecondsDecimals);
  j["utilisation"] = RoundTo(summary.utilisation, kRatioDecimals);
  j["busy_fraction_by_type"] = BusyFractionByType(run, summary);
  j["cost_usd"] = RoundTo(summary.cost_usd, kUsdDecimals);
  j["energy_joules"] = RoundTo(summary.energy_joules, kJouleDecimals);
  j["jain_fairness"] = RoundTo(summary.jain_fairness, kRatioDecimals);
  j["ftf_max"] = RoundTo(summary.ftf_max, kRatioDecimals);
  j["ftf_mean"] = RoundTo(summary.ftf_mean, kRatioDecimals);
  j["cross_node_bytes"] = BytesJson(summary.cross_node_bytes);
  if (!run.link_peaks.empty()) {
    // Only runs whose traffic left a node carry link figures (older outputs stay unchanged).
    j["peak_nic_load_Bps"] = BytesJson(summary.peak_nic_load_Bps);
    j["peak_uplink_load_Bps"] = BytesJson(summary.peak_uplink_load_Bps);
    j["peak_link_utilisation"] = RoundTo(summary.peak_link_utilisation, kRatioDecimals);
    Json links = Json::array();
    for (const LinkPeak& link : run.link_peaks) {
      links.push_back({{"link", link.link}, {"peak_Bps", BytesJson(link.peak_Bps)}, {"capacity_Bps", BytesJson(link.capacity_Bps)}});
    }
    j["link_peaks"] = links;
  }
  j["deadline_misses"] = summary.deadline_misses;
  j["preemptions"] = summary.preemptions;
  j["events"] = run.events;
  j["scheduler_calls"] = run.scheduler_calls;
  if (run.truth_reported()) {
    j["truth"] = {{"measured_jobs", run.jobs_truth_measured},
                  {"model_jobs", run.jobs_truth_model},
                  {"mixed_jobs", run.jobs_truth_mixed},
                  {"trace_runtime_jobs", run.jobs_truth_runtime}};
    if (run.jobs_truth_goodput > 0) j["truth"]["goodput_profile_jobs"] = run.jobs_truth_goodput;
  }
  // run.wall_seconds is left out on purpose: it differs between identical runs.
  return j.dump(2) + "\n";
}

std::string JobsCsv(const RunRecord& run) {
  std::string out =
      "id,name,user,model,num_gpus,priority,device_type,submit_s,first_start_s,finish_s,"
      "deadline_s,jct_s,queueing_delay_s,ideal_runtime_s,slowdown,gpu_seconds,"
      "busy_energy_joules,cost_usd,cross_node_bytes,preemptions,max_span_nodes\n";
  out.reserve(out.size() + 160 * run.jobs.size());  // about a row's length
  for (const JobRecord& job : run.jobs) {
    const bool started = job.first_start_s >= 0;
    const bool finished = job.finished();
    const bool slowdown_defined = finished && job.ideal_runtime_s > 0;
    CsvRow(&out)
        .Integer(job.id)
        .Text(job.name)
        .Text(job.user)
        .Text(job.model)
        .Integer(job.num_gpus)
        .Integer(job.priority)
        .Text(job.device_type_name)
        .Real(job.submit_s, kSecondsDecimals)
        .Real(job.first_start_s, kSecondsDecimals, started)
        .Real(job.finish_s, kSecondsDecimals, finished)
        .Real(job.deadline_s, kSecondsDecimals)
        .Real(job.jct_s(), kSecondsDecimals, finished)
        .Real(job.queueing_delay_s(), kSecondsDecimals, started)
        .Real(job.ideal_runtime_s, kSecondsDecimals)
        .Real(slowdown_defined ? job.jct_s() / job.ideal_runtime_s : 0.0, kRatioDecimals, slowdown_defined)
        .Real(job.gpu_seconds, kSecondsDecimals)
        .Real(job.busy_energy_joules, kJouleDecimals)
        .Real(job.cost_usd, kUsdDecimals)
        .Real(job.cross_node_bytes, 0)
        .Integer(job.preemptions)
        .Integer(job.max_span_nodes)
        .End();
  }
  return out;
}

std::string TimelineCsv(const RunRecord& run, int max_rows) {
  std::string out = "time_s,busy_devices,running_jobs,pending_jobs";
  for (const std::string& type : run.device_types) out += "," + CsvField("busy_" + type);
  out += "\n";
  // Resampled rows hold averages: three decimals keep them readable and stable.
  for (const TimelineRow& row : ResampleTimeline(run, max_rows)) {
    CsvRow line(&out);
    line.Real(row.time_s, kSecondsDecimals);
    for (double v : {row.busy_devices, row.running_jobs, row.pending_jobs}) line.Real(v, 3);
    for (double v : row.busy_by_type) line.Real(v, 3);
    line.End();
  }
  return out;
}

Status WriteRunOutputs(const std::string& dir, const RunRecord& run, const Summary& summary) {
  const std::string where = dir.empty() ? "." : dir;
  HETSCHED_RETURN_IF_ERROR(MakeDirs(where));
  const std::string base = where.back() == '/' ? where : where + "/";
  // WriteFileAtomic's errors already start with the full path of the file that failed.
  HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(base + "summary.json", SummaryJson(run, summary)));
  HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(base + "jobs.csv", JobsCsv(run)));
  HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(base + "timeline.csv", TimelineCsv(run)));
  return Status::Ok();
}

}  // namespace hetsched
