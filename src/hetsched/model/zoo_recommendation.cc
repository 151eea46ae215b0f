// Recommendation models: DeepFM and Wide & Deep on Criteo-style CTR data (13 numeric + 26
// categorical fields, sparse embedding tables), and Gavel's "Recommendation" autoencoder
// collaborative filter on MovieLens-20M.
#include <string>

#include "hetsched/model/zoo_builder.h"

namespace hetsched::zoo {

namespace {

constexpr int kNumericFields = 13;
constexpr int kSparseFields = 26;

// Distinct values of the 26 categorical fields of the Criteo Kaggle (Display Advertising
// Challenge) set as indexed by DLRM's preprocessing [PUB-M]; they sum to 33,762,577 rows.
double CriteoRows() {
  const double cardinalities[kSparseFields] = {
      1460, 583, 10131227, 2202608, 305, 24, 12517, 633, 3, 93145, 5683, 8351593, 3194,
      27, 14992, 5461306, 10, 5652, 2173, 4, 7046547, 18, 15, 286181, 105, 142572};
  double rows = 0;
  for (double c : cardinalities) rows += c;
  return rows;
}

// DeepFM (Guo et al. 2017) with the paper's Criteo set-up: embedding size k = 10 shared by the
// FM and the deep part, plus a first-order weight per feature (so 11 floats per table row);
// numeric fields get a dense k-vector and weight each; MLP 400-400-400 -> 1.
ModelProfile DeepFm() {
  constexpr double kK = 10;
  const double fields = kNumericFields + kSparseFields;
  ModelProfile m;
  m.name = "deepfm";
  m.display_name = "DeepFM (Criteo, 39 fields, k=10)";
  m.domain = "recommendation";
  m.default_batch_size = 1024;
  m.derivation =
      "DeepFM (Guo et al. 2017): 26 sparse Criteo fields (33.76M rows) with 10-dim embeddings "
      "+ first-order weights, 13 numeric fields, FM over 39 fields, MLP 390-400-400-400-1";
  std::vector<LayerProfile>& L = m.layers;
  L.push_back(SparseEmbedding("sparse_embeddings", CriteoRows(), kK + 1, kSparseFields));
  // Numeric fields: value x (k-vector, weight); k+1 multiplies each.
  L.push_back(MakeLayer("numeric_embeddings", LayerKind::kEmbedding, kNumericFields * (kK + 1), 0,
                        kNumericFields * (kK + 1), kNumericFields * (kK + 1)));
  // FM: first-order sum over fields, and 0.5 * sum_k ((sum_f v)^2 - sum_f v^2): about 3 FLOPs
  // per field and dimension, plus the global bias.
  L.push_back(MakeLayer("fm", LayerKind::kOther, 0, 3 * fields * kK + fields, 1, 1));
  double in = fields * kK;
  for (int i = 0; i < 3; ++i) {
    L.push_back(Dense("mlp" + std::to_string(i), in, 400, true));
    in = 400;
  }
  L.push_back(Dense("output", in, 1, true));
  return m;
}

// Wide & Deep (Cheng et al. 2016) on the same Criteo fields: the wide part is a linear model
// over the sparse features (1 weight per row) and the numeric ones; the deep part uses 32-dim
// embeddings, concatenated with the numeric fields, through ReLU layers 1024-512-256 -> 1.
ModelProfile WideDeep() {
  constexpr double kDim = 32;
  ModelProfile m;
  m.name = "wide-deep";
  m.display_name = "Wide & Deep (Criteo, 32-dim embeddings)";
  m.domain = "recommendation";
  m.default_batch_size = 1024;
  m.derivation =
      "Wide & Deep (Cheng et al. 2016): wide linear part over 26 sparse Criteo fields (33.76M "
      "rows) + 13 numeric; deep part with 32-dim embeddings and ReLU MLP 845-1024-512-256-1";
  std::vector<LayerProfile>& L = m.layers;
  L.push_back(SparseEmbedding("sparse_embeddings", CriteoRows(), kDim + 1, kSparseFields));
  L.push_back(MakeLayer("wide", LayerKind::kDense, kNumericFields, kSparseFields, kNumericFields + 1, 1));
  double in = kSparseFields * kDim + kNumericFields;
  for (double width : {1024.0, 512.0, 256.0}) {
    L.push_back(Dense("deep" + std::to_string(static_cast<int>(width)), in, width, true));
    in = width;
  }
  L.push_back(Dense("output", in, 1, true));
  return m;
}

// Gavel's "Recommendation" (recommendation/scripts/ml-20m/train.py): Recoder's
// DynamicAutoencoder with one hidden layer of 200 tanh units over the item vector of a user.
// MovieLens-20M after the usual filtering keeps 20,108 items (Liang et al. 2018, VAE-CF)
// [PUB-M]. Dense weights (sparse=False). One sample = one user's interaction vector; the
// negative sampling Recoder applies is ignored (the full item vector is counted).
ModelProfile RecommendationAutoencoder() {
  constexpr double kItems = 20108, kHidden = 200;
  ModelProfile m;
  m.name = "recommendation-vae";
  m.display_name = "Autoencoder collaborative filter (MovieLens-20M, 20,108 items)";
  m.domain = "recommendation";
  m.default_batch_size = 2048;
  m.derivation =
      "Gavel Recommendation: Recoder DynamicAutoencoder 20108-200-20108 (tanh hidden, logistic "
      "output) on MovieLens-20M user vectors; full item vector counted per sample";
  m.layers.push_back(Dense("encoder", kItems, kHidden, true));
  m.layers.push_back(Dense("decoder", kHidden, kItems, true));
  return m;
}

}  // namespace

void AddRecommendationModels(ModelZoo& zoo) {
  zoo.Add(DeepFm(), {"deep-fm"});
  zoo.Add(WideDeep(), {"wide-and-deep", "wide&deep", "widedeep"});
  zoo.Add(RecommendationAutoencoder(), {"recommendation", "recoder", "autoencoder-cf", "ml-20m"});
}

}  // namespace hetsched::zoo
