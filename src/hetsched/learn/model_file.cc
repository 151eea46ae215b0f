#include "hetsched/learn/model_file.h"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

namespace hetsched::learn {

std::string EncodeModelFile(std::string_view magic, const ModelFields& fields, std::string_view weights) {
  std::string out = std::string(magic) + "\n";
  for (const auto& [key, value] : fields) out += fmt::format("{} {:a}\n", key, value);
  out += fmt::format("weights {}\n", weights.size());
  out += weights;
  return out;
}

Result<DecodedModelFile> DecodeModelFile(const std::string& path, std::string_view text, std::string_view magic,
                                         const std::vector<std::string>& keys) {
  size_t pos = 0;
  int line_no = 0;
  auto next_line = [&]() -> std::string_view {
    const size_t eol = text.find('\n', pos);
    ++line_no;
    if (eol == std::string_view::npos) {
      pos = text.size();
      return {};
    }
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    return line;
  };
  if (next_line() != magic) {
    return Status::ParseError(fmt::format("{}:1: not a {} file (expected '{}')", path, magic, magic));
  }
  DecodedModelFile out;
  std::vector<std::string> all = keys;
  all.push_back("weights");
  for (const std::string& key : all) {
    const std::string line(next_line());
    const std::string prefix = key + " ";
    if (line.rfind(prefix, 0) != 0) return Status::ParseError(fmt::format("{}:{}: expected field '{}'", path, line_no, key));
    const std::string value = line.substr(prefix.size());
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v)) {
      return Status::ParseError(fmt::format("{}:{}: field '{}': '{}' is not a number", path, line_no, key, value));
    }
    out.values.push_back(v);
  }
  const double declared = out.values.back();
  out.values.pop_back();
  if (static_cast<double>(text.size() - pos) != declared) {
    return Status::ParseError(fmt::format("{}:{}: field 'weights' says {:g} bytes, the file holds {}", path, line_no, declared,
                                          text.size() - pos));
  }
  out.weights = std::string(text.substr(pos));
  return out;
}

}  // namespace hetsched::learn
