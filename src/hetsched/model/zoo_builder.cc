#include "hetsched/model/zoo_builder.h"

namespace hetsched::zoo {

namespace {
constexpr double kBackwardFactor = 2.0;   // ALGORITHMS.md 1.1 [REC, standard]
constexpr double kNormFlopsPerElem = 2.0; // normalise + affine
constexpr double kSoftmaxFlopsPerScore = 5.0;  // max, subtract, exp, sum, divide
constexpr double kLstmGateFlopsPerUnit = 10.0; // 3 sigmoids, 2 tanh, 3 products, 1 sum, ...
constexpr double kGruGateFlopsPerUnit = 9.0;   // 2 sigmoids, 1 tanh, 3 products, 1-z, 2 sums
}  // namespace

LayerProfile MakeLayer(std::string name, LayerKind kind, double macs, double extra_flops,
                       double params, double out_elems) {
  LayerProfile l;
  l.name = std::move(name);
  l.kind = kind;
  l.fwd_flops_per_sample = 2.0 * macs + extra_flops;
  l.bwd_flops_per_sample = kBackwardFactor * l.fwd_flops_per_sample;
  l.param_bytes = params * kBytesPerFloat;
  l.activation_bytes_per_sample = out_elems * kBytesPerFloat;
  return l;
}

LayerProfile MergeLayers(std::string name, LayerKind kind, const std::vector<LayerProfile>& parts,
                         double out_elems) {
  LayerProfile l;
  l.name = std::move(name);
  l.kind = kind;
  for (const LayerProfile& p : parts) {
    l.fwd_flops_per_sample += p.fwd_flops_per_sample;
    l.bwd_flops_per_sample += p.bwd_flops_per_sample;
    l.param_bytes += p.param_bytes;
    l.embedding_table_bytes += p.embedding_table_bytes;
    l.sparse_bytes_per_sample += p.sparse_bytes_per_sample;
  }
  l.activation_bytes_per_sample = out_elems * kBytesPerFloat;
  return l;
}

ConvSpec Conv(int out_c, int k, int stride, int pad, bool bias, bool batch_norm) {
  return ConvSpec{out_c, k, k, stride, pad, pad, bias, batch_norm};
}

namespace {
LayerProfile ConvLayer(std::string name, Shape in, const ConvSpec& s, Shape out) {
  const double kernel = static_cast<double>(s.kh) * s.kw * in.c;
  const double macs = kernel * out.elems();
  double params = kernel * s.out_c;
  if (s.bias) params += s.out_c;
  double extra = 0;
  if (s.batch_norm) {
    params += 2.0 * s.out_c;
    extra = kNormFlopsPerElem * out.elems();
  }
  return MakeLayer(std::move(name), LayerKind::kConv, macs, extra, params, out.elems());
}
}  // namespace

void AddConv(std::vector<LayerProfile>* layers, const std::string& name, Shape* x, const ConvSpec& spec) {
  Shape out;
  layers->push_back(Conv2d(name, *x, spec, &out));
  *x = out;
}

LayerProfile Conv2d(std::string name, Shape in, const ConvSpec& s, Shape* out) {
  return Conv2dStrides(std::move(name), in, s, s.stride, s.stride, out);
}

LayerProfile Conv2dStrides(std::string name, Shape in, const ConvSpec& s, int stride_h,
                           int stride_w, Shape* out) {
  Shape o;
  o.c = s.out_c;
  o.h = (in.h + 2 * s.ph - s.kh) / stride_h + 1;
  o.w = (in.w + 2 * s.pw - s.kw) / stride_w + 1;
  *out = o;
  return ConvLayer(std::move(name), in, s, o);
}

// Each input pixel is multiplied by the whole kh x kw x out_c kernel, so MACs equal those of
// a conv producing `in` from `out`: kh*kw*in.c*out_c per input position.
LayerProfile ConvTranspose2d(std::string name, Shape in, const ConvSpec& s, Shape* out) {
  Shape o{s.out_c, in.h * s.stride, in.w * s.stride};
  *out = o;
  const double macs = static_cast<double>(s.kh) * s.kw * in.c * s.out_c * in.h * in.w;
  double params = static_cast<double>(s.kh) * s.kw * in.c * s.out_c + (s.bias ? s.out_c : 0);
  double extra = 0;
  if (s.batch_norm) {
    params += 2.0 * s.out_c;
    extra = kNormFlopsPerElem * o.elems();
  }
  return MakeLayer(std::move(name), LayerKind::kConv, macs, extra, params, o.elems());
}

LayerProfile Pool2d(std::string name, Shape in, int k, int stride, int pad, Shape* out) {
  Shape o{in.c, (in.h + 2 * pad - k) / stride + 1, (in.w + 2 * pad - k) / stride + 1};
  *out = o;
  return MakeLayer(std::move(name), LayerKind::kPool, 0, static_cast<double>(k) * k * o.elems(), 0,
                   o.elems());
}

LayerProfile Dense(std::string name, double in, double out, bool bias, double tokens,
                   LayerKind kind) {
  return MakeLayer(std::move(name), kind, in * out * tokens, 0, in * out + (bias ? out : 0),
                   out * tokens);
}

LayerProfile Attention(std::string name, double seq_q, double seq_kv, double d) {
  const double projections = seq_q * d * d * 2 + seq_kv * d * d * 2;  // Q, O from q; K, V from kv
  const double scores = seq_q * seq_kv * d;                          // QK^T summed over heads
  const double context = seq_q * seq_kv * d;                         // softmax(QK^T) V
  const double extra = kSoftmaxFlopsPerScore * seq_q * seq_kv + kNormFlopsPerElem * seq_q * d;
  const double params = 4 * (d * d + d) + 2 * d;
  return MakeLayer(std::move(name), LayerKind::kAttention, projections + scores + context, extra,
                   params, seq_q * d);
}

LayerProfile FeedForward(std::string name, double seq, double d, double ff) {
  const double params = d * ff + ff + ff * d + d + 2 * d;
  return MakeLayer(std::move(name), LayerKind::kDense, 2 * seq * d * ff,
                   kNormFlopsPerElem * seq * d, params, seq * d);
}

LayerProfile DenseEmbedding(std::string name, double vocab, double dim, double tokens) {
  return MakeLayer(std::move(name), LayerKind::kEmbedding, 0, 0, vocab * dim, tokens * dim);
}

LayerProfile SparseEmbedding(std::string name, double rows, double dim, double lookups) {
  LayerProfile l = MakeLayer(std::move(name), LayerKind::kEmbedding, 0, 0, 0, lookups * dim);
  l.embedding_table_bytes = rows * dim * kBytesPerFloat;
  l.sparse_bytes_per_sample = lookups * dim * kBytesPerFloat;
  return l;
}

LayerProfile Lstm(std::string name, double in, double hidden, double seq) {
  const double macs = seq * 4 * hidden * (in + hidden);
  const double params = 4 * hidden * (in + hidden) + 2 * 4 * hidden;
  return MakeLayer(std::move(name), LayerKind::kRecurrent, macs,
                   kLstmGateFlopsPerUnit * hidden * seq, params, seq * hidden);
}

LayerProfile Gru(std::string name, double in, double hidden, double seq, bool bidirectional) {
  const double directions = bidirectional ? 2 : 1;
  const double macs = directions * seq * 3 * hidden * (in + hidden);
  const double params = directions * (3 * hidden * (in + hidden) + 2 * 3 * hidden);
  return MakeLayer(std::move(name), LayerKind::kRecurrent, macs,
                   directions * kGruGateFlopsPerUnit * hidden * seq, params,
                   directions * seq * hidden);
}

}  // namespace hetsched::zoo
