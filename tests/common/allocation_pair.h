// AllocationPair (policies/gavel/allocation.h) holds views of its rates, which whoever poses the
// problem keeps alive. The policies' tests pose small problems inline: TestPair keeps each pair's
// rates for the rest of the test process.
#pragma once

#include <cstddef>
#include <deque>
#include <random>
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

// Every pair of `p`'s jobs, in (a, b) order: on each type, with one chance in five both rates 0,
// else each job's isolated rate times a draw from [frac_lo, frac_hi) (the random problems of the
// packed solvers' tests).
inline void AddEveryPair(gavel::AllocationProblem& p, std::mt19937& rng, double frac_lo, double frac_hi) {
  std::uniform_int_distribution<int> coin(0, 4);
  std::uniform_real_distribution<double> frac(frac_lo, frac_hi);
  const size_t types = p.capacity.size();
  for (size_t a = 0; a < p.jobs.size(); ++a) {
    for (size_t b = a + 1; b < p.jobs.size(); ++b) {
      std::vector<double> ta, tb;
      for (size_t k = 0; k < types; ++k) {
        const bool zero = coin(rng) == 0;
        ta.push_back(zero ? 0.0 : p.jobs[a].throughput[k] * frac(rng));
        tb.push_back(zero ? 0.0 : p.jobs[b].throughput[k] * frac(rng));
      }
      p.pairs.push_back(TestPair(a, b, std::move(ta), std::move(tb)));
    }
  }
}

}  // namespace hetsched::testing_util
