// Goodput, as Pollux models it [SRC: Qiao et al., "Pollux: Co-adaptive Cluster Scheduling for
// Goodput-Optimized Deep Learning", OSDI 2021, sec. 3; the formulas as its simulator evaluates
// them: petuum/adaptdl @ osdi21-artifact, simulator/goodput.py (Apache-2.0)]. A job's goodput is
// its throughput (samples/s) times its statistical efficiency (the progress one sample makes at
// this batch size, relative to the initial batch size). Sia (SOSP 2023) uses the same model with
// one set of throughput parameters per GPU type.
//
// Throughput model, 7 parameters (ThroughputParams). On `replicas` GPUs over `nodes` nodes, with
// `atomic_bsz` samples per GPU per pass and `accum_steps` extra passes accumulated before each
// synchronisation:
//   T_acc   = alpha_c + beta_c * atomic_bsz                       (one forward/backward pass)
//   T_net   = alpha + beta * max(replicas - 2, 1e-8)              (alpha_n, beta_n across nodes;
//             alpha_r, beta_r within a node when replicas > 1; 1e-8 each on one GPU)
//   T_optim = (T_acc^gamma + T_net^gamma)^(1/gamma)                (the synchronised pass; gamma in
//             [1, 10]: 1 no overlap, large: compute and network overlap fully)
//   T_iter  = accum_steps * T_acc + T_optim
//   throughput = replicas * atomic_bsz * (accum_steps + 1) / T_iter
// Statistical efficiency from the gradient's noise (GradientStats: the squared norm of the mean
// gradient `sqr` and the variance `var`, at the initial batch size M0): at batch size M,
//   E(M) = (var + sqr) / (var + sqr * M / M0) = (B_noise + M0) / (B_noise + M),
// with B_noise = var / sqr * M0 the gradient noise scale; E = 1 at M0 and falls as M grows.
#pragma once

namespace hetsched {

struct ThroughputParams {
  double alpha_c = 0.1, beta_c = 0.01;  // compute: constant, per sample
  double alpha_n = 0.1, beta_n = 0.01;  // inter-node synchronisation: constant, per replica beyond 2
  double alpha_r = 0.1, beta_r = 0.01;  // intra-node synchronisation
  double gamma = 1.001;                 // overlap of compute and synchronisation
};

struct GradientStats {
  double sqr = 0;  // |E[g]|^2 at the initial batch size
  double var = 0;  // tr(Var[g]) at the initial batch size
};

// A job's configuration: how many nodes and GPUs (replicas), and how its batch is split.
struct GoodputConfig {
  int nodes = 1;
  int replicas = 1;
  int atomic_bsz = 1;   // samples per GPU per pass
  int accum_steps = 0;  // passes accumulated before each synchronisation, beyond the first
  double BatchSize() const { return static_cast<double>(replicas) * atomic_bsz * (accum_steps + 1); }
};

// The batch size a job picks for an allocation (GoodputModel::Optimize) and the goodput it
// expects there.
struct BatchChoice {
  double goodput = 0;  // samples of progress at the initial batch size per second; 0: none valid
  int atomic_bsz = 0;
  int accum_steps = 0;
};

// How Optimize may split a batch: the range of atomic (per-GPU, per-pass) batch sizes (the largest
// the GPU's memory holds), and whether passes may be accumulated.
struct BatchLimits {
  double max_batch_size = 0;  // largest total batch (0: the initial batch size)
  int min_atomic_bsz = 1;
  int max_atomic_bsz = 0;     // 0: max_batch_size
  bool accumulation = false;
};

class GoodputModel {
 public:
  GoodputModel(const ThroughputParams& params, const GradientStats& grad, double init_batch_size)
      : p_(params), grad_(grad), init_batch_size_(init_batch_size) {}

  double AccumTimeS(int atomic_bsz) const;
  double NetworkTimeS(int nodes, int replicas) const;
  double OptimStepTimeS(double accum_s, double network_s) const;  // T_optim
  double IterationTimeS(const GoodputConfig& c) const;
  double Throughput(const GoodputConfig& c) const;  // samples/s
  double Efficiency(double batch_size) const;
  // Throughput x Efficiency. REQUIRES: c.BatchSize() >= the initial batch size.
  double Goodput(const GoodputConfig& c) const;

  // The best of 50 total batch sizes spaced geometrically from max(initial, min_atomic_bsz x
  // replicas) to the largest, each split into an atomic batch and accumulation steps (with
  // accumulation: as few passes as the atomic limit allows, and at least one accumulated pass on
  // one GPU above the initial batch, whose gradient statistics need two passes; without: one pass),
  // candidates whose atomic batch falls outside the limits scoring 0. Ties go to the smaller batch.
  BatchChoice Optimize(int nodes, int replicas, const BatchLimits& limits) const;
  // One of Optimize's 50 candidates (a total batch size) for an allocation, before its efficiency
  // (defined in goodput.cc, where Optimize keeps the last models' candidates).
  struct Candidate;

  const ThroughputParams& params() const { return p_; }
  double init_batch_size() const { return init_batch_size_; }

 private:
  // T_optim and T_iter with the network's term given as T_net^gamma (Optimize computes it once for
  // all its candidates; the arithmetic is OptimStepTimeS's and IterationTimeS's).
  double OptimStepFromNetworkPower(double accum_s, double network_pow) const;
  double IterationFromNetworkPower(const GoodputConfig& c, double network_pow) const;
  // Optimize's candidates for an allocation (kBatchCandidates of them at `out`).
  void FillCandidates(int nodes, int replicas, const BatchLimits& limits, Candidate* out) const;

  ThroughputParams p_;
  GradientStats grad_;
  double init_batch_size_;
};

// numpy.geomspace(start, stop, n): n values spaced evenly in log10, the ends exactly start and
// stop (the batch sizes Optimize tries, as Pollux's simulator computes them).
void GeomSpace(double start, double stop, int n, double* out);

}  // namespace hetsched
