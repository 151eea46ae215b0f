// LatencyHistogram: counts of durations in log-linear buckets, for quantiles of millions of
// samples in fixed memory (~40 KiB) instead of a vector of every sample. Durations are kept in
// whole nanoseconds: exactly below 1,024 ns, and above that in 128 buckets per power of two, so a
// quantile is the lower edge of its bucket, at most 1/128 (0.8%) below the true sample. The
// largest sample is kept exactly. The idea of HdrHistogram (Tene), written for this one use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hetsched {

class LatencyHistogram {
 public:
  LatencyHistogram();
  // Adds one duration in seconds (negative counts as 0).
  void Add(double seconds);
  uint64_t count() const { return count_; }
  double max_s() const { return static_cast<double>(max_ns_) * 1e-9; }
  // The sample of rank floor(p x count) (clamped to the last) in ascending order, to the
  // bucket's lower edge, in seconds; 0 when empty. REQUIRES: 0 <= p <= 1.
  double Quantile(double p) const;

 private:
  static constexpr int kSubBits = 7;  // 128 buckets per power of two above 1,024 ns
  static size_t BucketOf(uint64_t ns);
  static uint64_t LowerEdge(size_t bucket);

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t max_ns_ = 0;
};

}  // namespace hetsched
