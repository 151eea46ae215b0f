// Precompiled header of hetsched_learn: the one place LibTorch is included. Every .cc of learn/
// gets it through target_precompile_headers (CMake), so <torch/torch.h> is parsed once per build.
// No header outside learn/ may include torch: learn's public headers expose plain C++ types.
#pragma once

#include <torch/torch.h>
