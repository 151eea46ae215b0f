// Layer-profile files for models outside the zoo (format: docs/formats-inputs.md).
#include "hetsched/model/json_fields.h"
#include "hetsched/model/model_profile_file.h"
#include "hetsched/model/model_zoo.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched {

namespace {

using model_internal::JsonFields;
using model_internal::NumberRule;

constexpr double kBackwardFactor = 2.0;  // default when a layer gives no backward FLOPs (ALGORITHMS.md 1.1)

Result<LayerKind> ParseKind(const JsonFields& f) {
  HETSCHED_ASSIGN_OR_RETURN(std::string name, f.String("kind", "other"));
  const std::string key = ToLower(name);
  for (LayerKind k : {LayerKind::kEmbedding, LayerKind::kConv, LayerKind::kDense, LayerKind::kAttention,
                      LayerKind::kRecurrent, LayerKind::kNorm, LayerKind::kPool, LayerKind::kOther}) {
    if (key == LayerKindName(k)) return k;
  }
  return f.Error("kind", Quoted(name) +
                             " is not one of embedding, conv, dense, attention, recurrent, norm, pool, other");
}

Result<LayerProfile> ParseLayer(const JsonFields& f) {
  HETSCHED_RETURN_IF_ERROR(f.CheckKnownKeys(
      {"name", "kind", "fwd_flops_per_sample", "bwd_flops_per_sample", "param_bytes",
       "embedding_table_bytes", "sparse_bytes_per_sample", "activation_bytes_per_sample", "comment"}));
  LayerProfile l;
  HETSCHED_ASSIGN_OR_RETURN(l.name, f.String("name"));
  HETSCHED_ASSIGN_OR_RETURN(l.kind, ParseKind(f));
  HETSCHED_ASSIGN_OR_RETURN(l.fwd_flops_per_sample, f.Number("fwd_flops_per_sample", NumberRule::kNonNegative));
  HETSCHED_ASSIGN_OR_RETURN(l.bwd_flops_per_sample,
                            f.Number("bwd_flops_per_sample", NumberRule::kNonNegative,
                                     kBackwardFactor * l.fwd_flops_per_sample));
  HETSCHED_ASSIGN_OR_RETURN(l.param_bytes, f.Number("param_bytes", NumberRule::kNonNegative, 0.0));
  HETSCHED_ASSIGN_OR_RETURN(l.embedding_table_bytes,
                            f.Number("embedding_table_bytes", NumberRule::kNonNegative, 0.0));
  HETSCHED_ASSIGN_OR_RETURN(l.sparse_bytes_per_sample,
                            f.Number("sparse_bytes_per_sample", NumberRule::kNonNegative, 0.0));
  HETSCHED_ASSIGN_OR_RETURN(l.activation_bytes_per_sample,
                            f.Number("activation_bytes_per_sample", NumberRule::kNonNegative));
  if (l.sparse_bytes_per_sample > 0 && l.embedding_table_bytes <= 0) {
    return f.Error("sparse_bytes_per_sample", "needs an embedding_table_bytes > 0 to read from");
  }
  return l;
}

}  // namespace

Result<ModelProfile> ParseModelProfile(std::string_view text, const std::string& origin) {
  HETSCHED_ASSIGN_OR_RETURN(nlohmann::json doc, model_internal::ParseJsonText(text, origin));
  if (!doc.is_object()) return Status::InvalidArgument(origin + ": top level must be an object");
  const JsonFields top(doc, origin);
  HETSCHED_RETURN_IF_ERROR(top.CheckKnownKeys(
      {"format", "version", "name", "display_name", "domain", "default_batch_size", "derivation",
       "layers", "comment"}));
  ModelProfile m;
  HETSCHED_ASSIGN_OR_RETURN(m.name, top.String("name"));
  m.name = ToLower(m.name);
  HETSCHED_ASSIGN_OR_RETURN(m.display_name, top.String("display_name", m.name));
  HETSCHED_ASSIGN_OR_RETURN(m.domain, top.String("domain", "custom"));
  // A batch beyond 2^24 samples is no training configuration; the bound guards the int.
  HETSCHED_ASSIGN_OR_RETURN(m.default_batch_size, top.Count("default_batch_size", 1 << 24, 32));
  HETSCHED_ASSIGN_OR_RETURN(m.derivation, top.String("derivation", "layer-profile file " + origin));
  HETSCHED_ASSIGN_OR_RETURN(const nlohmann::json* layers,
                            model_internal::TopLevelArray(doc, "layers", origin));
  for (size_t i = 0; i < layers->size(); ++i) {
    const nlohmann::json& entry = (*layers)[i];
    std::string where = origin + ": layers[" + std::to_string(i) + "]";
    if (!entry.is_object()) return Status::InvalidArgument(where + ": must be an object");
    if (entry.contains("name") && entry["name"].is_string()) {
      where += " (" + Quoted(entry["name"].get<std::string>()) + ")";
    }
    HETSCHED_ASSIGN_OR_RETURN(LayerProfile l, ParseLayer(JsonFields(entry, where)));
    m.layers.push_back(std::move(l));
  }
  if (m.total_fwd_flops_per_sample() <= 0) {
    return Status::InvalidArgument(origin + ": the layers have no forward FLOPs in total");
  }
  return m;
}

Result<ModelProfile> LoadModelProfile(const std::string& path) {
  HETSCHED_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseModelProfile(text, path);
}

}  // namespace hetsched
