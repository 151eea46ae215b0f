// Goodput jobs in the agent (docs/slurm.md, "Goodput jobs"): the state of what each reported of
// itself (perf/goodput_job.h, as the simulator keeps it, but measured by the real job), read
// from its metrics file each poll; its batch picked for each placement and written to its .alloc
// file before its release, re-picked at its epoch ends and goodput intervals while it runs (the
// .alloc rewritten when it changed), each allocation journaled; the policy's view of it
// (SchedContext::goodput_job), with the simulator's re-allocation delay until it reports.
#include <algorithm>
#include <cmath>
#include <map>

#include "hetsched/sched/goodput_view.h"
#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/agent_job.h"
#include "hetsched/util/file_io.h"

namespace hetsched::slurm {

namespace {

// The allocation of a goodput job placed on GPUs of `type` (its placement, batch and restarts).
GoodputAlloc GoodputAllocOf(JobId id, const GoodputJob& placed, std::string type,
                            std::vector<std::string> nodes, int seq) {
  GoodputAlloc alloc;
  alloc.job = id;
  alloc.type = std::move(type);
  alloc.nodes = std::move(nodes);
  alloc.placement = placed.placement;
  alloc.local_bsz = placed.atomic_bsz;
  alloc.accum_steps = placed.accum_steps;
  alloc.batch_size = static_cast<int>(placed.batch_size());
  alloc.adaptive = placed.adaptive;
  alloc.restarts = placed.restarts;
  alloc.seq = seq;
  return alloc;
}

}  // namespace

void Agent::MakeGoodputJob(AgentJob& job) {
  const JobSpec& spec = job.request.spec;
  job.goodput = GoodputSteps::New(spec, job.request.goodput, methods_.scheduler->adapts_batch_sizes(),
                                  methods_.scheduler->pools_goodput_models());
  // The measurements of the application's earlier jobs, where the policy shares them (sia-plus's
  // history=on), as in the simulator; a restarted agent rebuilds them from the journal's
  // `measure` records, in the order they were measured.
  if (methods_.scheduler->shares_application_history()) GoodputSteps::ShareApplicationHistory(*job.goodput, histories_);
  job.metrics = MetricsTail(MetricsPath(options_.goodput_dir, spec.id));
}

std::vector<int> Agent::GoodputPlacement(const std::vector<DeviceId>& devices, std::vector<std::string>* nodes) const {
  // GPUs per node in node-id order: the order of the pin's NodeList (agent_release.cc).
  std::map<NodeId, int> per_node;
  for (DeviceId d : devices) ++per_node[cluster_.cluster.device(d).node];
  std::vector<int> placement;
  for (const auto& [node, count] : per_node) {
    placement.push_back(count);
    if (nodes != nullptr) nodes->push_back(cluster_.node_names[static_cast<size_t>(node)]);
  }
  return placement;
}

Status Agent::PlaceGoodput(AgentJob& job, JobId id, const std::vector<DeviceId>& devices) {
  const DeviceTypeId type = cluster_.cluster.device(devices.front()).type;
  std::vector<std::string> nodes;
  GoodputJob placed = *job.goodput;  // committed once its allocation is written
  HETSCHED_RETURN_IF_ERROR(GoodputSteps::Place(placed, GoodputPlacement(devices, &nodes), type)
                               .WithContext("goodput job " + std::to_string(id)));
  GoodputAlloc alloc = GoodputAllocOf(id, placed, cluster_.cluster.device_catalog().type(type).name,
                                      std::move(nodes), job.alloc.seq + 1);
  HETSCHED_RETURN_IF_ERROR(WriteGoodputAlloc(options_.goodput_dir, alloc)
                               .WithContext("goodput job " + std::to_string(id) +
                                            ": its allocation cannot be written: the agent stops before it "
                                            "releases the job (it must not run on an allocation it cannot read)"));
  job.goodput = std::move(placed);
  job.alloc = std::move(alloc);
  job.reported_since_placement = false;
  job.rate_mark = {};
  return Status::Ok();
}

Status Agent::RepickGoodputBatches() {
  const double t = now();
  const bool tick = goodput_tick_s_ >= 0 && t >= goodput_tick_s_;
  bool adaptive_placed = false;
  for (auto& [id, owned] : jobs_) {
    AgentJob& job = *owned;
    if (!job.goodput) continue;
    const bool epoch_ended = job.repick_due;
    job.repick_due = false;
    if (job.goodput->replicas() == 0) continue;  // not placed: its batch is picked at its next placement
    adaptive_placed = adaptive_placed || job.goodput->adaptive;
    // The simulator re-picks every goodput job's batch at its epoch ends, an adaptive one's at
    // each interval too (sim/goodput_run.cc GoodputEpochEnds, GoodputTick).
    if (epoch_ended || (tick && job.goodput->adaptive)) HETSCHED_RETURN_IF_ERROR(RepickGoodput(job, id));
  }
  // The next interval on the simulator's grid (run_segments.cc): from the time origin, while an
  // adaptive job is placed.
  if (tick || goodput_tick_s_ < 0) {
    goodput_tick_s_ = adaptive_placed
                          ? (std::floor(t / options_.goodput_interval_s) + 1) * options_.goodput_interval_s
                          : -1;
  }
  return Status::Ok();
}

Status Agent::RepickGoodput(AgentJob& job, JobId id) {
  const std::string who = "goodput job " + std::to_string(id);
  GoodputJob picked = *job.goodput;
  HETSCHED_RETURN_IF_ERROR(GoodputSteps::RepickBatch(picked).WithContext(who));
  GoodputAlloc next =
      GoodputAllocOf(id, picked, job.alloc.type, job.alloc.nodes, job.alloc.seq);  // its placement kept
  if (next.local_bsz == job.alloc.local_bsz && next.accum_steps == job.alloc.accum_steps &&
      next.batch_size == job.alloc.batch_size) {
    job.goodput = std::move(picked);  // the same batch (its refitted model kept): the file is left as it is
    return Status::Ok();
  }
  ++next.seq;
  // The intent first: a restarted agent writes the journaled batch if this write does not happen.
  JournalRecord r = JournalRecord::Of("repick", id, GoodputAllocJson(next));
  r.value = next.seq;
  HETSCHED_RETURN_IF_ERROR(Intend(std::move(r)));
  HETSCHED_RETURN_IF_ERROR(
      WriteGoodputAlloc(options_.goodput_dir, next)
          .WithContext(who + ": its re-picked batch cannot be written: the agent stops; restart "
                             "it once the file can be written (it writes the journaled batch then)"));
  job.goodput = std::move(picked);
  job.alloc = std::move(next);
  return Status::Ok();
}

Status Agent::RestoreGoodputAllocs() {
  for (auto& [id, owned] : jobs_) {
    AgentJob& job = *owned;
    if (!job.goodput || job.alloc.seq == 0 || (job.phase != Phase::kReleased && job.phase != Phase::kRunning))
      continue;
    const std::string path = AllocPath(options_.goodput_dir, id);
    auto text = ReadFile(path);
    if (text.ok() && *text == EncodeGoodputAlloc(job.alloc)) continue;
    HETSCHED_RETURN_IF_ERROR(WriteGoodputAlloc(options_.goodput_dir, job.alloc)
                                 .WithContext("agent restart: goodput job " + std::to_string(id) +
                                              ": its journaled allocation cannot be written"));
    Report("goodput job " + std::to_string(id) + ": " + path +
           " did not hold its journaled allocation (seq " + std::to_string(job.alloc.seq) +
           "; the agent stopped before it wrote it): written again");
  }
  return Status::Ok();
}

Result<std::optional<GoodputJobView>> Agent::goodput_job(JobId id, bool with_model) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second->goodput) return std::optional<GoodputJobView>();
  AgentJob& job = *it->second;  // its model is refitted lazily
  GoodputSteps::MergeHistory(*job.goodput);  // what its application's other jobs reported (a no-op without history)
  auto view = GoodputJobViewOf(*job.goodput, with_model);
  if (!view.ok()) return view.status().WithContext("goodput job " + std::to_string(id));
  // Restoring from its checkpoint as far as the agent can tell (nothing reported since it was
  // placed): the simulator's delay from the placement, no longer once it reports.
  if (job.goodput->replicas() > 0 && !job.reported_since_placement) {
    const double delay_s = GoodputSteps::RestartDelayS(*job.goodput, options_.goodput_delay_s);
    view->delay_left_s = std::max(0.0, delay_s - (now() - job.status.last_start_s));
  }
  return std::optional<GoodputJobView>(std::move(view).value());
}

