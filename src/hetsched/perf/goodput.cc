#include "hetsched/perf/goodput.h"
#include "hetsched/util/fixed_math.h"

#include <algorithm>
#include <cmath>

namespace hetsched {

namespace {
constexpr int kBatchCandidates = 50;  // numpy.geomspace's default count
constexpr double kEps = 1e-8;         // tolerance of the ceilings (goodput.py)
}  // namespace

double GoodputModel::AccumTimeS(int atomic_bsz) const { return p_.alpha_c + p_.beta_c * atomic_bsz; }

double GoodputModel::NetworkTimeS(int nodes, int replicas) const {
  // The slowest link between replicas: across nodes, else within the node; none on one GPU.
  double alpha = kEps, beta = kEps;
  if (nodes > 1) {
    alpha = p_.alpha_n;
    beta = p_.beta_n;
  } else if (replicas > 1) {
    alpha = p_.alpha_r;
    beta = p_.beta_r;
  }
  // A ring all-reduce takes as many steps as replicas: beta is the cost of each beyond two.
  return alpha + beta * std::max(static_cast<double>(replicas - 2), kEps);
}

double GoodputModel::OptimStepTimeS(double accum_s, double network_s) const {
  // exp(log(a^g + n^g) / g), as the simulator computes it.
  return FixedExp(FixedLog(FixedPow(accum_s, p_.gamma) + FixedPow(network_s, p_.gamma)) / p_.gamma);
}

double GoodputModel::IterationTimeS(const GoodputConfig& c) const {
  const double accum_s = AccumTimeS(c.atomic_bsz);
  return c.accum_steps * accum_s + OptimStepTimeS(accum_s, NetworkTimeS(c.nodes, c.replicas));
}

double GoodputModel::Throughput(const GoodputConfig& c) const { return c.BatchSize() / IterationTimeS(c); }

double GoodputModel::Efficiency(double batch_size) const {
  const double scale = batch_size / init_batch_size_;
  const double denom = grad_.var / scale + grad_.sqr;
  const double gain = denom > 0 ? (grad_.var + grad_.sqr) / denom : 1.0;
  return gain / scale;
}

double GoodputModel::Goodput(const GoodputConfig& c) const { return Throughput(c) * Efficiency(c.BatchSize()); }

void GeomSpace(double start, double stop, int n, double* out) {
  const double lo = FixedLog10(start), hi = FixedLog10(stop);
  const double step = n > 1 ? (hi - lo) / (n - 1) : 0.0;
  for (int i = 0; i < n; ++i) out[i] = FixedPow(10.0, i * step + lo);
  if (n > 0) out[0] = start;
  if (n > 1) out[n - 1] = stop;
}

BatchChoice GoodputModel::Optimize(int nodes, int replicas, const BatchLimits& limits) const {
  const double max_batch = limits.max_batch_size > 0 ? limits.max_batch_size : init_batch_size_;
  const int max_atomic = limits.max_atomic_bsz > 0 ? limits.max_atomic_bsz : static_cast<int>(max_batch);
  double batch[kBatchCandidates];
  GeomSpace(std::max(init_batch_size_, static_cast<double>(limits.min_atomic_bsz) * replicas), max_batch,
            kBatchCandidates, batch);
  BatchChoice best;
  bool found = false;
  for (double total : batch) {
    const double local = total / replicas;
    int accum = 0;
    if (limits.accumulation) {
      accum = static_cast<int>(std::ceil(local / max_atomic - kEps)) - 1;
      if (replicas == 1 && local > init_batch_size_ + kEps) accum = std::max(accum, 1);
    }
    GoodputConfig c{nodes, replicas, static_cast<int>(std::ceil(local / (accum + 1) - kEps)), accum};
    const bool valid = limits.min_atomic_bsz <= c.atomic_bsz && c.atomic_bsz <= max_atomic;
    const double goodput = valid ? Goodput(c) : 0.0;
    // numpy.argmax: the first of equal maxima.
    if (!found || goodput > best.goodput) best = BatchChoice{goodput, c.atomic_bsz, c.accum_steps};
    found = true;
  }
  return best;
}

}  // namespace hetsched
