// The file format of learn/'s saved models (GRU forecaster, allocation agent): a magic line, then
// "key value" lines in a fixed order (doubles as hex floats, so they round-trip exactly), then
// "weights N" and N bytes of LibTorch's module archive. Plain C++: no torch here.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::learn {

using ModelFields = std::vector<std::pair<std::string, double>>;

// "magic\nkey value\n...weights N\n" + weights.
std::string EncodeModelFile(std::string_view magic, const ModelFields& fields, std::string_view weights);

struct DecodedModelFile {
  std::vector<double> values;  // in the order of `keys`
  std::string weights;
};
// Parses `text` (read from `path`, named in errors with the line): the magic line, exactly `keys`
// in order, each a finite number, then the weights, whose size must match.
Result<DecodedModelFile> DecodeModelFile(const std::string& path, std::string_view text, std::string_view magic,
                                         const std::vector<std::string>& keys);

}  // namespace hetsched::learn
