// A running job's speed: its truth (model, measured table or trace run time), the link load
// it shares with other jobs, and its re-timing when that load changes, at once or deferred to
// the end of a scheduling call (simulator_impl.h).
#include <algorithm>
#include <utility>
#include <vector>

#include "hetsched/sim/simulator_impl.h"

namespace hetsched::sim_internal {

void Simulator::RegisterTraffic(JobId id, int delta, std::vector<LinkEntry>* affected) {
  const RunState& job = runs_[static_cast<size_t>(id)];
  const ActiveRun& run = active(job);
  const LinkEntry self{UplinkKey(run), static_cast<int32_t>(id), job.active};
  // The lists' entries are the cold part (a cache miss each at a million jobs): fetch them all
  // at once rather than one after another in the walk below.
  for (NodeId node : run.nics) __builtin_prefetch(nic_jobs_[static_cast<size_t>(node)].data());
  for (NodeId node : run.nics) {
    const size_t n = static_cast<size_t>(node);
    nic_flows_[n] += delta;
    std::vector<LinkEntry>& jobs = nic_jobs_[n];
    if (delta > 0) {
      jobs.push_back(self);
    } else {
      jobs.erase(std::find_if(jobs.begin(), jobs.end(), [&](const LinkEntry& e) { return e.id == self.id; }));
    }
    // Every job on the NIC is re-timed; MeetChangedLink says whether its estimate is recomputed
    // (a NIC without a figure: always).
    const double capacity = link_capacities_.nic_Bps[n];
    const double before = PerFlowShare(capacity, nic_flows_[n] - delta);
    const double after = PerFlowShare(capacity, nic_flows_[n]);
    for (const LinkEntry& other : jobs) {
      if (other.id == self.id) continue;
      ChangeMark& mark = change_mark_[static_cast<size_t>(other.slot)];
      if ((mark.flags & kListed) == 0) affected->push_back(other);
      mark.flags |= kListed;
      if (!options_.contention) continue;  // every estimate is recomputed (ChangeTraffic)
      if (capacity < 0) {
        mark.flags |= kLinkBound;
      } else {
        MeetChangedLink(other.key, before, after, &mark);
      }
    }
  }
  for (RackId r : run.uplinks) {
    const size_t rack = static_cast<size_t>(r);
    uplink_flows_[rack] += delta;
    // A rack without a declared uplink has full bisection: no one's speed depends on its flows.
    const double capacity = link_capacities_.uplink_Bps[rack];
    if (capacity < 0) continue;
    FlatSet<LinkEntry>& jobs = uplink_jobs_[rack];
    if (delta > 0) {
      jobs.insert(self);
    } else {
      jobs.erase(self);
    }
    if (!options_.contention) continue;  // the load is not modelled: no speed changes
    // A job whose slowest link is slower than the uplink's share before and after (another link)
    // keeps its speed, and is not met.
    const double before = PerFlowShare(capacity, uplink_flows_[rack] - delta);
    const double after = PerFlowShare(capacity, uplink_flows_[rack]);
    const double busier = std::min(before, after);
    for (auto it = jobs.rbegin(); it != jobs.rend() && !(it->key < busier); ++it) {
      if (it->id == self.id) continue;
      ChangeMark& mark = change_mark_[static_cast<size_t>(it->slot)];
      if ((mark.flags & kListed) == 0) affected->push_back(*it);
      mark.flags |= kListed;
      MeetChangedLink(it->key, before, after, &mark);
    }
  }
}

void Simulator::MeetChangedLink(double key, double before, double after, ChangeMark* mark) {
  // Slower elsewhere before and after the change: the link is neither at nor below its key.
  if (key < std::min(before, after)) return;
  if (mark->ties == kTiesUnknown) {
    mark->flags |= kLinkBound;
    return;
  }
  if (before == key) {
    --mark->ties;
  } else if (before < key) {
    --mark->below;
  }
  if (after == key) {
    ++mark->ties;
  } else if (after < key) {
    ++mark->below;
  }
}

uint8_t Simulator::CountTies(const ActiveRun& run) const {
  const double key = run.estimate.ring_path_Bps;
  // Only a ring whose slowest bandwidth PathOverNodes found over the prepared nodes (the NICs it
  // crosses, plus their racks' uplinks where it crosses racks) has a key this can count.
  if (!options_.contention || !(key > 0) || run.nics.empty() || !run.prepared.split || run.prepared.nodes.empty() ||
      run.plan.parallelism != Parallelism::kDataRing || !run.plan.containers.empty() ||
      run.nics.size() + run.uplinks.size() >= kTiesUnknown) {
    return kTiesUnknown;
  }
  int ties = 0;
  for (NodeId node : run.nics) {
    const size_t n = static_cast<size_t>(node);
    const double capacity = link_capacities_.nic_Bps[n];
    if (capacity >= 0 && PerFlowShare(capacity, nic_flows_[n]) == key) ++ties;
  }
  if (run.prepared.crosses_racks) {
    for (RackId r : run.uplinks) {
      const size_t rack = static_cast<size_t>(r);
      const double capacity = link_capacities_.uplink_Bps[rack];
      if (capacity >= 0 && PerFlowShare(capacity, uplink_flows_[rack]) == key) ++ties;
    }
  }
  return static_cast<uint8_t>(ties);
}

double Simulator::MeasuredRate(JobId id, RunState& job) {
  const ActiveRun& run = active(job);
  const int count = static_cast<int>(run.plan.devices.size());
  const DeviceTypeId type = cluster_.device(run.plan.devices.front()).type;
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  const double steps_per_s = count == spec.num_gpus
                                 ? options_.measured_throughputs->StepsPerSecond(
                                       job.measured_type, type, count,
                                       options_.measured_always_consolidated || run.estimate.span_nodes <= 1)
                                 : 0.0;
  if (steps_per_s <= 0) {
    job.measured_fallback = true;
    return run.rate;
  }
  return steps_per_s * ContentionSlowdown(job);
}

double Simulator::ContentionSlowdown(const RunState& job) const {
  const ActiveRun& run = active(job);
  if (!options_.contention || run.nics.empty() || run.estimate.iteration_s <= 0) return 1.0;
  const IterationEstimate alone = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, LinkLoad{});
  return std::min(1.0, alone.iteration_s / run.estimate.iteration_s);
}

