// The two remaining models of Gavel's workload set: the A3C Atari policy and CycleGAN.
#include <string>

#include "hetsched/model/zoo_builder.h"

namespace hetsched::zoo {

namespace {

// A network that runs `times` per sample (CycleGAN runs each generator and each discriminator
// three times per training step): FLOPs and saved activations scale, parameters do not.
LayerProfile Repeat(LayerProfile l, double times) {
  l.fwd_flops_per_sample *= times;
  l.bwd_flops_per_sample *= times;
  l.activation_bytes_per_sample *= times;
  return l;
}

// Conv with bias followed by an InstanceNorm without affine parameters (2 FLOPs per element).
LayerProfile ConvIn(const std::string& name, Shape* x, int out_c, int k, int stride, int pad,
                    bool norm) {
  Shape out;
  LayerProfile l = Conv2d(name, *x, Conv(out_c, k, stride, pad, true, false), &out);
  if (norm) {
    l.fwd_flops_per_sample += 2 * out.elems();
    l.bwd_flops_per_sample = 2 * l.fwd_flops_per_sample;
  }
  *x = out;
  return l;
}

// Gavel's A3C (rl/main.py, model A3Clstm): 1x80x80 grey frame, four conv + 2x2 max-pool
// stages (32, 32, 64, 64 channels), an LSTM cell 1024 -> 512, actor (6 Pong actions) and
// critic heads. One sample = one environment step.
ModelProfile A3c() {
  ModelProfile m;
  m.name = "a3c";
  m.display_name = "A3C Atari policy (A3Clstm, 80x80 frames)";
  m.domain = "reinforcement-learning";
  m.default_batch_size = 20;  // --num-steps: forward steps per update
  // Calibrated, not derived (docs/models.md, docs/perf-validation.md): Gavel's A3C update runs
  // 20 Atari steps (frame skip 4) on the CPU, each behind a batch-1 forward whose action the
  // CPU samples, then copies the CPU-resident shared model in and the gradients out and steps
  // a shared Adam on the CPU (rl/main.py, rl/train.py), in --workers processes (default 32)
  // that share the GPU and the host. Little of that scales with the GPU. 0.187 s is the least-squares-in-log fit over
  // Gavel's single-GPU A3C rows on k80, p100 and v100 (FitHostSeconds in perf/validation.cc,
  // re-derived by tests/perf/validation_test.cc).
  m.host_seconds_per_iteration = 0.187;
  m.derivation =
      "Gavel rl workload A3Clstm: conv5x5/32, conv5x5/32, conv4x4/64, conv3x3/64 each with "
      "2x2 max-pool on a 1x80x80 frame, LSTMCell(1024, 512), actor 6 + critic 1; one sample "
      "is one environment step; host_seconds_per_iteration 0.187 calibrated on Gavel's "
      "measured single-GPU A3C throughputs";
  Shape x{1, 80, 80};
  const ConvSpec convs[4] = {Conv(32, 5, 1, 2, true, false), Conv(32, 5, 1, 1, true, false),
                             Conv(64, 4, 1, 1, true, false), Conv(64, 3, 1, 1, true, false)};
  for (int i = 0; i < 4; ++i) {
    Shape conv_out, pooled;
    m.layers.push_back(Conv2d("conv" + std::to_string(i + 1), x, convs[i], &conv_out));
    m.layers.push_back(Pool2d("maxp" + std::to_string(i + 1), conv_out, 2, 2, 0, &pooled));
    x = pooled;
  }
  m.layers.push_back(Lstm("lstm", x.elems(), 512, 1));
  m.layers.push_back(MergeLayers("heads", LayerKind::kDense,
                                 {Dense("actor", 512, 6, true), Dense("critic", 512, 1, true)}, 7));
  return m;
}

// ResNet generator (as in Gavel's cyclegan.py): 7x7 conv 64, two stride-2 3x3 downsampling
// convs, 9 residual blocks of two 3x3 convs at 256 channels, two (nearest 2x upsample + 3x3
// conv) stages, 7x7 conv to 3 channels. Convs have bias; InstanceNorm has no parameters.
void Generator(std::vector<LayerProfile>* L, const std::string& g, int size) {
  constexpr double kRuns = 3;  // identity, translation and cycle passes per step
  Shape x{3, size, size};
  L->push_back(Repeat(ConvIn(g + ".c7s1-64", &x, 64, 7, 1, 3, true), kRuns));
  L->push_back(Repeat(ConvIn(g + ".d128", &x, 128, 3, 2, 1, true), kRuns));
  L->push_back(Repeat(ConvIn(g + ".d256", &x, 256, 3, 2, 1, true), kRuns));
  for (int r = 0; r < 9; ++r) {
    const std::string name = g + ".res" + std::to_string(r);
    L->push_back(Repeat(ConvIn(name + ".conv1", &x, 256, 3, 1, 1, true), kRuns));
    L->push_back(Repeat(ConvIn(name + ".conv2", &x, 256, 3, 1, 1, true), kRuns));
  }
  for (int u = 0; u < 2; ++u) {
    x = Shape{x.c, x.h * 2, x.w * 2};  // nearest-neighbour upsampling: no FLOPs counted
    L->push_back(Repeat(ConvIn(g + ".u" + std::to_string(u), &x, x.c / 2, 3, 1, 1, true), kRuns));
  }
  L->push_back(Repeat(ConvIn(g + ".c7s1-3", &x, 3, 7, 1, 3, false), kRuns));
}

// 70x70-style PatchGAN discriminator of Gavel's cyclegan.py: four stride-2 4x4 convs (64,
// 128, 256, 512; InstanceNorm after all but the first), zero-pad (1,0,1,0), 4x4 conv to 1.
void Discriminator(std::vector<LayerProfile>* L, const std::string& d, int size) {
  constexpr double kRuns = 3;  // on the generator's fake, then real and buffered fake
  Shape x{3, size, size};
  const int widths[4] = {64, 128, 256, 512};
  for (int i = 0; i < 4; ++i) {
    L->push_back(Repeat(ConvIn(d + ".c" + std::to_string(widths[i]), &x, widths[i], 4, 2, 1, i > 0), kRuns));
  }
  x = Shape{x.c, x.h + 1, x.w + 1};  // ZeroPad2d((1, 0, 1, 0))
  L->push_back(Repeat(ConvIn(d + ".out", &x, 1, 4, 1, 1, false), kRuns));
}

ModelProfile CycleGan() {
  constexpr int kSize = 256;
  ModelProfile m;
  m.name = "cyclegan";
  m.display_name = "CycleGAN (2 ResNet-9 generators + 2 PatchGANs, 256x256)";
  m.domain = "vision";
  m.default_batch_size = 1;
  m.derivation =
      "Gavel cyclegan.py (Zhu et al. 2017 architecture): G_AB, G_BA ResNet-9-block generators "
      "and D_A, D_B PatchGAN discriminators at 256x256; each network runs 3 times per sample "
      "(one image pair) per training step";
  Generator(&m.layers, "G_AB", kSize);
  Generator(&m.layers, "G_BA", kSize);
  Discriminator(&m.layers, "D_A", kSize);
  Discriminator(&m.layers, "D_B", kSize);
  return m;
}

}  // namespace

void AddGavelMiscModels(ModelZoo& zoo) {
  zoo.Add(A3c(), {"a3c-lstm", "a3c-atari"});
  zoo.Add(CycleGan(), {"cycle-gan"});
}

}  // namespace hetsched::zoo
