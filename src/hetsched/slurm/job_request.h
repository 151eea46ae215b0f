// Turns a Slurm job (submitted held, e.g. `sbatch --hold --gpus=a100:4 --comment "hetsched
// model=resnet50 iterations=2000" job.sh`) into the JobSpec a policy sees. The GPU count and type
// come from the job's own Slurm request (--gpus / --gres, per job or per node); hetsched's fields
// (model, iterations, batch, priority, parallelism) come from `key=value` words of the comment
// after the word "hetsched". Nothing here is ever given to a shell.
#pragma once

#include <map>
#include <string>

#include "hetsched/model/job.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/slurm/cluster_translate.h"
#include "hetsched/slurm/slurm_json.h"

namespace hetsched::slurm {

struct JobRequestOptions {
  std::string default_model = "resnet50";  // when the comment names none
  long long default_iterations = 1000;
  // Slurm time origin: JobSpec times are Slurm epoch seconds minus this.
  double origin_s = 0;
};

// How the job asked for its GPUs, which decides how the agent rewrites it.
enum class GpuRequestForm { kPerJob, kPerNode };

struct JobRequest {
  JobSpec spec;
  GpuRequestForm form = GpuRequestForm::kPerJob;
  std::string gres_type;  // the Slurm GRES type the job named ("" = any)
};

// Errors (the job is then reported and left alone): no GPU request, a GPU type that does not
// exist in the catalog or not in this cluster, a malformed comment field, an unknown model, more
// GPUs than the cluster has of any allowed type.
Result<JobRequest> TranslateJob(const SlurmJob& job, const SlurmCluster& cluster, const ModelZoo& zoo,
                                const std::map<std::string, std::string>& type_map,
                                const JobRequestOptions& options);

}  // namespace hetsched::slurm
