// DNN models as per-layer profiles, computed from the architectures (see docs/models.md for the
// derivation of each). Data only; perf/ turns profiles into times.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched {

enum class LayerKind { kEmbedding, kConv, kDense, kAttention, kRecurrent, kNorm, kPool, kOther };
std::string_view LayerKindName(LayerKind kind);

struct LayerProfile {
  std::string name;
  LayerKind kind = LayerKind::kOther;
  double fwd_flops_per_sample = 0;       // forward FLOPs (multiply-add = 2 FLOPs)
  double bwd_flops_per_sample = 0;       // backward FLOPs (about 2x forward for dense layers)
  double param_bytes = 0;                // dense parameters (fp32), synchronised every iteration
  double embedding_table_bytes = 0;      // sparse tables (not all-reduced; rows touched are)
  double sparse_bytes_per_sample = 0;    // embedding rows touched per sample (bytes)
  double activation_bytes_per_sample = 0;  // output activations per sample (fp32)
};

struct ModelProfile {
  std::string name;          // zoo key: "resnet50", "bert-base", ...
  std::string display_name;  // "ResNet-50 (ImageNet 224x224)"
  std::string domain;        // "vision", "language", "recommendation", "speech"
  int default_batch_size = 32;  // per device
  // Host-side (CPU) seconds of one training iteration of one worker that no accelerator
  // speeds up: environment simulation of a reinforcement-learning rollout, CPU-side data
  // loading or optimizer steps, host<->device copies of a CPU-resident model. perf/ adds it
  // once per pass of a (micro-)batch through the device that holds layer 0, like kappa
  // (docs/perf-model.md section 1). Taken at the profile's default batch; 0 for a model whose
  // iteration the accelerator bounds. docs/models.md says where a non-zero value comes from.
  double host_seconds_per_iteration = 0;
  std::vector<LayerProfile> layers;
  std::string derivation;    // one line: how the profile was computed, with source

  double total_fwd_flops_per_sample() const;
  double total_bwd_flops_per_sample() const;
  double total_param_bytes() const;
  double total_embedding_bytes() const;
  double total_sparse_bytes_per_sample() const;
  double total_activation_bytes_per_sample() const;
  // Bytes exchanged per iteration by data-parallel sync: dense params + sparse rows touched
  // by the whole batch (ALGORITHMS.md 1.4-3).
  double gradient_bytes(int batch_size) const;
};

class ModelZoo {
 public:
  static const ModelZoo& BuiltIn();  // every model of docs/models.md

  const std::vector<ModelProfile>& models() const { return models_; }
  const ModelProfile* Find(std::string_view name) const;  // name or alias, case-insensitive
  Result<const ModelProfile*> Lookup(std::string_view name) const;
  void Add(ModelProfile model, std::vector<std::string> aliases = {});

 private:
  std::vector<ModelProfile> models_;
  // Normalised name -> position in models_ (the first model added wins), and the same for
  // aliases; a name beats an alias. Find() is called at every estimate a policy asks for: no
  // scan of the zoo, and no string built for a name that is already a key (heterogeneous lookup).
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using NameIndex = std::unordered_map<std::string, size_t, NameHash, std::equal_to<>>;
  NameIndex by_name_;
  NameIndex by_alias_;
};

// Reads a layer-profile file (JSON, docs/formats.md) for models outside the zoo.
Result<ModelProfile> LoadModelProfile(const std::string& path);

}  // namespace hetsched
