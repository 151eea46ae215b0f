// Turns a Slurm job (submitted held, e.g. `sbatch --hold --gpus=a100:4 --comment "hetsched
// model=resnet50 iterations=2000" job.sh`) into the JobSpec a policy sees. The GPU count and type
// come from the job's own Slurm request (--gpus / --gres, per job or per node); hetsched's fields
// (model, iterations, batch, priority, parallelism) come from `key=value` words of the comment
// after the word "hetsched". A goodput job (docs/slurm.md, "Goodput jobs") names its application
// (`application=cifar10`) and may add `adaptive_batch`, `total_batch_size` and `elastic`, the
// native trace format's columns of the same names. Nothing here is ever given to a shell.
#pragma once

#include <map>
#include <string>

#include "hetsched/model/job.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/perf/goodput_application.h"
#include "hetsched/slurm/cluster_translate.h"
#include "hetsched/slurm/slurm_json.h"
#include "hetsched/trace/goodput_catalog.h"

namespace hetsched::slurm {

struct JobRequestOptions {
  std::string default_model = "resnet50";  // when the comment names none
  long long default_iterations = 1000;
  // Slurm time origin: JobSpec times are Slurm epoch seconds minus this.
  double origin_s = 0;
  // The goodput applications' profiles (`--profiles`), loaded on first use; null: the agent runs
  // no goodput jobs (a comment naming an application is an error that says how to start it).
  GoodputCatalog* goodput = nullptr;
};

// How the job asked for its GPUs, which decides how the agent rewrites it.
enum class GpuRequestForm { kPerJob, kPerNode };

struct JobRequest {
  JobSpec spec;
  GpuRequestForm form = GpuRequestForm::kPerJob;
  std::string gres_type;  // the Slurm GRES type the job named ("" = any)
  // A goodput job's application on each type it was profiled on (spec.application names it);
  // empty (no type) for any other job.
  GoodputTruth goodput;
};

// The goodput fields of a comment (application, adaptive_batch, total_batch_size, elastic) read
// into `spec` as the native trace format reads them (docs/formats-trace.md): the application
// from `catalog`, the job's zoo model the one its application trains (unless `model` was given),
// its iterations those its application's validation runs took at its batch to its last epoch
// (unless `iterations` was given), its types the profiles' (a typed request must be one of them).
// Used by TranslateJob, and by a restarted agent on what it journaled at the admission.
Status ReadGoodputFields(const std::map<std::string, std::string>& fields, const std::string& who,
                         const SlurmCluster& cluster, const ModelZoo& zoo, GoodputCatalog* catalog, JobRequest* out);

// Errors (the job is then reported and left alone): no GPU request, a GPU type that does not
// exist in the catalog or not in this cluster, a malformed comment field, an unknown model, more
// GPUs than the cluster has of any allowed type.
Result<JobRequest> TranslateJob(const SlurmJob& job, const SlurmCluster& cluster, const ModelZoo& zoo,
                                const std::map<std::string, std::string>& type_map,
                                const JobRequestOptions& options);

}  // namespace hetsched::slurm
