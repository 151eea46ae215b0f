// Synthetic workloads: Poisson arrivals and the size / model / runtime mixes of job_mix.h.
// Deterministic in the seed (util/rng.h only). docs/formats-trace.md, "synthetic".
#include <fmt/format.h>

#include "hetsched/model/link.h"
#include "hetsched/trace/job_mix.h"
#include "hetsched/trace/trace.h"
#include "hetsched/util/memory.h"

namespace hetsched {

Result<Workload> GenerateSynthetic(const SyntheticOptions& options, const DeviceCatalog& devices,
                                   const ModelZoo& zoo) {
  if (options.num_jobs < 0) {
    return Status::InvalidArgument(fmt::format("num_jobs: must be >= 0, got {}", options.num_jobs));
  }
  HETSCHED_ASSIGN_OR_RETURN(trace_internal::JobMix mix,
                            trace_internal::JobMix::Create(options, devices, LinkCatalog::BuiltIn(), zoo));
  Workload w;
  w.source = fmt::format("synthetic(seed={})", options.seed);
  ReserveHugePages(w.jobs, static_cast<size_t>(options.num_jobs));  // read at random by the simulator
  char name[32];
  for (long long i = 0; i < options.num_jobs; ++i) {
    Job job = mix.Next(mix.DrawRuntime());
    // Arrivals only move forward, so index i is also the sorted position: id = i.
    job.spec.id = i;
    auto end = fmt::format_to_n(name, sizeof(name), "job-{}", i).out;
    job.spec.name.assign(name, end);
    w.jobs.push_back(std::move(job));
  }
  w.rows_read = options.num_jobs;
  return w;
}

}  // namespace hetsched
