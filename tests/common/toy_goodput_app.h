// A hand-made goodput application for the split tests (tests/sim/goodput_split_test.cc,
// tests/policies/split_jobs_test.cc): Pollux-format placement rows the test chooses, and one set of
// validation curves (initial batch 32, largest 256; gradient statistics 1 and 3).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "hetsched/perf/goodput_application.h"

namespace hetsched::testing_util {

// A placement row: `where` ("1", "2", ...), local batch, step and synchronisation seconds.
inline PolluxPlacementRow ToyRow(const char* where, int bsz, double step, double sync) {
  PolluxPlacementRow r;
  r.placement = where;
  r.local_bsz = bsz;
  r.step_time_s = step;
  r.sync_time_s = sync;
  return r;
}

inline std::shared_ptr<const GoodputApplication> ToyApplication(std::vector<PolluxPlacementRow> placements) {
  PolluxModelProfile p;
  p.model = "toy";
  p.placements = std::move(placements);
  p.validation[32] = {PolluxValidationRow{100, 100, 0.5, 1, 3}, PolluxValidationRow{200, 200, 0.6, 1, 3}};
  p.validation[256] = {PolluxValidationRow{150, 20, 0.5, 1, 3}, PolluxValidationRow{300, 40, 0.6, 1, 3}};
  auto app = GoodputApplication::Create(std::move(p));
  EXPECT_TRUE(app.ok()) << app.status().ToString();
  return *app;
}

// The fast type of the split tests: passes 0.05 + 0.003125 b (local batches 32..64), 0.05 s to
// synchronise two GPUs.
inline std::shared_ptr<const GoodputApplication> ToyFastApplication() {
  return ToyApplication(
      {ToyRow("1", 32, 0.1, 0), ToyRow("1", 64, 0.2, 0), ToyRow("2", 32, 0.2, 0.05), ToyRow("2", 64, 0.3, 0.05)});
}

}  // namespace hetsched::testing_util
