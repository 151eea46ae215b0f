// AllocationPair (policies/gavel/allocation.h) holds views of its rates, which whoever poses the
// problem keeps alive. The policies' tests pose small problems inline: TestPair keeps each pair's
// rates for the rest of the test process.
#pragma once

#include <cstddef>
#include <deque>
#include <span>
#include <utility>
#include <vector>

#include "hetsched/policies/gavel/allocation.h"

namespace hetsched::testing_util {

// A copy of `rates` that lives as long as the test process.
inline std::span<const double> KeptRates(std::vector<double> rates) {
  static std::deque<std::vector<double>> kept;  // a deque: earlier rows never move
  return kept.emplace_back(std::move(rates));
}

// The pair of jobs a < b (indices into the problem's jobs) at rates `ta` and `tb` by type.
inline gavel::AllocationPair TestPair(size_t a, size_t b, std::vector<double> ta, std::vector<double> tb) {
  return gavel::AllocationPair{a, b, KeptRates(std::move(ta)), KeptRates(std::move(tb))};
}

}  // namespace hetsched::testing_util
