#include "hetsched/slurm/job_request.h"

#include <algorithm>

#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::slurm {

namespace {

// The comment's hetsched fields: everything after the word "hetsched", as key=value words.
Result<std::map<std::string, std::string>> CommentFields(const std::string& comment, const std::string& who) {
  std::map<std::string, std::string> out;
  std::vector<std::string> words;
  for (auto w : Split(comment, ' ')) {
    if (!Trim(w).empty()) words.emplace_back(Trim(w));
  }
  auto start = std::find(words.begin(), words.end(), "hetsched");
  if (start == words.end()) return out;
  for (auto it = start + 1; it != words.end(); ++it) {
    const size_t eq = it->find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument(who + ": comment field " + Quoted(*it) + " is not key=value");
    }
    out[ToLower(it->substr(0, eq))] = it->substr(eq + 1);
  }
  return out;
}

// The GPU count and type from the job's own Slurm request (--gpus per job, or --gres per node).
Status ReadGpuRequest(const SlurmJob& job, const SlurmCluster& cluster,
                      const std::map<std::string, std::string>& type_map, const std::string& who, JobRequest* out) {
  auto per_job = ParseGpuGres(job.tres_per_job);
  if (!per_job.ok()) return per_job.status().WithContext(who);
  auto per_node = ParseGpuGres(job.tres_per_node);
  if (!per_node.ok()) return per_node.status().WithContext(who);
  GpuGres gpu;
  if (per_job->count > 0) {
    gpu = *per_job;
    out->form = GpuRequestForm::kPerJob;
  } else if (per_node->count > 0) {
    gpu = *per_node;
    gpu.count *= std::max(job.node_count, 1);
    out->form = GpuRequestForm::kPerNode;
  } else {
    return Status::InvalidArgument(who + ": asks for no GPU (submit with --gpus=[type:]N)");
  }
  out->spec.num_gpus = gpu.count;
  out->gres_type = gpu.type;
  if (gpu.type.empty()) return Status::Ok();
  const DeviceCatalog& catalog = cluster.cluster.device_catalog();
  auto type = MapGresType(gpu.type, catalog, type_map);
  if (!type.ok()) return type.status().WithContext(who);
  if (cluster.cluster.devices_per_type()[static_cast<size_t>(*type)] == 0) {
    return Status::InvalidArgument(who + ": GPU type " + Quoted(gpu.type) + " (" + catalog.type(*type).name +
                                   ") does not exist in this cluster (" + cluster.cluster.Summary() + ")");
  }
  out->spec.allowed_types = {*type};
  return Status::Ok();
}

// hetsched's own fields from the comment: model, iterations, batch, priority, parallelism, runtime.
Status ReadCommentFields(const SlurmJob& job, const ModelZoo& zoo, const JobRequestOptions& options,
                         const std::string& who, JobSpec* spec) {
  auto fields = CommentFields(job.comment, who);
  if (!fields.ok()) return fields.status();
  auto field = [&](const char* key) -> const std::string* {
    auto it = fields->find(key);
    return it == fields->end() ? nullptr : &it->second;
  };
  spec->model = field("model") != nullptr ? *field("model") : options.default_model;
  const ModelProfile* model = zoo.Find(spec->model);
  if (model == nullptr) return Status::InvalidArgument(who + ": comment field 'model': unknown model " + Quoted(spec->model));
  spec->model = model->name;
  spec->iterations = options.default_iterations;
  const std::string what = who + ": comment field ";
  if (const auto* v = field("iterations")) {
    HETSCHED_ASSIGN_OR_RETURN(spec->iterations, ParseInt(*v, what + "'iterations'"));
    if (spec->iterations < 1) return Status::InvalidArgument(what + "'iterations' must be >= 1");
  }
  if (const auto* v = field("batch")) {
    HETSCHED_ASSIGN_OR_RETURN(long long b, ParseInt(*v, what + "'batch'"));
    if (b < 1 || b > 1'000'000'000) return Status::InvalidArgument(what + "'batch' must be in [1, 1e9]");
    spec->batch_size = static_cast<int>(b);
  }
  if (const auto* v = field("priority")) {
    HETSCHED_ASSIGN_OR_RETURN(long long p, ParseInt(*v, what + "'priority'"));
    if (p < -1'000'000 || p > 1'000'000) return Status::InvalidArgument(what + "'priority' must be within +-1000000");
    spec->priority = static_cast<int>(p);
  }
  if (const auto* v = field("parallelism")) {
    auto p = ParseParallelism(*v);
    if (!p) return Status::InvalidArgument(what + "'parallelism': unknown " + Quoted(*v));
    spec->parallelism = *p;
  } else {
    spec->parallelism = spec->num_gpus == 1 ? Parallelism::kSingle : Parallelism::kDataRing;
  }
  if (const auto* v = field("runtime")) {
    HETSCHED_ASSIGN_OR_RETURN(spec->estimated_runtime_s, ParseDouble(*v, what + "'runtime'"));
    if (spec->estimated_runtime_s < 0) return Status::InvalidArgument(what + "'runtime' must be >= 0 seconds");
  }
  return Status::Ok();
}

// A job no type of the cluster can ever hold is refused now, not left pending forever.
Status CheckFitsCluster(const JobRequest& request, const SlurmCluster& cluster, const std::string& who) {
  const JobSpec& spec = request.spec;
  const DeviceCatalog& catalog = cluster.cluster.device_catalog();
  int largest = 0;
  for (DeviceTypeId t : cluster.cluster.present_types()) {
    if (spec.AllowsType(t, catalog)) largest = std::max(largest, cluster.cluster.devices_per_type()[static_cast<size_t>(t)]);
  }
  if (spec.num_gpus <= largest) return Status::Ok();
  return Status::Infeasible(who + " is larger than the cluster: it asks for " + std::to_string(spec.num_gpus) +
                            " GPUs" + (request.gres_type.empty() ? "" : " of type " + request.gres_type) +
                            ", the cluster has at most " + std::to_string(largest) + " of one allowed type");
}

}  // namespace

Result<JobRequest> TranslateJob(const SlurmJob& job, const SlurmCluster& cluster, const ModelZoo& zoo,
                                const std::map<std::string, std::string>& type_map,
                                const JobRequestOptions& options) {
  const std::string who = "Slurm job " + std::to_string(job.id);
  JobRequest out;
  out.spec.id = job.id;
  out.spec.name = job.name;
  out.spec.user = job.user;
  out.spec.submit_time_s = job.submit_time_s - options.origin_s;
  HETSCHED_RETURN_IF_ERROR(ReadGpuRequest(job, cluster, type_map, who, &out));
  HETSCHED_RETURN_IF_ERROR(ReadCommentFields(job, zoo, options, who, &out.spec));
  HETSCHED_RETURN_IF_ERROR(CheckFitsCluster(out, cluster, who));
  return out;
}

}  // namespace hetsched::slurm
