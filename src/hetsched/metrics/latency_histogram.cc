#include "hetsched/metrics/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace hetsched {

namespace {
constexpr uint64_t kExactBelow = 1024;  // 2^(kSubBits + 3): every nanosecond its own bucket
constexpr int kLowBits = 10;            // log2(kExactBelow)
constexpr int kMaxBits = 64;
}  // namespace

LatencyHistogram::LatencyHistogram()
    : counts_(kExactBelow + static_cast<size_t>(kMaxBits - kLowBits) * (size_t{1} << kSubBits), 0) {}

size_t LatencyHistogram::BucketOf(uint64_t ns) {
  if (ns < kExactBelow) return static_cast<size_t>(ns);
  const int top = std::bit_width(ns) - 1;  // >= kLowBits
  const uint64_t sub = (ns >> (top - kSubBits)) & ((uint64_t{1} << kSubBits) - 1);
  return kExactBelow + static_cast<size_t>(top - kLowBits) * (size_t{1} << kSubBits) + static_cast<size_t>(sub);
}

uint64_t LatencyHistogram::LowerEdge(size_t bucket) {
  if (bucket < kExactBelow) return bucket;
  const size_t i = bucket - kExactBelow;
  const int top = kLowBits + static_cast<int>(i >> kSubBits);
  const uint64_t sub = i & ((size_t{1} << kSubBits) - 1);
  return (uint64_t{1} << top) | (sub << (top - kSubBits));
}

void LatencyHistogram::Add(double seconds) {
  const double ns_f = std::max(0.0, seconds) * 1e9;
  const uint64_t ns = ns_f >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(std::llround(ns_f));
  ++counts_[BucketOf(ns)];
  ++count_;
  max_ns_ = std::max(max_ns_, ns);
}

double LatencyHistogram::Quantile(double p) const {
  if (count_ == 0) return 0.0;
  const uint64_t rank = std::min(count_ - 1, static_cast<uint64_t>(p * static_cast<double>(count_)));
  uint64_t seen = 0;
  for (size_t b = 0; b < counts_.size(); ++b) {
    seen += counts_[b];
    if (seen > rank) return static_cast<double>(std::min(LowerEdge(b), max_ns_)) * 1e-9;
  }
  return max_s();
}

}  // namespace hetsched
