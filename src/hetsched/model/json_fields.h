// Internal to model/: strict readers for fields of the JSON catalogs and layer-profile files,
// so that every error names the file, the entry and the field the same way. Not a public API.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetsched/util/status.h"

namespace hetsched::model_internal {

enum class NumberRule { kPositive, kNonNegative, kFraction };  // > 0, >= 0, (0, 1]

// Parses `text`; a syntax error names `origin`, line and column.
Result<nlohmann::json> ParseJsonText(std::string_view text, const std::string& origin);

// Reads the fields of one JSON object. `where` prefixes every message, e.g.
// "data/devices.json: devices[3] ('p100')".
class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string where)
      : object_(object), where_(std::move(where)) {}

  const std::string& where() const { return where_; }
  // An error for any key not in `known` (catches typos such as "fp32_tflop").
  Status CheckKnownKeys(std::initializer_list<std::string_view> known) const;
  bool Has(std::string_view key) const;

  Result<std::string> String(std::string_view key) const;  // required, non-empty
  Result<std::string> String(std::string_view key, std::string fallback) const;
  Result<double> Number(std::string_view key, NumberRule rule) const;  // required
  Result<double> Number(std::string_view key, NumberRule rule, double fallback) const;
  // A whole number in [1, max] (checked before any conversion, so 1e104 is an error, not UB).
  Result<int> Count(std::string_view key, int max, int fallback) const;
  Result<bool> Bool(std::string_view key, bool fallback) const;
  Result<std::vector<std::string>> StringList(std::string_view key) const;  // optional: [] if absent

  Status Error(std::string_view key, const std::string& message) const;

 private:
  const nlohmann::json& object_;
  std::string where_;
};

// For the built-in data compiled into the binary: a broken built-in file is a build defect, not
// a user error, so these print the message to stderr and abort (a death test covers it).
std::string_view EmbeddedOrDie(const char* name);
[[noreturn]] void DieBuiltInInvalid(const char* what, const Status& status);
template <typename T>
T ValueOrDie(Result<T> result, const char* what) {
  if (!result.ok()) DieBuiltInInvalid(what, result.status());
  return std::move(result).value();
}

// The array under `key` of a top-level object, or an error naming `origin`.
Result<const nlohmann::json*> TopLevelArray(const nlohmann::json& doc, std::string_view key,
                                            const std::string& origin);

}  // namespace hetsched::model_internal
