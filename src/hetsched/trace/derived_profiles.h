// Goodput profiles for GPU types nobody measured, derived from measured ones [REC: ours]. A Pollux
// application's files hold its step and synchronisation times on one type (Pollux's: the T4 of an
// AWS g4dn.12xlarge). On another type, each row's compute part (step - sync) is scaled by the
// ratio of hetsched's roofline compute time of the application's zoo model at the row's local
// batch on the two types (perf/iteration_model.h ComputeTime, ALGORITHMS.md 1.4-1); the
// synchronisation part is kept (the same network). Validation curves (the statistics of training)
// do not depend on the hardware and are shared. The result is laid out as Sia's traces/ folder
// (DIR/<application>/placements-<suffix>.csv, scalability-<suffix>.csv, validation-*.csv, and the
// measured type's files unsuffixed), so that `--profiles DIR --profile-types` reads it.
//
// Nothing derived here is a measurement: a derived type's speed is the model's, with its errors.
// Memory is not checked: derive only types with at least the measured type's memory.
#pragma once

#include <string>
#include <vector>

#include "hetsched/model/device.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/util/status.h"

namespace hetsched {

struct DerivedType {
  std::string suffix;               // the files' suffix (placements-<suffix>.csv)
  const DeviceType* type = nullptr;
};

// The factor a step's compute part takes from `measured` to `target` for `model` at `local_bsz`.
double ComputeRatio(const ModelProfile& model, int local_bsz, const DeviceType& measured, const DeviceType& target);

// Writes `to_dir`/<application>/ for each of `applications`: its files from `from_dir` (measured on
// `measured`), unsuffixed, and each of `targets`' placements and scalability files, derived. Errors
// name the file (an unreadable or bad profile, an application the zoo lacks); nothing is written
// for an application whose files fail.
Status DeriveGoodputProfiles(const std::string& from_dir, const std::string& to_dir,
                             const std::vector<std::string>& applications, const DeviceType& measured,
                             const std::vector<DerivedType>& targets, const ModelZoo& zoo);

}  // namespace hetsched