Result<double> Simulator::PackedIterationS(DeviceTypeId type, const ModelProfile& model, int batch, int count) {
  auto it = calibrators_.find(type);
  if (it == calibrators_.end()) {
    HETSCHED_ASSIGN_OR_RETURN(RuntimeCalibrator made,
                              RuntimeCalibrator::Create(cluster_.device_catalog(), cluster_.link_catalog(),
                                                        cluster_.device_catalog().type(type).name));
    it = calibrators_.emplace(type, std::move(made)).first;
  }
  return it->second.IterationSeconds(model, batch, count);
}

Result<double> Simulator::RuntimeTruthRate(JobId id, const RunState& run, DeviceTypeId type, int count) {
  const JobSpec& spec = workload_.jobs[static_cast<size_t>(id)].spec;
  if (type == runtime_type_ && count == spec.num_gpus) return run.runtime_rate;  // the trace's own figure
  // Iterations are of spec.num_gpus x batch samples: compare sample throughputs.
  HETSCHED_ASSIGN_OR_RETURN(const double on_s, PackedIterationS(type, *run.model, spec.batch_size, count));
  HETSCHED_ASSIGN_OR_RETURN(const double ref_s, PackedIterationS(runtime_type_, *run.model, spec.batch_size,
                                                                 spec.num_gpus));
  return run.runtime_rate * (static_cast<double>(count) / on_s) / (static_cast<double>(spec.num_gpus) / ref_s);
}

void Simulator::Retime(JobId id, bool estimate_current) {
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  Advance(job);
  if (estimate_current) {
    // The same estimate gives the same rate, link meter entry, visible rate and keys: only the
    // progress is re-based at now, which moves the completion time's last bits.
    Reschedule(id);
    return;
  }
  // Only the communication depends on the load: the rest was computed at the start.
  const double old_key = UplinkKey(run);
  run.estimate = EstimateUnderLoad(run.prepared, *job.model, run.plan, cluster_, CurrentLoad());
  ChangeMark& counted = change_mark_[static_cast<size_t>(job.active)];
  counted.ties = CountTies(run);
  counted.below = 0;  // its key is the least share of its links
  if (const double key = UplinkKey(run); key != old_key) {
    const auto id32 = static_cast<int32_t>(id);
    for (RackId r : run.uplinks) {
      FlatSet<LinkEntry>& jobs = uplink_jobs_[static_cast<size_t>(r)];
      if (jobs.erase({old_key, id32, job.active}) > 0) jobs.insert({key, id32, job.active});
    }
    for (NodeId node : run.nics) {
      for (LinkEntry& entry : nic_jobs_[static_cast<size_t>(node)]) {
        if (entry.id == id32) entry.key = key;
      }
    }
  }
  // Progress is counted in iterations of the job as submitted (num_gpus x batch samples), so a
  // job that a scheduler runs on more or fewer devices than it asked for (elastic scheduling)
  // progresses at its sample throughput over that.
  run.rate = run.estimate.samples_per_s > 0 && job.samples_per_iteration > 0
                 ? run.estimate.samples_per_s / job.samples_per_iteration
                 : 0.0;
  if (job.measured_type >= 0) {
    run.rate = MeasuredRate(id, job);
  } else if (job.runtime_rate > 0 && !run.plan.devices.empty()) {
    const Result<double> truth = RuntimeTruthRate(id, job, cluster_.device(run.plan.devices.front()).type,
                                                  static_cast<int>(run.plan.devices.size()));
    // Where the model cannot run the job (no estimate), its own rate stays the truth.
    if (truth.ok()) run.rate = *truth * ContentionSlowdown(job);
  }
  if (!run.nics.empty()) traffic_.Set(job.active, run.traffic, run.estimate.iteration_s);
  status_[static_cast<size_t>(id)].iteration_rate = run.idle ? 0.0 : run.rate;
  Reschedule(id);
}

