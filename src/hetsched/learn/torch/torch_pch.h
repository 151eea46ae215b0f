// Precompiled header of the LibTorch back end (libhetsched_learn_torch.so, learn/backend.h): the
// one place LibTorch is included. Every .cc of learn/torch/ gets it through
// target_precompile_headers (CMake), so <torch/torch.h> is parsed once per build. No header
// outside learn/torch/ may include torch: learn's public headers expose plain C++ types.
#pragma once

#include <torch/torch.h>
