// Pollux's (Qiao et al., OSDI'21) applications not covered by the other zoo files: NeuMF on
// MovieLens-1M, DeepSpeech2 on CMU-ARCTIC and YOLOv3 on PASCAL VOC, each as the Pollux
// benchmark builds it (petuum/adaptdl, branch osdi21-artifact, benchmark/models/<app>/,
// Apache-2.0; read for the architecture, no code taken). The default batch sizes are Pollux's
// initial per-job batch sizes: the smallest batch of data/real/pollux/traces/<app>/validation-*.csv.
// Totals and their published counterparts are in docs/models.md and
// tests/model/zoo_pollux_test.cc.
#include <string>

#include "hetsched/model/zoo_builder.h"

namespace hetsched::zoo {

namespace {

// NeuMF (He et al. 2017), benchmark/models/ncf: config.py trains 'NeuMF-end' (no pre-training)
// on 'ml-1m'; main.py's defaults factor_num 32, num_layers 3, dropout 0, batch 256. model.py:
// GMF embeddings of factor_num per user and item; MLP embeddings of factor_num x 2^(num_layers-1)
// = 128 each, concatenated (256) and halved by each of num_layers Linear+ReLU layers
// (256-128-64-32); the prediction layer reads GMF's element-wise product (32) and the MLP's
// output (32). user_num / item_num are the largest ids + 1 of He et al.'s ml-1m.train.rating:
// 6,040 users and 3,706 items (He et al. 2017, Table 1) [PUB-M]. The tables are nn.Embedding
// without sparse=True, so DDP all-reduces their whole gradient: dense parameters. One sample is
// one (user, item) pair, positive or one of the num_ng = 4 sampled negatives.
ModelProfile NeuMf() {
  constexpr double kUsers = 6040, kItems = 3706;
  constexpr int kFactor = 32, kMlpLayers = 3;
  const double mlp_dim = kFactor << (kMlpLayers - 1);  // 128 per side
  ModelProfile m;
  m.name = "neumf";
  m.display_name = "NeuMF (MovieLens-1M, factor 32, 3 MLP layers)";
  m.domain = "recommendation";
  m.default_batch_size = 256;  // main.py --batch_size; validation-256.csv
  m.derivation =
      "Pollux ncf: NeuMF-end (He et al. 2017), GMF 32-dim and MLP 128-dim dense embeddings of "
      "6,040 users and 3,706 items (ml-1m), MLP 256-128-64-32, predict 64->1; one (user, item) "
      "pair per sample";
  std::vector<LayerProfile>& L = m.layers;
  // Four look-ups per sample and GMF's element-wise product; out: GMF (32) + interaction (256).
  L.push_back(MergeLayers("embeddings", LayerKind::kEmbedding,
                          {DenseEmbedding("user_gmf", kUsers, kFactor, 1),
                           DenseEmbedding("item_gmf", kItems, kFactor, 1),
                           DenseEmbedding("user_mlp", kUsers, mlp_dim, 1),
                           DenseEmbedding("item_mlp", kItems, mlp_dim, 1),
                           MakeLayer("gmf_product", LayerKind::kOther, 0, kFactor, 0, kFactor)},
                          kFactor + 2 * mlp_dim));
  for (int i = 0; i < kMlpLayers; ++i) {
    const double in = kFactor << (kMlpLayers - i);  // model.py: factor_num * 2^(num_layers - i)
    L.push_back(Dense("mlp" + std::to_string(i), in, in / 2, true));
  }
  L.push_back(Dense("predict", 2 * kFactor, 1, true));
  return m;
}

// DeepSpeech2 (Amodei et al. 2016) as benchmark/models/deepspeech2 builds it (SeanNaren's
// deepspeech.pytorch): train.py's defaults --sample-rate 16000, --window-size 0.02,
// --window-stride 0.01, --hidden-size 800, --hidden-layers 5, --rnn-type gru, bidirectional;
// labels.json's 29 symbols (CTC blank, apostrophe, A-Z, space). model.py: a log-magnitude STFT
// spectrogram of n_fft = 320 samples (161 frequency bins, librosa centred frames: 1 + samples /
// 160); Conv2d(1, 32, (41, 11), stride (2, 2), pad (20, 5)) + BN and Conv2d(32, 32, (21, 11),
// stride (2, 1), pad (10, 5)) + BN (both with bias), over (frequency, time); the 32 x 41
// features of each step feed 5 bidirectional GRU layers whose two directions are summed (800
// per step), layers 1-4 preceded by a BatchNorm1d; then BatchNorm1d and Linear(800, 29) without
// bias. Hardtanh, masking and the direction sum are not counted.
// Sequence length [REC]: 3 s per utterance. The manifests (data/cmu-arctic-manifests.tar.gz)
// hold the four US ARCTIC voices bdl, slt, clb and rms (4,074 training utterances); an ARCTIC
// voice is about 1,130 prompts in about an hour of audio (Kominek & Black 2003) [PUB-M], i.e.
// ~3.2 s each, rounded down to 3 s: 301 frames, 151 after the first conv.
ModelProfile DeepSpeech2() {
  constexpr double kSampleRate = 16000, kWindowS = 0.02, kStrideS = 0.01, kUtteranceS = 3;
  constexpr double kHidden = 800, kLabels = 29;
  constexpr int kGruLayers = 5;
  const int n_fft = static_cast<int>(kSampleRate * kWindowS);  // 320
  const int hop = static_cast<int>(kSampleRate * kStrideS);    // 160
  const int frames = static_cast<int>(kSampleRate * kUtteranceS) / hop + 1;
  ModelProfile m;
  m.name = "deepspeech2";
  m.display_name = "DeepSpeech2 (CMU-ARCTIC, 5 x BiGRU 800, 3 s utterances)";
  m.domain = "speech";
  m.default_batch_size = 20;  // adaptdljob.yaml --batch-size=20; validation-20.csv
  m.derivation =
      "Pollux deepspeech2 (deepspeech.pytorch defaults): 161-bin spectrogram, 2 convs (41x11/2, "
      "21x11/(2,1), 32 ch, BN), 5 bidirectional GRU layers of 800 (directions summed), "
      "BN + FC to 29 symbols; 3 s utterance (301 frames) per sample [REC]";
  std::vector<LayerProfile>& L = m.layers;
  Shape x{1, n_fft / 2 + 1, frames};  // (channel, frequency, time)
  AddConv(&L, "conv1", &x, ConvSpec{32, 41, 11, 2, 20, 5, true, true});
  Shape out;
  L.push_back(Conv2dStrides("conv2", x, ConvSpec{32, 21, 11, 1, 10, 5, true, true}, 2, 1, &out));
  x = out;
  const double seq = x.w;
  double in = static_cast<double>(x.c) * x.h;  // 32 x 41 = 1,312 features per step
  for (int i = 0; i < kGruLayers; ++i) {
    std::vector<LayerProfile> parts;
    if (i > 0) {
      parts.push_back(MakeLayer("bn", LayerKind::kNorm, 0, 2 * seq * in, 2 * in, seq * in));
    }
    parts.push_back(Gru("gru", in, kHidden, seq, true));
    L.push_back(MergeLayers("rnn" + std::to_string(i), LayerKind::kRecurrent, parts, seq * kHidden));
    in = kHidden;
  }
  L.push_back(MergeLayers(
      "fc", LayerKind::kDense,
      {MakeLayer("bn", LayerKind::kNorm, 0, 2 * seq * kHidden, 2 * kHidden, seq * kHidden),
       Dense("linear", kHidden, kLabels, false, seq)},
      seq * kLabels));
  return m;
}

// YOLOv3 (Redmon & Farhadi 2018) as benchmark/models/yolov3 builds it:
// config/yolov3_config_voc.py: PASCAL VOC's 20 classes, 3 anchors per scale, strides 8/16/32,
// TRAIN_IMG_SIZE 448, BATCH_SIZE 8 (train.py then draws multi-scale sizes 320-608; we keep the
// configured 448). Every Convolutional is conv (no bias) + BN + leaky ReLU unless it is an output
// conv (bias, no BN). model/backbones/darknet53.py: a 3x3 conv of 32, then five stages, each a
// 3x3/2 conv doubling the channels and [1, 2, 8, 8, 4] residual blocks (1x1 to half, 3x3 back):
// 52 convs, Darknet-53 without its classifier. model/necks/yolo_fpn.py, per scale from the
// coarsest: five convs alternating 1x1 (w) and 3x3 (2w), w = 512, 256, 128; a 3x3 conv of 2w and a
// 1x1 output conv of 3 x (20 + 5) = 75 channels; between scales a 1x1 conv halving w, a 2x
// nearest upsample and a concatenation with the backbone's stage-4 / stage-3 output. Layers are
// listed in forward order; the concatenated backbone maps are not added to the cut sizes (as the
// residual inputs of the ResNets are not), the heads' box decoding is not counted.
ModelProfile YoloV3() {
  constexpr int kImage = 448, kClasses = 20, kAnchors = 3;
  const int out_c = kAnchors * (kClasses + 5);
  ModelProfile m;
  m.name = "yolov3";
  m.display_name = "YOLOv3 (PASCAL VOC 448x448)";
  m.domain = "vision";
  m.default_batch_size = 8;  // TRAIN BATCH_SIZE; validation-8.csv
  m.derivation =
      "Pollux yolov3: Darknet-53 backbone (52 convs + BN, residual stages [1,2,8,8,4]) and the "
      "YOLOv3 FPN heads at 3 scales, 75 output channels (VOC 20 classes x 3 anchors); 448x448";
  std::vector<LayerProfile>& L = m.layers;
  Shape x{3, kImage, kImage};
  AddConv(&L, "backbone.conv", &x, Conv(32, 3, 1, 1, false, true));
  const int blocks[5] = {1, 2, 8, 8, 4};
  Shape stage_out[5];
  for (int s = 0; s < 5; ++s) {
    const std::string stage = "backbone.stage" + std::to_string(s);
    AddConv(&L, stage + ".down", &x, Conv(x.c * 2, 3, 2, 1, false, true));
    const int c = x.c;
    for (int b = 0; b < blocks[s]; ++b) {
      const std::string block = stage + ".rb" + std::to_string(b);
      AddConv(&L, block + ".conv1", &x, Conv(c / 2, 1, 1, 0, false, true));
      AddConv(&L, block + ".conv2", &x, Conv(c, 3, 1, 1, false, true));
    }
    stage_out[s] = x;
  }
  const char* scale_names[3] = {"large", "medium", "small"};
  for (int i = 0; i < 3; ++i) {
    const int w = 512 >> i;
    const std::string scale = std::string("fpn.") + scale_names[i];
    if (i > 0) {
      // 1x1 conv to w, 2x upsample, concatenation with the backbone stage of that resolution.
      AddConv(&L, scale + ".lateral", &x, Conv(w, 1, 1, 0, false, true));
      const Shape& skip = stage_out[4 - i];
      x = Shape{x.c + skip.c, x.h * 2, x.w * 2};
    }
    for (int k = 0; k < 5; ++k) {
      const bool wide = k % 2 == 1;
      AddConv(&L, scale + ".set" + std::to_string(k), &x,
              Conv(wide ? 2 * w : w, wide ? 3 : 1, 1, wide ? 1 : 0, false, true));
    }
    Shape head = x;  // the set's output also feeds the next scale's lateral conv
    AddConv(&L, scale + ".head", &head, Conv(2 * w, 3, 1, 1, false, true));
    AddConv(&L, scale + ".out", &head, Conv(out_c, 1, 1, 0, true, false));
  }
  return m;
}

}  // namespace

void AddPolluxModels(ModelZoo& zoo) {
  zoo.Add(NeuMf(), {"ncf", "neural-collaborative-filtering"});
  zoo.Add(DeepSpeech2(), {"deepspeech", "deep-speech-2", "ds2"});
  zoo.Add(YoloV3(), {"yolo-v3", "yolo"});
}

}  // namespace hetsched::zoo