void Simulator::Reschedule(JobId id) {
  RunState& job = runs_[static_cast<size_t>(id)];
  ActiveRun& run = active(job);
  double finish = EventQueue::kNever;
  if (run.rate > 0 && !run.idle) {
    const double from = std::max(now_, run.progress_from_s);
    finish = from + (std::min(job.total_iterations, run.mark) - job.done_at_update) / run.rate;
  }
  if (finish != run.completion_s) {  // often the same: a neighbour's change left this job's speed alone
    events_.SetCompletion(id, finish);
    run.completion_s = finish;
  }
}

void Simulator::ChangeTraffic(JobId id, int delta) {
  std::vector<LinkEntry>& affected = scratch_affected_;
  affected.clear();
  RegisterTraffic(id, delta, &affected);
  if (delta > 0) Retime(id);
  // Each job once, in the order met (re-times of distinct jobs at one instant commute: each reads
  // the load this change left and writes only its own speed, keys and completion).
  for (const LinkEntry& entry : affected) {
    // Its estimate stands unless a changed link it crosses is or becomes its slowest (marked by
    // RegisterTraffic), or the load is not modelled at all (then it is recomputed, as always).
    // A job whose links are counted keeps its estimate while its key stands; deferred, that is
    // decided at the flush, after the call's other changes (FlushRetime).
    const JobId other = entry.id;
    ChangeMark& mark = change_mark_[static_cast<size_t>(entry.slot)];
    const bool counted = mark.ties != kTiesUnknown;
    const bool survives = options_.contention && (counted ? KeyStands(mark) : (mark.flags & kLinkBound) == 0);
    mark.flags = 0;
    if (!defer_retimes_) {
      Retime(other, survives);
    } else if (retime_mark_[static_cast<size_t>(other)] != kRetimeEstimate) {  // else recomputed anyway
      DeferRetime(other, counted || survives);
    }
  }
  if (const RunState& job = runs_[static_cast<size_t>(id)]; delta < 0 && !active(job).nics.empty()) {
    traffic_.Remove(job.active);
  }
}

void Simulator::DeferRetime(JobId id, bool estimate_survives) {
  uint8_t& mark = retime_mark_[static_cast<size_t>(id)];
  if (mark == kRetimeEstimate) return;  // recomputed at the flush whatever else changes
  if (mark == kRetimeNone) retime_queue_.push_back(id);
  // Until then its estimate is the one of the load before this change (none of the earlier
  // changes altered it), so the test is the one an immediate re-time would make.
  mark = estimate_survives ? kRetimeKeepEstimate : kRetimeEstimate;
}

void Simulator::FlushRetime(JobId id) {
  uint8_t& mark = retime_mark_[static_cast<size_t>(id)];
  const bool kept = mark == kRetimeKeepEstimate;
  mark = kRetimeNone;
  const RunState& job = runs_[static_cast<size_t>(id)];
  if (job.active < 0 || active(job).idle) return;  // stopped or held since it was listed
  const ChangeMark& counts = change_mark_[static_cast<size_t>(job.active)];
  Retime(id, counts.ties != kTiesUnknown ? KeyStands(counts) : kept);
}

void Simulator::FlushRetimes() {
  for (JobId id : retime_queue_) {
    if (retime_mark_[static_cast<size_t>(id)] != kRetimeNone) FlushRetime(id);
  }
  retime_queue_.clear();
}

}  // namespace hetsched::sim_internal