Status Agent::MeasureLine(AgentJob& job, const std::string& line, const std::string& where) {
  HETSCHED_ASSIGN_OR_RETURN(const GoodputReport report, ParseGoodputReport(line, where));
  GoodputJob& g = *job.goodput;
  const ThroughputSample sample{report.nodes, report.gpus, report.local_bsz, report.accum_step_s,
                                report.optim_step_s};
  GoodputSteps::Measure(g, static_cast<size_t>(g.on), sample, report.grad);
  if (g.replicas() > 0) job.reported_since_placement = true;
  // Its epoch: the last whose start its progress has reached (GoodputApplication::ProgressAt).
  while (g.epoch < g.app->max_epochs() && g.app->ProgressAt(g.epoch + 1) <= report.progress) ++g.epoch;
  job.status.iterations_done = report.progress;
  return Status::Ok();
}

void Agent::DistrustMetrics(AgentJob& job) {
  job.metrics_distrusted = true;
  GoodputJob& g = *job.goodput;
  for (GoodputTypeKnowledge& k : g.types) {
    k.samples.clear();
    k.seen.clear();
    k.reports.clear();
    k.params.reset();
    k.refit_due = false;
  }
  g.grad.reset();
}

void Agent::MarkProgress(AgentJob& job) {
  if (job.phase != Phase::kRunning || !job.reported_since_placement) return;
  const double progress = job.status.iterations_done, t = now();
  AgentJob::ProgressMark& mark = job.rate_mark;
  if (mark.at_s < 0 || progress < mark.progress) {
    mark = {progress, t};  // the first read of this placement (or its progress went back: a fresh run)
  } else if (t > mark.at_s && progress > mark.progress) {
    job.status.iteration_rate = (progress - mark.progress) / (t - mark.at_s);
  }
}

