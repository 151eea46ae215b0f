// Private to trace/: the parameter-server container columns of the native trace format
// (docs/formats-trace.md "Container jobs"): num_ps, num_workers, ps_cpu, ps_memory_gib, ps_gpus,
// worker_cpu, worker_memory_gib, worker_gpus. Parsing, cross-field checks and writing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/model/job.h"
#include "hetsched/trace/reader_common.h"

namespace hetsched::trace_internal {

// Column names, in the order the writer emits them.
inline constexpr std::string_view kContainerColumns[] = {
    "num_ps", "num_workers", "ps_cpu", "ps_memory_gib", "ps_gpus", "worker_cpu", "worker_memory_gib", "worker_gpus"};
inline constexpr size_t kNumContainerColumns = std::size(kContainerColumns);

// Defaults for requests a container job's row leaves empty [REC]: a parameter server is a CPU
// process (2 cores, 8 GiB, no accelerator); a worker drives one accelerator with 4 cores and
// 16 GiB of host memory (what TensorFlow-on-Kubernetes examples of the period ask for).
ContainerRequest DefaultPsRequest();
ContainerRequest DefaultWorkerRequest();

// Header index of each container column (-1 = absent), in kContainerColumns order.
struct ContainerColumns {
  int index[kNumContainerColumns];
};
ContainerColumns ResolveContainerColumns(const ColumnMap& map);

// Reads the container columns of one row into `spec` (whose num_gpus and parallelism are
// already parsed). A row whose num_ps is empty or 0 is a plain job and must leave the other
// container columns empty. Errors name the row and the field.
Status ParseContainerFields(const RowRef& row, const ContainerColumns& cols,
                            const std::vector<std::string_view>& fields, bool parallelism_given,
                            JobSpec* spec);

// Appends the container columns of `spec` (comma-separated, no leading comma; empty fields for
// a plain job).
void AppendContainerFields(const JobSpec& spec, std::string* out);

}  // namespace hetsched::trace_internal
