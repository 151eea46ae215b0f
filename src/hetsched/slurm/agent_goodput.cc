// Goodput jobs in the agent (docs/slurm.md, "Goodput jobs"): the state of what each reported of
// itself (perf/goodput_job.h, as the simulator keeps it, but measured by the real job), read
// from its metrics file each poll; its batch picked for each placement and written to its .alloc
// file before its release; the policy's view of it (SchedContext::goodput_job).
#include <map>

#include "hetsched/sched/goodput_view.h"
#include "hetsched/slurm/agent.h"
#include "hetsched/slurm/agent_job.h"

namespace hetsched::slurm {

void Agent::MakeGoodputJob(AgentJob& job) {
  const JobSpec& spec = job.request.spec;
  job.goodput = GoodputSteps::New(spec, job.request.goodput, methods_.scheduler->adapts_batch_sizes(),
                                  methods_.scheduler->pools_goodput_models());
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
  GoodputAlloc alloc;
  GoodputJob placed = *job.goodput;  // committed once its allocation is written
  HETSCHED_RETURN_IF_ERROR(GoodputSteps::Place(placed, GoodputPlacement(devices, &alloc.nodes), type)
                               .WithContext("goodput job " + std::to_string(id)));
  alloc.job = id;
  alloc.type = cluster_.cluster.device_catalog().type(type).name;
  alloc.placement = placed.placement;
  alloc.local_bsz = placed.atomic_bsz;
  alloc.accum_steps = placed.accum_steps;
  alloc.batch_size = static_cast<int>(placed.batch_size());
  alloc.adaptive = placed.adaptive;
  alloc.restarts = placed.restarts;
  HETSCHED_RETURN_IF_ERROR(WriteGoodputAlloc(options_.goodput_dir, alloc)
                               .WithContext("goodput job " + std::to_string(id) +
                                            ": its allocation cannot be written: the agent stops before it "
                                            "releases the job (it must not run on an allocation it cannot read)"));
  job.goodput = std::move(placed);
  return Status::Ok();
}

Result<std::optional<GoodputJobView>> Agent::goodput_job(JobId id, bool with_model) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || !it->second->goodput) return std::optional<GoodputJobView>();
  auto view = GoodputJobViewOf(*it->second->goodput, with_model);
  if (!view.ok()) return view.status().WithContext("goodput job " + std::to_string(id));
  return std::optional<GoodputJobView>(std::move(view).value());
}

Status Agent::MeasureLine(AgentJob& job, const std::string& line, const std::string& where) {
  HETSCHED_ASSIGN_OR_RETURN(const GoodputReport report, ParseGoodputReport(line, where));
  GoodputJob& g = *job.goodput;
  const ThroughputSample sample{report.nodes, report.gpus, report.local_bsz, report.accum_step_s,
                                report.optim_step_s};
  GoodputSteps::Measure(g, static_cast<size_t>(g.on), sample, report.grad);
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

void Agent::ReadGoodputMetrics() {
  for (auto& [id, owned] : jobs_) {
    AgentJob& job = *owned;
    if (!job.goodput || job.metrics_distrusted || job.phase == Phase::kFinished || job.goodput->restarts < 0)
      continue;
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
  if (job.goodput && r.event == "place") {
    const DeviceTypeId type = r.type.empty() ? kNoDeviceType : cluster_.cluster.device_catalog().Find(r.type);
    std::vector<DeviceId> devices(r.devices.begin(), r.devices.end());
    HETSCHED_RETURN_IF_ERROR(GoodputSteps::Place(*job.goodput, GoodputPlacement(devices), type)
                                 .WithContext(journal_.path() + ": goodput job " + std::to_string(r.job)));
  } else if (job.goodput && r.event == "unplace") {
    GoodputSteps::Deallocate(*job.goodput);
  }
  return false;  // the run's own replay follows (ReplayRun)
}

}  // namespace hetsched::slurm
