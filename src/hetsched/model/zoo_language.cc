// Language models: BERT base/large (Devlin et al. 2019), GPT-2 small/medium (Radford et al.
// 2019), the Transformer-base translation model (Vaswani et al. 2017) and Gavel's 2-layer LSTM
// word language model. Each transformer block is two layers (attention, feed-forward), so a
// pipeline may cut between them. Sequence lengths per sample are in each derivation string.
#include <string>

#include "hetsched/model/zoo_builder.h"

namespace hetsched::zoo {

namespace {

struct BertShape {
  const char* name;
  const char* display;
  int layers;
  double d;
  int batch;
};

// BERT pre-training (BertForPreTraining): embeddings (WordPiece 30,522 + 512 positions + 2
// segment types, LayerNorm), L encoder blocks, pooler, MLM head (dense + LN + decoder tied to
// the word embeddings, with its own bias) and the 2-way NSP head. 128 tokens per sample
// (phase-1 pre-training length).
ModelProfile Bert(const BertShape& s) {
  constexpr double kVocab = 30522, kPositions = 512, kTypes = 2, kSeq = 128;
  const double d = s.d, ff = 4 * d;
  ModelProfile m;
  m.name = s.name;
  m.display_name = s.display;
  m.domain = "language";
  m.default_batch_size = s.batch;
  m.derivation = "BERT (Devlin et al. 2019), " + std::to_string(s.layers) + " layers, d=" +
                 std::to_string(static_cast<int>(d)) +
                 ", FF 4d; pre-training with MLM+NSP heads, sequence length 128 tokens per sample";
  std::vector<LayerProfile>& L = m.layers;
  L.push_back(MergeLayers("embeddings", LayerKind::kEmbedding,
                          {DenseEmbedding("word", kVocab, d, kSeq),
                           DenseEmbedding("position", kPositions, d, kSeq),
                           DenseEmbedding("token_type", kTypes, d, kSeq),
                           MakeLayer("ln", LayerKind::kNorm, 0, 2 * kSeq * d, 2 * d, kSeq * d)},
                          kSeq * d));
  for (int i = 0; i < s.layers; ++i) {
    L.push_back(Attention("layer" + std::to_string(i) + ".attention", kSeq, kSeq, d));
    L.push_back(FeedForward("layer" + std::to_string(i) + ".ffn", kSeq, d, ff));
  }
  L.push_back(Dense("pooler", d, d, true));
  // MLM head over every position, as BertForPreTraining computes it; the decoder weight is the
  // word-embedding table (tied), so only its bias is a new parameter.
  L.push_back(MergeLayers(
      "heads", LayerKind::kDense,
      {Dense("mlm.transform", d, d, true, kSeq),
       MakeLayer("mlm.ln", LayerKind::kNorm, 0, 2 * kSeq * d, 2 * d, kSeq * d),
       MakeLayer("mlm.decoder", LayerKind::kDense, kSeq * d * kVocab, 0, kVocab, kSeq * kVocab),
       Dense("nsp", d, 2, true)},
      kSeq * kVocab));
  return m;
}

struct Gpt2Shape {
  const char* name;
  const char* display;
  int layers;
  double d;
  int batch;
};

// GPT-2 language-model training: token (50,257 BPE) and learned position (1,024) embeddings,
// L pre-norm blocks, final LayerNorm, LM head tied to the token embeddings. 1,024 tokens per
// sample (the full context).
ModelProfile Gpt2(const Gpt2Shape& s) {
  constexpr double kVocab = 50257, kSeq = 1024;
  const double d = s.d, ff = 4 * d;
  ModelProfile m;
  m.name = s.name;
  m.display_name = s.display;
  m.domain = "language";
  m.default_batch_size = s.batch;
  m.derivation = "GPT-2 (Radford et al. 2019), " + std::to_string(s.layers) + " layers, d=" +
                 std::to_string(static_cast<int>(d)) +
                 ", FF 4d, tied LM head; sequence length 1024 tokens per sample";
  std::vector<LayerProfile>& L = m.layers;
  L.push_back(MergeLayers("embeddings", LayerKind::kEmbedding,
                          {DenseEmbedding("wte", kVocab, d, kSeq), DenseEmbedding("wpe", kSeq, d, kSeq)},
                          kSeq * d));
  for (int i = 0; i < s.layers; ++i) {
    L.push_back(Attention("h" + std::to_string(i) + ".attn", kSeq, kSeq, d));
    L.push_back(FeedForward("h" + std::to_string(i) + ".mlp", kSeq, d, ff));
  }
  L.push_back(MergeLayers(
      "ln_f+lm_head", LayerKind::kDense,
      {MakeLayer("ln_f", LayerKind::kNorm, 0, 2 * kSeq * d, 2 * d, kSeq * d),
       MakeLayer("lm_head", LayerKind::kDense, kSeq * d * kVocab, 0, 0, kSeq * kVocab)},
      kSeq * kVocab));
  return m;
}

// Transformer base for translation: d=512, 8 heads, FF 2048, 6 encoder + 6 decoder layers,
// sinusoidal positions (no parameters), one 37,000-token BPE vocabulary shared by source,
// target and the output projection (WMT'14 En-De set-up of the paper). 32 source + 32 target
// tokens per sample (a sentence pair).
ModelProfile TransformerNmt() {
  constexpr double kVocab = 37000, kD = 512, kFF = 2048, kSrc = 32, kTgt = 32;
  constexpr int kLayers = 6;
  ModelProfile m;
  m.name = "transformer-nmt";
  m.display_name = "Transformer base (translation, 32+32 tokens)";
  m.domain = "language";
  m.default_batch_size = 64;
  m.derivation =
      "Transformer base (Vaswani et al. 2017): d=512, FF 2048, 6+6 layers, shared 37k BPE "
      "vocabulary tied with the output projection; 32 source + 32 target tokens per sample";
  std::vector<LayerProfile>& L = m.layers;
  L.push_back(DenseEmbedding("src_embedding", kVocab, kD, kSrc));
  for (int i = 0; i < kLayers; ++i) {
    L.push_back(Attention("encoder" + std::to_string(i) + ".self_attn", kSrc, kSrc, kD));
    L.push_back(FeedForward("encoder" + std::to_string(i) + ".ffn", kSrc, kD, kFF));
  }
  // Shared table: the target embedding adds no parameters of its own.
  L.push_back(MakeLayer("tgt_embedding", LayerKind::kEmbedding, 0, 0, 0, kTgt * kD));
  for (int i = 0; i < kLayers; ++i) {
    L.push_back(Attention("decoder" + std::to_string(i) + ".self_attn", kTgt, kTgt, kD));
    L.push_back(Attention("decoder" + std::to_string(i) + ".cross_attn", kTgt, kSrc, kD));
    L.push_back(FeedForward("decoder" + std::to_string(i) + ".ffn", kTgt, kD, kFF));
  }
  L.push_back(MakeLayer("generator", LayerKind::kDense, kTgt * kD * kVocab, 0, 0, kTgt * kVocab));
  return m;
}

// Gavel's "LM": the PyTorch word-language-model example with Gavel's defaults (2-layer LSTM,
// 200-dim embeddings and hidden state, untied decoder) on WikiText-2 (33,278-word vocabulary),
// 35 tokens (bptt) per sample.
ModelProfile LstmLm() {
  constexpr double kVocab = 33278, kEmb = 200, kHidden = 200, kSeq = 35;
  ModelProfile m;
  m.name = "lstm-lm";
  m.display_name = "2-layer LSTM word language model (WikiText-2, 35 tokens)";
  m.domain = "language";
  m.default_batch_size = 20;
  m.derivation =
      "Gavel language_modeling/main.py defaults: embedding 200, 2 LSTM layers of 200, untied "
      "decoder to the 33,278-word WikiText-2 vocabulary; bptt 35 tokens per sample";
  m.layers.push_back(DenseEmbedding("encoder", kVocab, kEmb, kSeq));
  m.layers.push_back(Lstm("lstm0", kEmb, kHidden, kSeq));
  m.layers.push_back(Lstm("lstm1", kHidden, kHidden, kSeq));
  m.layers.push_back(Dense("decoder", kHidden, kVocab, true, kSeq));
  return m;
}

}  // namespace

void AddLanguageModels(ModelZoo& zoo) {
  zoo.Add(Bert({"bert-base", "BERT-base (pre-training, 128 tokens)", 12, 768, 32}), {"bert", "bert-base-uncased"});
  zoo.Add(Bert({"bert-large", "BERT-large (pre-training, 128 tokens)", 24, 1024, 16}), {"bert-large-uncased"});
  zoo.Add(Gpt2({"gpt2-small", "GPT-2 small (1024 tokens)", 12, 768, 8}), {"gpt2", "gpt-2", "gpt-2-small"});
  zoo.Add(Gpt2({"gpt2-medium", "GPT-2 medium (1024 tokens)", 24, 1024, 4}), {"gpt-2-medium"});
  zoo.Add(TransformerNmt(), {"transformer", "transformer-base", "nmt"});
  zoo.Add(LstmLm(), {"lm", "lstm", "word-lm", "language-model"});
}

}  // namespace hetsched::zoo
