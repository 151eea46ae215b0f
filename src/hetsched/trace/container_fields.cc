#include "hetsched/trace/container_fields.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "hetsched/util/text.h"
#include "hetsched/util/units.h"

namespace hetsched::trace_internal {
namespace {

constexpr long long kMaxContainers = 100000;

enum Col { kNumPs, kNumWorkers, kPsCpu, kPsMem, kPsGpus, kWorkerCpu, kWorkerMem, kWorkerGpus };

// Cores as a decimal (0.5 = 500 millicores): > 0 and at most 1e6 cores.
Status ParseCpu(const RowRef& row, std::string_view field, std::string_view text, int64_t* millicores) {
  double cores = 0;
  HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row, field, text, &cores));
  if (!(cores > 0) || cores > 1e6) return FieldError(row, field, fmt::format("must be in (0, 1e6] cores, got {}", cores));
  *millicores = std::max<int64_t>(1, std::llround(cores * 1000.0));
  return Status::Ok();
}

Status ParseMemory(const RowRef& row, std::string_view field, std::string_view text, int64_t* bytes) {
  double gib = 0;
  HETSCHED_RETURN_IF_ERROR(ParseDoubleField(row, field, text, &gib));
  if (!(gib > 0) || gib > 1e6) return FieldError(row, field, fmt::format("must be in (0, 1e6] GiB, got {}", gib));
  *bytes = std::max<int64_t>(1, std::llround(gib * kGiB));
  return Status::Ok();
}

Status ParseCount(const RowRef& row, std::string_view field, std::string_view text, long long min, int* out) {
  long long v = 0;
  HETSCHED_RETURN_IF_ERROR(ParseIntField(row, field, text, &v));
  if (v < min || v > kMaxContainers) {
    return FieldError(row, field, fmt::format("must be an integer in [{}, {}], got {}", min, kMaxContainers, v));
  }
  *out = static_cast<int>(v);
  return Status::Ok();
}

void AppendShortest(std::string* out, double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;
  out->append(buf, end);
}

}  // namespace

ContainerRequest DefaultPsRequest() { return ContainerRequest{2000, static_cast<int64_t>(8 * kGiB), 0}; }
ContainerRequest DefaultWorkerRequest() { return ContainerRequest{4000, static_cast<int64_t>(16 * kGiB), 1}; }

ContainerColumns ResolveContainerColumns(const ColumnMap& map) {
  ContainerColumns cols{};
  for (size_t i = 0; i < kNumContainerColumns; ++i) cols.index[i] = map.Index(kContainerColumns[i]);
  return cols;
}

Status ParseContainerFields(const RowRef& row, const ContainerColumns& cols,
                            const std::vector<std::string_view>& fields, bool parallelism_given,
                            JobSpec* spec) {
  auto text = [&](int c) -> std::string_view {
    const int i = cols.index[c];
    return i >= 0 ? Trim(fields[static_cast<size_t>(i)]) : std::string_view{};
  };
  int num_ps = 0;
  if (!text(kNumPs).empty()) HETSCHED_RETURN_IF_ERROR(ParseCount(row, "num_ps", text(kNumPs), 0, &num_ps));
  if (num_ps == 0) {
    for (int c = kNumWorkers; c <= kWorkerGpus; ++c) {
      if (!text(c).empty()) {
        return FieldError(row, kContainerColumns[static_cast<size_t>(c)],
                          "only parameter-server container jobs (num_ps >= 1) take this field");
      }
    }
    return Status::Ok();
  }
  if (parallelism_given && spec->parallelism != Parallelism::kDataPS) {
    return FieldError(row, "parallelism", fmt::format("a container job (num_ps >= 1) is 'ps', got '{}'",
                                                      ParallelismName(spec->parallelism)));
  }
  ContainerRequest ps = DefaultPsRequest();
  ContainerRequest worker = DefaultWorkerRequest();
  if (!text(kPsCpu).empty()) HETSCHED_RETURN_IF_ERROR(ParseCpu(row, "ps_cpu", text(kPsCpu), &ps.cpu_millicores));
  if (!text(kPsMem).empty()) HETSCHED_RETURN_IF_ERROR(ParseMemory(row, "ps_memory_gib", text(kPsMem), &ps.memory_bytes));
  if (!text(kPsGpus).empty()) HETSCHED_RETURN_IF_ERROR(ParseCount(row, "ps_gpus", text(kPsGpus), 0, &ps.gpus));
  if (!text(kWorkerCpu).empty()) {
    HETSCHED_RETURN_IF_ERROR(ParseCpu(row, "worker_cpu", text(kWorkerCpu), &worker.cpu_millicores));
  }
  if (!text(kWorkerMem).empty()) {
    HETSCHED_RETURN_IF_ERROR(ParseMemory(row, "worker_memory_gib", text(kWorkerMem), &worker.memory_bytes));
  }
  if (!text(kWorkerGpus).empty()) {
    HETSCHED_RETURN_IF_ERROR(ParseCount(row, "worker_gpus", text(kWorkerGpus), 1, &worker.gpus));
  }
  const long long ps_gpus = static_cast<long long>(num_ps) * ps.gpus;
  int num_workers = 0;
  if (!text(kNumWorkers).empty()) {
    HETSCHED_RETURN_IF_ERROR(ParseCount(row, "num_workers", text(kNumWorkers), 1, &num_workers));
  } else {
    // Derived from num_gpus: whatever the servers do not hold, in whole workers.
    const long long left = spec->num_gpus - ps_gpus;
    if (left < worker.gpus || left % worker.gpus != 0) {
      return FieldError(row, "num_workers", fmt::format("missing, and num_gpus {} minus the servers' {} GPUs is not a "
                                                        "positive multiple of worker_gpus {}",
                                                        spec->num_gpus, ps_gpus, worker.gpus));
    }
    num_workers = static_cast<int>(left / worker.gpus);
  }
  const long long total = static_cast<long long>(num_workers) * worker.gpus + ps_gpus;
  if (total != spec->num_gpus) {
    return FieldError(row, "num_gpus", fmt::format("a container job holds num_workers x worker_gpus + num_ps x ps_gpus "
                                                   "= {} x {} + {} x {} = {} GPUs, the row says {}",
                                                   num_workers, worker.gpus, num_ps, ps.gpus, total, spec->num_gpus));
  }
  spec->num_ps = num_ps;
  spec->num_workers = num_workers;
  spec->ps_request = ps;
  spec->worker_request = worker;
  spec->parallelism = Parallelism::kDataPS;
  return Status::Ok();
}

void AppendContainerFields(const JobSpec& spec, std::string* out) {
  if (!spec.is_container_job()) {
    out->append(kNumContainerColumns - 1, ',');
    return;
  }
  auto add = [&](double v, bool comma) {
    AppendShortest(out, v);
    if (comma) out->push_back(',');
  };
  add(spec.num_ps, true);
  add(spec.num_workers, true);
  add(static_cast<double>(spec.ps_request.cpu_millicores) / 1000.0, true);
  add(static_cast<double>(spec.ps_request.memory_bytes) / kGiB, true);
  add(spec.ps_request.gpus, true);
  add(static_cast<double>(spec.worker_request.cpu_millicores) / 1000.0, true);
  add(static_cast<double>(spec.worker_request.memory_bytes) / kGiB, true);
  add(spec.worker_request.gpus, false);
}

}  // namespace hetsched::trace_internal
