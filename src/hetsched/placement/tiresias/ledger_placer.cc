#include "hetsched/placement/tiresias/ledger_placer.h"

#include <string>

namespace hetsched {

bool TiresiasLedgerPlacer::Place(const PlacementRequest& request, const ClusterState& state,
                                 std::vector<DeviceId>* out) {
  ledger_.Sync(state);
  const std::vector<DeviceTypeId> types = CandidateTypes(request, state);
  if (types.empty()) return false;
  DeviceTypeId type = types.front();
  for (DeviceTypeId t : types) {
    if (state.free_of_type(t) >= request.num_devices) {
      type = t;
      break;
    }
  }
  workers_.clear();
  entries_.clear();
  if (!PlaceOnNodes(request.num_devices, type, state, &workers_, &entries_)) return false;
  const size_t first = out->size();
  if (!TiresiasNodeLedger::TakeDevices(state, workers_, first, out)) {
    // Only when devices the ledger counts as free are held by a job started without this placer
    // (a policy that places by itself): the job waits, as if it had not fit.
    for (const TiresiasNodeLedger::Entry& e : entries_) ledger_.GiveBack(e.node, e.gpus, e.cores);
    return false;
  }
  if (request.job == nullptr) {
    // A request for no job (a what-if): answered, and nothing is kept.
    for (const TiresiasNodeLedger::Entry& e : entries_) ledger_.GiveBack(e.node, e.gpus, e.cores);
    return true;
  }
  ledger_.Record(request.job->id, (*out)[first], entries_);
  return true;
}

Result<TiresiasLedgerPlacer::Settings> TiresiasLedgerPlacer::ReadSettings(const Options& options,
                                                                          const char* placer) {
  HETSCHED_ASSIGN_OR_RETURN(const long long seed, options.GetInt("seed", 1));
  HETSCHED_ASSIGN_OR_RETURN(const long long cores, options.GetInt("cores", 40));
  if (seed < 0) {
    return Status::InvalidArgument(std::string("placer '") + placer + "': seed must be >= 0 (got " +
                                   std::to_string(seed) + ")");
  }
  if (cores < 1 || cores > 1'000'000) {
    return Status::InvalidArgument(std::string("placer '") + placer + "': cores must be in 1..1000000 (got " +
                                   std::to_string(cores) + ")");
  }
  return Settings{static_cast<uint64_t>(seed), static_cast<int>(cores)};
}

}  // namespace hetsched
