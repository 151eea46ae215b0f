// Internal to model/: building blocks that compute layer profiles from layer shapes, used by
// the zoo_*.cc files. Counting conventions (docs/models.md):
//  - one multiply-add (MAC) = 2 FLOPs; forward FLOPs of conv/dense/attention/recurrent layers
//    are 2 x MACs, plus a few FLOPs per output element for normalisation where noted;
//  - backward = 2 x forward (gradients w.r.t. inputs and weights), ALGORITHMS.md 1.1 [REC];
//  - parameters and activations are fp32 (4 bytes); activation_bytes_per_sample is the
//    layer's output tensor for one sample.
#pragma once

#include <string>
#include <vector>

#include "hetsched/model/model_zoo.h"

namespace hetsched::zoo {

inline constexpr double kBytesPerFloat = 4;

// A layer from counts: `macs` multiply-adds and `extra_flops` other FLOPs per sample,
// `params` dense parameters, `out_elems` output elements per sample.
LayerProfile MakeLayer(std::string name, LayerKind kind, double macs, double extra_flops,
                       double params, double out_elems);

// Sums `parts` into one layer (a composite block such as an Inception module), whose output
// has `out_elems` elements per sample.
LayerProfile MergeLayers(std::string name, LayerKind kind, const std::vector<LayerProfile>& parts,
                         double out_elems);

struct Shape {
  int c = 0, h = 0, w = 0;
  double elems() const { return static_cast<double>(c) * h * w; }
};

struct ConvSpec {
  int out_c = 0;
  int kh = 1, kw = 1;
  int stride = 1;
  int ph = 0, pw = 0;      // zero padding
  bool bias = false;
  bool batch_norm = false;  // BN after the conv: 2 parameters and 2 FLOPs per output element
};
// Square kernel shorthand.
ConvSpec Conv(int out_c, int k, int stride, int pad, bool bias, bool batch_norm);

// A 2-D convolution on `in`; writes the output shape to *out.
LayerProfile Conv2d(std::string name, Shape in, const ConvSpec& spec, Shape* out);
// The same with its own strides along h and w (spec.stride is not read), as DeepSpeech2's
// (2, 1)-strided second convolution.
LayerProfile Conv2dStrides(std::string name, Shape in, const ConvSpec& spec, int stride_h,
                           int stride_w, Shape* out);
// Appends one conv (+BN) layer reading `*x` to `layers` and moves `*x` to its output.
void AddConv(std::vector<LayerProfile>* layers, const std::string& name, Shape* x, const ConvSpec& spec);
// Transposed convolution (upsampling by `stride`, output = in * stride), as in CycleGAN.
LayerProfile ConvTranspose2d(std::string name, Shape in, const ConvSpec& spec, Shape* out);
// Max or average pooling: k*k FLOPs per output element, no parameters.
LayerProfile Pool2d(std::string name, Shape in, int k, int stride, int pad, Shape* out);
// A fully connected layer applied to `tokens` positions per sample.
LayerProfile Dense(std::string name, double in, double out, bool bias, double tokens = 1,
                   LayerKind kind = LayerKind::kDense);
// Multi-head attention block: Q from `seq_q` positions, K/V from `seq_kv` positions, model
// width `d`; four d x d projections with bias, QK^T and attention x V, a softmax (5 FLOPs per
// score) and a post-norm LayerNorm (2d parameters).
LayerProfile Attention(std::string name, double seq_q, double seq_kv, double d);
// Position-wise feed-forward d -> ff -> d with biases and a LayerNorm (2d parameters).
LayerProfile FeedForward(std::string name, double seq, double d, double ff);
// A dense (all-reduced) embedding table of vocab x dim read at `tokens` positions per sample:
// no FLOPs; the table counts as dense parameters because DDP all-reduces its gradient.
LayerProfile DenseEmbedding(std::string name, double vocab, double dim, double tokens);
// A sparse embedding table (recommendation models): rows x dim stored, `lookups` rows of `dim`
// read per sample; only touched rows are exchanged (ALGORITHMS.md 1.4-3).
LayerProfile SparseEmbedding(std::string name, double rows, double dim, double lookups);
// One LSTM layer over `seq` steps: 4 gates of (in + hidden) x hidden MACs per step, PyTorch's
// two bias vectors, and ~10 element-wise FLOPs per hidden unit per step for the gate maths.
LayerProfile Lstm(std::string name, double in, double hidden, double seq);
// One GRU layer over `seq` steps, PyTorch's nn.GRU: 3 gates of (in + hidden) x hidden MACs per
// step, two bias vectors (3 x (in x hidden + hidden x hidden) + 2 x 3 x hidden parameters), and
// ~9 element-wise FLOPs per hidden unit per step for the gate maths. A bidirectional layer is two
// such directions over the same input; its output is both directions' states (2 x hidden per
// step, as PyTorch concatenates them).
LayerProfile Gru(std::string name, double in, double hidden, double seq, bool bidirectional);

// Registration of the built-in models, one function per zoo_*.cc file.
void AddVisionModels(ModelZoo& zoo);          // zoo_vision.cc: resnet50, resnet18-cifar, vgg16
void AddInceptionV3(ModelZoo& zoo);           // zoo_inception.cc
void AddLanguageModels(ModelZoo& zoo);        // zoo_language.cc: bert, gpt2, transformer, lstm
void AddRecommendationModels(ModelZoo& zoo);  // zoo_recommendation.cc: deepfm, wide-deep, vae
void AddGavelMiscModels(ModelZoo& zoo);       // zoo_gavel_misc.cc: a3c, cyclegan
void AddPolluxModels(ModelZoo& zoo);          // zoo_pollux.cc: neumf, deepspeech2, yolov3

}  // namespace hetsched::zoo
