#include "hetsched/learn/torch/torch_runtime.h"

#include <mutex>

namespace hetsched::learn {

void ConfigureTorchThreads(int threads) {
  static std::once_flag interop_once;
  std::call_once(interop_once, [threads] {
    // Throws if a parallel region already ran; nothing in hetsched runs one before this call.
    at::set_num_interop_threads(threads);
  });
  if (at::get_num_threads() != threads) at::set_num_threads(threads);
}

void SeedTorch(uint64_t seed) {
  ConfigureTorchThreads(TorchThreads());
  torch::manual_seed(seed);
  at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
}

int TorchThreads() { return at::get_num_threads(); }

std::string TorchVersion() { return std::string("LibTorch ") + TORCH_VERSION; }

}  // namespace hetsched::learn