void Agent::ReadGoodputMetrics() {
  for (auto& [id, owned] : jobs_) {
    AgentJob& job = *owned;
    if (!job.goodput || job.metrics_distrusted || job.goodput->restarts < 0) continue;
    // An ended job's file is read once more: what it wrote between the last poll and its end
    // (found by the live test: its last report was lost), then never again.
    if (job.phase == Phase::kFinished) {
      if (job.metrics_final_read) continue;
      job.metrics_final_read = true;
    }
    const int epoch_before = job.goodput->epoch;
    auto lines = job.metrics.Read();
    std::string bad;
    JournalRecord bad_record = JournalRecord::Of("measure_bad", id);
    if (!lines.ok()) {
      bad = lines.status().message();
      bad_record.offset = job.metrics.offset();
      bad_record.line = job.metrics.line();
    } else {
      const std::string type = job.goodput->here().type == kNoDeviceType
                                   ? std::string()
                                   : cluster_.cluster.device_catalog().type(job.goodput->here().type).name;
      for (const MetricsTail::Line& line : *lines) {
        const std::string where = job.metrics.path() + ":" + std::to_string(line.number);
        Status measured = MeasureLine(job, line.text, where);
        if (!measured.ok()) {
          bad = measured.message();
          bad_record.offset = line.end;
          bad_record.line = line.number;
          break;
        }
        JournalRecord r = JournalRecord::Of("measure", id, line.text);
        r.type = type;
        r.offset = line.end;
        r.line = line.number;
        if (!Append(r).ok()) return;  // kept in fatal_: the run ends; a restart reads the line again
      }
      if (job.goodput->epoch > epoch_before && job.goodput->replicas() > 0) job.repick_due = true;
      if (!lines->empty()) MarkProgress(job);
    }
    if (bad.empty()) continue;
    bad_record.text = bad;
    if (!Append(bad_record).ok()) return;
    DistrustMetrics(job);
    Report(
        "goodput job " + std::to_string(id) + ": " + bad +
        ": its measurements are not trusted any more (the policy sees it as a job that measured nothing; fix "
        "the job's reporting and submit it again)");
  }
}

