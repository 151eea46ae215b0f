// Layer-profile files for models outside the zoo (format: docs/formats-inputs.md); LoadModelProfile
// (model_zoo.h) reads one from a path.
#pragma once

#include <string>
#include <string_view>

#include "hetsched/model/model_zoo.h"

namespace hetsched {

// Parses a layer-profile file's text; `origin` names it in errors.
Result<ModelProfile> ParseModelProfile(std::string_view text, const std::string& origin);

}  // namespace hetsched
