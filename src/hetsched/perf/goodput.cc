#include "hetsched/perf/goodput.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "hetsched/util/fixed_math.h"

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
  return OptimStepFromNetworkPower(accum_s, FixedPow(network_s, p_.gamma));
}

double GoodputModel::OptimStepFromNetworkPower(double accum_s, double network_pow) const {
  // exp(log(a^g + n^g) / g), as the simulator computes it.
  return FixedExp(FixedLog(FixedPow(accum_s, p_.gamma) + network_pow) / p_.gamma);
}

double GoodputModel::IterationTimeS(const GoodputConfig& c) const {
  return IterationFromNetworkPower(c, FixedPow(NetworkTimeS(c.nodes, c.replicas), p_.gamma));
}

double GoodputModel::IterationFromNetworkPower(const GoodputConfig& c, double network_pow) const {
  const double accum_s = AccumTimeS(c.atomic_bsz);
  return c.accum_steps * accum_s + OptimStepFromNetworkPower(accum_s, network_pow);
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

// Optimize's candidates for one model and allocation: each total batch's split and throughput.
// Only the efficiency, which moves with the gradient statistics at every epoch, is left to
// compute at each call.
struct GoodputModel::Candidate {
  int atomic_bsz = 0;
  int accum_steps = 0;
  bool valid = false;
  double batch_size = 0;
  double throughput = 0;  // samples/s
};

namespace {

using Candidates = std::array<GoodputModel::Candidate, kBatchCandidates>;

struct CandidateKey {
  ThroughputParams p;
  double init_batch_size = 0;
  int nodes = 0, replicas = 0;
  BatchLimits limits;

  bool operator==(const CandidateKey& o) const {
    return p.alpha_c == o.p.alpha_c && p.beta_c == o.p.beta_c && p.alpha_n == o.p.alpha_n &&
           p.beta_n == o.p.beta_n && p.alpha_r == o.p.alpha_r && p.beta_r == o.p.beta_r &&
           p.gamma == o.p.gamma && init_batch_size == o.init_batch_size && nodes == o.nodes &&
           replicas == o.replicas && limits.max_batch_size == o.limits.max_batch_size &&
           limits.min_atomic_bsz == o.limits.min_atomic_bsz &&
           limits.max_atomic_bsz == o.limits.max_atomic_bsz && limits.accumulation == o.limits.accumulation;
  }
  size_t Hash() const {
    uint64_t h = 0xcbf29ce484222325ULL;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ULL; };
    for (double d : {p.alpha_c, p.beta_c, p.alpha_n, p.beta_n, p.alpha_r, p.beta_r, p.gamma, init_batch_size,
                     limits.max_batch_size}) {
      mix(std::bit_cast<uint64_t>(d));
    }
    mix(static_cast<uint64_t>(nodes) << 32 | static_cast<uint32_t>(replicas));
    mix(static_cast<uint64_t>(limits.min_atomic_bsz) << 32 | static_cast<uint32_t>(limits.max_atomic_bsz));
    mix(limits.accumulation ? 1 : 0);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// The candidates of the last models asked about, direct-mapped (a key's slot is its hash; a new
// key takes the slot over): a job's model changes only when it is refitted, and between refits
// the policy and each repick ask for the same allocations again. Per thread (simulations run side
// by side in threads); a slot holds exactly what the computation gives, so results do not change.
class CandidateCache {
 public:
  // The slot for `key`, and whether it already holds key's candidates.
  std::pair<Candidates*, bool> Slot(const CandidateKey& key) {
    Entry& e = slots_[key.Hash() & (kSlots - 1)];
    const bool hit = e.used && e.key == key;
    if (!hit) {
      e.used = true;
      e.key = key;
    }
    return {&e.candidates, hit};
  }

 private:
  static constexpr size_t kSlots = 1024;  // ~1.8 MB a thread
  struct Entry {
    bool used = false;
    CandidateKey key;
    Candidates candidates;
  };
  std::vector<Entry> slots_ = std::vector<Entry>(kSlots);
};

}  // namespace

BatchChoice GoodputModel::Optimize(int nodes, int replicas, const BatchLimits& limits) const {
  thread_local CandidateCache cache;
  auto [candidates, hit] = cache.Slot(CandidateKey{p_, init_batch_size_, nodes, replicas, limits});
  if (!hit) FillCandidates(nodes, replicas, limits, candidates->data());
  BatchChoice best;
  bool found = false;
  for (const Candidate& c : *candidates) {
    const double goodput = c.valid ? c.throughput * Efficiency(c.batch_size) : 0.0;
    // numpy.argmax: the first of equal maxima.
    if (!found || goodput > best.goodput) best = BatchChoice{goodput, c.atomic_bsz, c.accum_steps};
    found = true;
  }
  return best;
}

void GoodputModel::FillCandidates(int nodes, int replicas, const BatchLimits& limits,
                                  Candidate* candidates) const {
  const double max_batch = limits.max_batch_size > 0 ? limits.max_batch_size : init_batch_size_;
  const int max_atomic = limits.max_atomic_bsz > 0 ? limits.max_atomic_bsz : static_cast<int>(max_batch);
  double batch[kBatchCandidates];
  GeomSpace(std::max(init_batch_size_, static_cast<double>(limits.min_atomic_bsz) * replicas), max_batch,
            kBatchCandidates, batch);
  // The network's term is the same for every candidate: its power once.
  const double network_pow = FixedPow(NetworkTimeS(nodes, replicas), p_.gamma);
  for (int i = 0; i < kBatchCandidates; ++i) {
    const double local = batch[i] / replicas;
    int accum = 0;
    if (limits.accumulation) {
      accum = static_cast<int>(std::ceil(local / max_atomic - kEps)) - 1;
      if (replicas == 1 && local > init_batch_size_ + kEps) accum = std::max(accum, 1);
    }
    const GoodputConfig c{nodes, replicas, static_cast<int>(std::ceil(local / (accum + 1) - kEps)), accum};
    Candidate& out_c = candidates[i];
    out_c =
        Candidate{c.atomic_bsz, c.accum_steps,
                  limits.min_atomic_bsz <= c.atomic_bsz && c.atomic_bsz <= max_atomic, c.BatchSize(), 0.0};
    // Throughput(c), the network's power given.
    if (out_c.valid) out_c.throughput = c.BatchSize() / IterationFromNetworkPower(c, network_pow);
  }
}

}  // namespace hetsched
