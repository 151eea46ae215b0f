// Containers of parameter-server jobs (DLTAP, ALGORITHMS.md 6): what one container asks of a
// node, and where a placer put it. Data only. CPU is counted in millicores and memory in bytes,
// both integers (as Kubernetes does), so that "no node is over-committed" is an exact check
// with no rounding drift however many containers come and go.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hetsched/model/device.h"

namespace hetsched {

enum class ContainerRole { kParameterServer, kWorker };
std::string_view ContainerRoleName(ContainerRole role);  // "ps", "worker"

struct ContainerRequest {
  int64_t cpu_millicores = 0;  // 1000 = one core
  int64_t memory_bytes = 0;
  int gpus = 0;                // accelerators, all on the container's node, of one type
};

// One placed container: the node, the accelerators it holds there (request.gpus of them) and
// its role and index within its job (ps 0..P-1, worker 0..M-1).
struct ContainerPlacement {
  ContainerRole role = ContainerRole::kWorker;
  int index = 0;
  int node = 0;  // NodeId
  ContainerRequest request;
  std::vector<int> devices;  // DeviceIds
};

}  // namespace hetsched
