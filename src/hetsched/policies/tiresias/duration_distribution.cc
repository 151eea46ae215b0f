// The distribution and indices of duration_distribution.h. SymbioticLab/Tiresias @ 959f9b0,
// simulator/run_sim.py:581-589, 1244-1249, 1950-2009.
#include "hetsched/policies/tiresias/duration_distribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {

double RoundLikePython(double x, int digits) {
  if (!std::isfinite(x)) return x;
  // glibc prints the exact binary value rounded to `digits` places, ties to even (the current
  // rounding mode), as Python's float.__round__ does through _Py_dg_dtoa mode 3.
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return std::strtod(buf, nullptr);
}

Result<TiresiasDurationDistribution> TiresiasDurationDistribution::Parse(const std::string& csv_text,
                                                                         const std::string& path,
                                                                         int64_t delta) {
  if (delta <= 0) {
    return Status::InvalidArgument(path + ": the Gittins quantum must be > 0, got " + std::to_string(delta));
  }
  LineReader lines(csv_text);
  std::string_view line;
  int column = -1;
  std::vector<int64_t> samples;
  while (lines.Next(&line)) {
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> cols = Split(line, ',');
    const std::string where = path + ":" + std::to_string(lines.line_number());
    if (column < 0) {
      for (size_t i = 0; i < cols.size(); ++i) {
        if (Trim(cols[i]) == "duration") column = static_cast<int>(i);
      }
      if (column < 0) return Status::InvalidArgument(where + ": no duration column in the header");
      continue;
    }
    if (static_cast<int>(cols.size()) <= column) return Status::InvalidArgument(where + ": too few fields");
    HETSCHED_ASSIGN_OR_RETURN(
        const long long d, ParseInt(Trim(cols[static_cast<size_t>(column)]), where + ": field 'duration'"));
    if (d < 0) return Status::InvalidArgument(where + ": field 'duration' is negative");
    samples.push_back(d);
  }
  if (column < 0) return Status::InvalidArgument(path + ": empty, no header");
  if (samples.empty()) return Status::InvalidArgument(path + ": no durations after the header");
  return FromSamples(std::move(samples), delta);
}

TiresiasDurationDistribution TiresiasDurationDistribution::FromSamples(std::vector<int64_t> samples,
                                                                       int64_t delta) {
  TiresiasDurationDistribution d;
  d.delta_ = delta;
  d.sorted_ = std::move(samples);
  std::sort(d.sorted_.begin(), d.sorted_.end());
  d.prefix_.assign(d.sorted_.size() + 1, 0);
  for (size_t k = 0; k < d.sorted_.size(); ++k) d.prefix_[k + 1] = d.prefix_[k] + d.sorted_[k];
  // parse_job_dist (run_sim.py:2000-2007): one entry per sample, then 0 past the largest.
  d.index_.reserve(d.sorted_.size() + 1);
  for (int64_t v : d.sorted_) d.index_.push_back(d.IndexFormula(v - 1));
  d.index_.push_back(0.0);
  return d;
}

double TiresiasDurationDistribution::IndexFormula(int64_t a) const {
  const auto n = static_cast<int64_t>(sorted_.size());
  const int64_t largest = sorted_.back();
  if (a > largest - 1) return 0.0;
  const auto first_above = [&](int64_t x) {
    return static_cast<int64_t>(std::upper_bound(sorted_.begin(), sorted_.end(), x) - sorted_.begin());
  };
  const int64_t i = first_above(a);
  // run_sim.py:1964-1967: n - 1, not n, when a + delta passes the largest sample (so the largest
  // sample is counted as delta in E below).
  const int64_t j = a + delta_ > largest - 1 ? n - 1 : first_above(a + delta_);
  const double p = RoundLikePython(static_cast<double>(j - i) / static_cast<double>(n - i), 5);
  const int64_t e_sum =
      (prefix_[static_cast<size_t>(j)] - prefix_[static_cast<size_t>(i)]) + delta_ * (n - j);
  const double e = RoundLikePython(static_cast<double>(e_sum) / static_cast<double>(n - i), 5);
  return RoundLikePython(p * 1000000 / e, 4);
}

double TiresiasDurationDistribution::GittinsIndex(int64_t attained) const {
  if (attained > sorted_.back()) return 0.0;
  const auto k = std::upper_bound(sorted_.begin(), sorted_.end(), attained) - sorted_.begin();
  return index_[static_cast<size_t>(k)];
}

double TiresiasDurationDistribution::ExpectedDuration(int64_t attained) const {
  const auto n = static_cast<int64_t>(sorted_.size());
  const int64_t i = std::upper_bound(sorted_.begin(), sorted_.end(), attained) - sorted_.begin();
  if (i == n - 1) return static_cast<double>(sorted_.back());
  const int64_t count = n - 1 - i;  // -1 when no sample is above: the peer's sum([]) / -1 = -0.0
  const int64_t sum = i < n ? prefix_[static_cast<size_t>(n - 1)] - prefix_[static_cast<size_t>(i)] : 0;
  return RoundLikePython(static_cast<double>(sum) / static_cast<double>(count), 2);
}

Result<std::shared_ptr<const TiresiasDurationDistribution>> TiresiasDistributionFromOptions(
    const std::string& policy, const Options& options, bool gittins) {
  const std::string where = "policy '" + policy + "'";
  HETSCHED_ASSIGN_OR_RETURN(const long long delta,
                            gittins ? options.GetInt("delta", 3250) : Result<long long>(3250));
  if (delta <= 0)
    return Status::InvalidArgument(where + ": option 'delta' must be > 0, got " + std::to_string(delta));
  const std::string path = options.GetString("distribution", "data/real/tiresias/yarn-gput1000.csv");
  auto text = ReadFileOrEmbedded(path);
  if (!text.ok())
    return Status::InvalidArgument(where + ": option 'distribution': " + text.status().message());
  HETSCHED_ASSIGN_OR_RETURN(TiresiasDurationDistribution dist,
                            TiresiasDurationDistribution::Parse(*text, path, delta));
  return std::make_shared<const TiresiasDurationDistribution>(std::move(dist));
}

}  // namespace hetsched
