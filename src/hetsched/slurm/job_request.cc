#include "hetsched/slurm/job_request.h"

#include <algorithm>
#include <cmath>

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

// Every key a comment may hold: a typo (`adaptive_bacth=1`) must not silently make a job rigid.
constexpr const char* kCommentKeys[] = {"model",       "iterations",     "batch",            "priority", "parallelism",
                                        "runtime",     "application",    "adaptive_batch",   "total_batch_size",
                                        "elastic"};

// A flag as the native trace format writes one: 0, 1, true, false.
Result<bool> ParseFlagValue(const std::string& v, const std::string& what) {
  const std::string lower = ToLower(v);
  if (lower == "1" || lower == "true") return true;
  if (lower == "0" || lower == "false") return false;
  return Status::InvalidArgument(what + " must be 0, 1, true or false, got " + Quoted(v));
}

// hetsched's own fields from the comment: model, iterations, batch, priority, parallelism, runtime.
Status ReadCommentFields(const std::map<std::string, std::string>& map, const ModelZoo& zoo,
                         const JobRequestOptions& options, const std::string& who, JobSpec* spec) {
  for (const auto& [key, value] : map) {
    if (std::find_if(std::begin(kCommentKeys), std::end(kCommentKeys), [&](const char* k) { return key == k; }) ==
        std::end(kCommentKeys)) {
      std::string known;
      for (const char* k : kCommentKeys) known += (known.empty() ? "" : ", ") + std::string(k);
      return Status::InvalidArgument(who + ": comment field " + Quoted(key) + " is unknown (known: " + known + ")");
    }
  }
  const std::map<std::string, std::string>* fields = &map;
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

// A goodput job runs only on its profiles' types (`profiled`; none: any type): those of them the
// cluster has, or the one its request names, which must be among them.
Status AllowProfiledTypes(const std::vector<DeviceTypeId>& profiled, const SlurmCluster& cluster,
                          const std::string& what, JobSpec* spec) {
  if (profiled.empty()) return Status::Ok();
  const DeviceCatalog& devices = cluster.cluster.device_catalog();
  if (!spec->allowed_types.empty()) {
    for (DeviceTypeId t : spec->allowed_types) {
      if (std::find(profiled.begin(), profiled.end(), t) == profiled.end()) {
        return Status::InvalidArgument(what + "'application': its profiles have no times for GPU type " +
                                       Quoted(devices.type(t).name) + ", which the job asks for");
      }
    }
    return Status::Ok();
  }
  for (DeviceTypeId t : profiled) {
    if (cluster.cluster.devices_per_type()[static_cast<size_t>(t)] > 0) spec->allowed_types.push_back(t);
  }
  if (!spec->allowed_types.empty()) return Status::Ok();
  std::string names;
  for (DeviceTypeId t : profiled) names += (names.empty() ? "" : ", ") + devices.type(t).name;
  return Status::InvalidArgument(what + "'application': its profiles were measured on " + names +
                                 ", which this cluster does not have (" + cluster.cluster.Summary() +
                                 "; --profile-types ties the profiles' files to GPU types)");
}

}  // namespace

Status ReadGoodputFields(const std::map<std::string, std::string>& fields, const std::string& who,
                         const SlurmCluster& cluster, const ModelZoo& zoo, GoodputCatalog* catalog, JobRequest* out) {
  auto field = [&](const char* key) -> const std::string* {
    auto it = fields.find(key);
    return it == fields.end() ? nullptr : &it->second;
  };
  const std::string what = who + ": comment field ";
  JobSpec& spec = out->spec;
  const std::string* application = field("application");
  if (application == nullptr) {
    for (const char* key : {"adaptive_batch", "total_batch_size"}) {
      if (field(key) != nullptr) {
        return Status::InvalidArgument(what + Quoted(key) + ": only a goodput job has it: give its application (application=NAME)");
      }
    }
    if (const auto* v = field("elastic")) {
      HETSCHED_ASSIGN_OR_RETURN(spec.elastic, ParseFlagValue(*v, what + "'elastic'"));
      if (spec.elastic) {
        return Status::InvalidArgument(what + "'elastic': only a goodput job may change its GPU count here: give its "
                                              "application (application=NAME)");
      }
    }
    return Status::Ok();
  }
  if (catalog == nullptr) {
    return Status::InvalidArgument(what + "'application': this agent runs no goodput jobs (start it with --goodput-dir "
                                          "DIR, where the job reports its measurements)");
  }
  auto truth = catalog->Get(*application);
  if (!truth.ok()) return Status::InvalidArgument(what + "'application': " + truth.status().message());
  spec.application = *application;
  if (field("model") == nullptr) {
    const ModelProfile* model = ZooModelOfApplication(zoo, *application);
    if (model == nullptr) return Status::InvalidArgument(what + "'application': no model of the zoo trains " + Quoted(*application) + " (give model=NAME)");
    spec.model = model->name;
  }
  if (const auto* v = field("adaptive_batch")) {
    HETSCHED_ASSIGN_OR_RETURN(spec.adaptive_batch, ParseFlagValue(*v, what + "'adaptive_batch'"));
  }
  if (const auto* v = field("elastic")) {
    HETSCHED_ASSIGN_OR_RETURN(spec.elastic, ParseFlagValue(*v, what + "'elastic'"));
  }
  if (const auto* v = field("total_batch_size")) {
    HETSCHED_ASSIGN_OR_RETURN(long long b, ParseInt(*v, what + "'total_batch_size'"));
    if (b < 1 || b > 1'000'000'000) return Status::InvalidArgument(what + "'total_batch_size' must be in [1, 1e9]");
    spec.total_batch_size = static_cast<int>(b);
  } else if (spec.batch_size > 0) {
    spec.total_batch_size = spec.batch_size * spec.num_gpus;
  } else {
    return Status::InvalidArgument(what + "'total_batch_size': a goodput job needs its tuned batch: total_batch_size=N, "
                                          "or batch=N per GPU");
  }
  if (spec.batch_size == 0) spec.batch_size = (spec.total_batch_size + spec.num_gpus - 1) / spec.num_gpus;
  const GoodputApplication& app = truth->reference();
  if (field("iterations") == nullptr) {
    auto iterations = app.IterationsAt(static_cast<double>(spec.total_batch_size), app.completion_epoch());
    if (!iterations.ok()) return Status::InvalidArgument(what + "'total_batch_size': " + iterations.status().message());
    spec.iterations = std::max<long long>(1, static_cast<long long>(std::ceil(*iterations)));
  }
  HETSCHED_RETURN_IF_ERROR(AllowProfiledTypes(truth->types(), cluster, what, &spec));
  out->goodput = std::move(truth).value();
  return Status::Ok();
}

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
  auto fields = CommentFields(job.comment, who);
  if (!fields.ok()) return fields.status();
  HETSCHED_RETURN_IF_ERROR(ReadCommentFields(*fields, zoo, options, who, &out.spec));
  HETSCHED_RETURN_IF_ERROR(ReadGoodputFields(*fields, who, cluster, zoo, options.goodput, &out));
  HETSCHED_RETURN_IF_ERROR(CheckFitsCluster(out, cluster, who));
  return out;
}

}  // namespace hetsched::slurm
