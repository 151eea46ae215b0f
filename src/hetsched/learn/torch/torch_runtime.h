// Process-wide LibTorch settings made explicit: thread counts and seeding. LibTorch keeps its
// thread pools and default generator as globals, so the back end (learn/torch/) owns them here
// and nowhere else; the rest of the program reaches them through learn::Backend.
//
// Determinism: the CPU kernels LibTorch uses for our small models (LSTM/GRU/linear layers) are
// deterministic for a fixed thread count; with intra-op threads = 1 (the default here) results
// are bit-identical run to run. Every trainer seeds through SeedTorch() before it builds a model.
#pragma once

#include <cstdint>
#include <string>

namespace hetsched::learn {

// Sets the intra-op thread count (at::set_num_threads) and, the first time it is called in a
// process, the inter-op count (LibTorch allows that only once). Safe to call repeatedly.
// REQUIRES: threads >= 1.
void ConfigureTorchThreads(int threads = 1);

// Seeds LibTorch's default CPU generator and turns on deterministic algorithms.
void SeedTorch(uint64_t seed);

// The thread count currently in force (at::get_num_threads()).
int TorchThreads();

// "LibTorch <version>".
std::string TorchVersion();

}  // namespace hetsched::learn
