// The module's entry point: learn::Backend over LibTorch, handed to learn/backend.cc's loader
// through the one exported symbol (HETSCHED_LEARN_BACKEND_SYMBOL).
#include "hetsched/learn/backend.h"
#include "hetsched/learn/torch/lstm_policy_net.h"
#include "hetsched/learn/torch/torch_backend.h"
#include "hetsched/learn/torch/torch_runtime.h"

namespace hetsched::learn {
namespace {

class TorchBackend final : public Backend {
 public:
  std::unique_ptr<AllocationNetBackend> NewAllocationNet(const AllocationAgentConfig& config) const override {
    return NewTorchAllocationNet(config);
  }
  std::unique_ptr<GruNetBackend> NewGruNet(const GruForecasterConfig& config) const override { return NewTorchGruNet(config); }
  std::unique_ptr<LstmPolicyBackend> NewLstmPolicy(const LstmPolicyConfig& config) const override {
    return std::make_unique<TorchLstmPolicy>(config);
  }
  Result<std::unique_ptr<LstmPolicyBackend>> LoadLstmPolicy(const std::string& path) const override {
    return LoadTorchLstmPolicy(path);
  }
  void ConfigureThreads(int threads) const override { ConfigureTorchThreads(threads); }
  int Threads() const override { return TorchThreads(); }
  std::string TorchVersion() const override { return learn::TorchVersion(); }
};

}  // namespace
}  // namespace hetsched::learn

extern "C" __attribute__((visibility("default"))) const hetsched::learn::Backend* hetsched_learn_backend(int abi_version) {
  static const hetsched::learn::TorchBackend backend;
  return abi_version == hetsched::learn::kBackendAbiVersion ? &backend : nullptr;
}
