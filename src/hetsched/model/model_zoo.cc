#include "hetsched/model/model_zoo.h"

#include <algorithm>

#include "hetsched/model/zoo_builder.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched {

std::string_view LayerKindName(LayerKind kind) {
  switch (kind) {
    case LayerKind::kEmbedding: return "embedding";
    case LayerKind::kConv: return "conv";
    case LayerKind::kDense: return "dense";
    case LayerKind::kAttention: return "attention";
    case LayerKind::kRecurrent: return "recurrent";
    case LayerKind::kNorm: return "norm";
    case LayerKind::kPool: return "pool";
    case LayerKind::kOther: return "other";
  }
  return "other";
}

namespace {
template <typename F>
double SumLayers(const std::vector<LayerProfile>& layers, F field) {
  double total = 0;
  for (const LayerProfile& l : layers) total += field(l);
  return total;
}

// Lower case, and ' ' / '_' read as '-', so "Inception V3", "inception_v3" and "inception-v3"
// name the same model.
std::string NormalizeModelName(std::string_view name) {
  std::string s = ToLower(Trim(name));
  std::replace(s.begin(), s.end(), ' ', '-');
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}
}  // namespace

double ModelProfile::total_fwd_flops_per_sample() const {
  return SumLayers(layers, [](const LayerProfile& l) { return l.fwd_flops_per_sample; });
}
double ModelProfile::total_bwd_flops_per_sample() const {
  return SumLayers(layers, [](const LayerProfile& l) { return l.bwd_flops_per_sample; });
}
double ModelProfile::total_param_bytes() const {
  return SumLayers(layers, [](const LayerProfile& l) { return l.param_bytes; });
}
double ModelProfile::total_embedding_bytes() const {
  return SumLayers(layers, [](const LayerProfile& l) { return l.embedding_table_bytes; });
}
double ModelProfile::total_sparse_bytes_per_sample() const {
  return SumLayers(layers, [](const LayerProfile& l) { return l.sparse_bytes_per_sample; });
}
double ModelProfile::total_activation_bytes_per_sample() const {
  return SumLayers(layers, [](const LayerProfile& l) { return l.activation_bytes_per_sample; });
}

// Dense parameters are all-reduced whole; of a sparse table only the rows the batch touched
// travel, and never more than the table itself (a large batch touches every row at most once).
double ModelProfile::gradient_bytes(int batch_size) const {
  const double b = std::max(batch_size, 0);
  return SumLayers(layers, [b](const LayerProfile& l) {
    double sparse = b * l.sparse_bytes_per_sample;
    if (l.embedding_table_bytes > 0) sparse = std::min(sparse, l.embedding_table_bytes);
    return l.param_bytes + sparse;
  });
}

const ModelZoo& ModelZoo::BuiltIn() {
  static const ModelZoo zoo = [] {
    ModelZoo z;
    zoo::AddVisionModels(z);
    zoo::AddInceptionV3(z);
    zoo::AddLanguageModels(z);
    zoo::AddRecommendationModels(z);
    zoo::AddGavelMiscModels(z);
    zoo::AddPolluxModels(z);
    return z;
  }();
  return zoo;
}

const ModelProfile* ModelZoo::Find(std::string_view name) const {
  // Policies look a job's model up at every decision, by the zoo's own (normalised) name: try the
  // name as given first. Exact: normalising is idempotent, so a name that is a key normalises
  // to itself, and the lookups below give the same answer.
  if (auto it = by_name_.find(name); it != by_name_.end()) return &models_[it->second];
  if (auto it = by_alias_.find(name); it != by_alias_.end()) return &models_[it->second];
  const std::string key = NormalizeModelName(name);
  if (auto it = by_name_.find(key); it != by_name_.end()) return &models_[it->second];
  if (auto it = by_alias_.find(key); it != by_alias_.end()) return &models_[it->second];
  return nullptr;
}

Result<const ModelProfile*> ModelZoo::Lookup(std::string_view name) const {
  if (const ModelProfile* m = Find(name)) return m;
  std::string known;
  for (const ModelProfile& m : models_) known += (known.empty() ? "" : ", ") + m.name;
  return Status::NotFound("unknown model " + Quoted(name) + " (known: " + known + ")");
}

void ModelZoo::Add(ModelProfile model, std::vector<std::string> aliases) {
  const size_t index = models_.size();
  by_name_.emplace(NormalizeModelName(model.name), index);  // emplace keeps an earlier entry
  for (const std::string& a : aliases) by_alias_.emplace(NormalizeModelName(a), index);
  models_.push_back(std::move(model));
}

}  // namespace hetsched