Status Agent::AdoptJournaledAlloc(AgentJob& job, const JournalRecord& r, const std::string& where) {
  HETSCHED_ASSIGN_OR_RETURN(GoodputAlloc alloc, DecodeGoodputAlloc(r.text, where));
  GoodputJob& g = *job.goodput;
  if (alloc.job != r.job || alloc.placement != g.placement || alloc.seq <= job.alloc.seq) {
    return Status::ParseError(where + ": its allocation (job " + std::to_string(alloc.job) + ", seq " +
                              std::to_string(alloc.seq) + ") is not of the job's placement after seq " +
                              std::to_string(job.alloc.seq));
  }
  g.atomic_bsz = alloc.local_bsz;
  g.accum_steps = alloc.accum_steps;
  job.alloc = std::move(alloc);
  return Status::Ok();
}

Result<bool> Agent::ReplayGoodput(AgentJob& job, const JournalRecord& r) {
  if (r.event == "measure" || r.event == "measure_bad") {
    if (!job.goodput) {
      return Status::ParseError(journal_.path() + ": a " + r.event + " record of job " +
                                std::to_string(r.job) + ", which is not a goodput job");
    }
    job.metrics = MetricsTail(job.metrics.path(), r.offset, r.line);
    if (r.event == "measure_bad") {
      DistrustMetrics(job);
      return true;
    }
    // On the type it was measured on (its placement's then).
    GoodputJob& g = *job.goodput;
    const DeviceTypeId type = r.type.empty() ? kNoDeviceType : cluster_.cluster.device_catalog().Find(r.type);
    for (size_t t = 0; t < g.types.size(); ++t) {
      if (g.types[t].type == type || g.types[t].type == kNoDeviceType) g.on = static_cast<int>(t);
    }
    g.app = g.here().app;
    HETSCHED_RETURN_IF_ERROR(
        MeasureLine(job, r.text, job.metrics.path() + ":" + std::to_string(r.line) + " (journaled)"));
    return true;
  }
  const std::string who = journal_.path() + ": goodput job " + std::to_string(r.job);
  if (r.event == "repick") {
    // The batch it was given while placed, as written (or about to be) to its .alloc.
    if (!job.goodput || job.goodput->replicas() == 0) {
      return Status::ParseError(who + ": a repick record of a job that is not a placed goodput job");
    }
    HETSCHED_RETURN_IF_ERROR(AdoptJournaledAlloc(job, r, who + ": repick record"));
    return true;
  }
  if (job.goodput && r.event == "place") {
    const DeviceTypeId type = r.type.empty() ? kNoDeviceType : cluster_.cluster.device_catalog().Find(r.type);
    std::vector<DeviceId> devices(r.devices.begin(), r.devices.end());
    std::vector<std::string> nodes;
    HETSCHED_RETURN_IF_ERROR(
        GoodputSteps::Place(*job.goodput, GoodputPlacement(devices, &nodes), type).WithContext(who));
    job.reported_since_placement = false;
    if (r.text.empty()) {  // a journal from before allocations were journaled: picked again
      job.alloc = GoodputAllocOf(r.job, *job.goodput, r.type, std::move(nodes), job.alloc.seq + 1);
    } else {
      HETSCHED_RETURN_IF_ERROR(AdoptJournaledAlloc(job, r, who + ": place record"));
    }
  } else if (job.goodput && r.event == "unplace") {
    GoodputSteps::Deallocate(*job.goodput);
  }
  return false;  // the run's own replay follows (ReplayRun)
}

}  // namespace hetsched::slurm
