// The job-duration distribution Tiresias' simulator "learns" for its Gittins and expected-length
// policies, and the two numbers it derives from it (SymbioticLab/Tiresias @ 959f9b0,
// simulator/run_sim.py): parse_job_dist (1984-2009) reads the `duration` column of a CSV, in
// the peer always yarn-gput1000.csv in its working directory (1,001 GPU-time samples; shipped
// here as data/real/tiresias/yarn-gput1000.csv), and sorts it.
//
// GittinsIndex(a), cal_r_gittins_index (1950-1981) looked up by get_gittins_index (1244-1249):
// for attained service a, with d the n sorted samples and delta the quantum (jobs.py:116, 3250):
//   i  = first sample > a;   j = first sample > a + delta, or n - 1 when a + delta > d[n-1] - 1
//   P  = round((j - i) / (n - i), 5)          the chance to finish within the next delta
//   E  = round((d[i] + ... + d[j-1] + delta (n - j)) / (n - i), 5)   the expected service spent
//   index = round(P x 1e6 / E, 4)
// with Python 3's round (the peer run under Python 3: true division). The peer tabulates it once
// per sample, at a = d[k] - 1, and a job's index is the entry of the first sample above its
// attained service (0 beyond the largest): the index is constant between samples.
//
// ExpectedDuration(a), cal_shortest_expected_remaining (581-589): the mean of the samples above
// a, leaving out the largest one; the largest itself when it is the only one above; -0.0 when
// none is (the peer divides an empty sum by -1).
//
// Immutable after Parse; safe to share between schedulers and threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/sched/options.h"
#include "hetsched/util/status.h"

namespace hetsched {

// Python 3's round(x, digits) for a double: the decimal nearest to x's exact binary value with
// `digits` places, ties to even, read back as the nearest double.
double RoundLikePython(double x, int digits);

class TiresiasDurationDistribution {
 public:
  // The `duration` column (whole seconds, >= 0) of a CSV with a header row; `path` names the
  // source in errors (file:line, field). Fails on no samples, a missing column, a bad value.
  // `delta` (> 0) is the Gittins quantum. Cost: O(n log n).
  static Result<TiresiasDurationDistribution> Parse(const std::string& csv_text, const std::string& path,
                                                    int64_t delta);
  // From samples directly (tests). REQUIRES: non-empty, each >= 0, delta > 0.
  static TiresiasDurationDistribution FromSamples(std::vector<int64_t> samples, int64_t delta);

  // The Gittins index of a job that attained `attained` (truncated to whole units, as the peer's
  // int()): higher runs first. O(log n).
  double GittinsIndex(int64_t attained) const;
  // The expected duration of a job that has run `attained` seconds. O(log n).
  double ExpectedDuration(int64_t attained) const;

  int num_samples() const { return static_cast<int>(sorted_.size()); }
  int64_t delta() const { return delta_; }

 private:
  TiresiasDurationDistribution() = default;
  double IndexFormula(int64_t a) const;  // cal_r_gittins_index

  int64_t delta_ = 0;
  std::vector<int64_t> sorted_;  // the samples, ascending
  std::vector<int64_t> prefix_;  // prefix_[k] = sorted_[0] + ... + sorted_[k-1] (exact)
  std::vector<double> index_;    // index_[k] = IndexFormula(sorted_[k] - 1); index_[n] = 0
};

// The distribution a policy's options name: `distribution` (a CSV with a `duration` column; default
// the peer's data/real/tiresias/yarn-gput1000.csv, found beside the program as other shipped data)
// and, when `gittins`, `delta` (the Gittins quantum in service units, default 3250 as jobs.py:116).
// Errors name the policy, the option and the file.
Result<std::shared_ptr<const TiresiasDurationDistribution>> TiresiasDistributionFromOptions(
    const std::string& policy, const Options& options, bool gittins = true);

}  // namespace hetsched
