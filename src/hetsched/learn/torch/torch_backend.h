// The back end's factories (learn/torch/ only; backend_entry.cc hands them out as learn::Backend).
#pragma once

#include <memory>

#include "hetsched/learn/backend.h"

namespace hetsched::learn {

// REQUIRES: config.Validate().ok(). Seed LibTorch and build the network.
std::unique_ptr<AllocationNetBackend> NewTorchAllocationNet(const AllocationAgentConfig& config);
// REQUIRES: config.Validate().ok(). Nothing is built before Fit or Restore.
std::unique_ptr<GruNetBackend> NewTorchGruNet(const GruForecasterConfig& config);

}  // namespace hetsched::learn
