// Helpers of the model-zoo tests (tests/model/zoo_*_test.cc).
#pragma once

#include "hetsched/model/model_zoo.h"

namespace hetsched::zoo_test {

// A built-in model by name (an unknown name throws: the test fails).
inline const ModelProfile& Model(const char* name) { return *ModelZoo::BuiltIn().Lookup(name).value(); }
// A model's parameter count (fp32: 4 bytes each).
inline double Params(const ModelProfile& m) { return m.total_param_bytes() / 4; }

}  // namespace hetsched::zoo_test
