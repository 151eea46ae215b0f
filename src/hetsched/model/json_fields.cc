#include "hetsched/model/json_fields.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "hetsched/util/embedded.h"
#include "hetsched/util/printable.h"

namespace hetsched::model_internal {

// nlohmann's parse errors quote what they last read: bounded and escaped like any input text.
constexpr size_t kMaxJsonErrorBytes = 240;

Result<nlohmann::json> ParseJsonText(std::string_view text, const std::string& origin) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into line:column for the user.
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return Status::ParseError(origin + ":" + std::to_string(line) + ":" + std::to_string(col) +
                              ": invalid JSON: " + Printable(e.what(), kMaxJsonErrorBytes));
  } catch (const nlohmann::json::exception& e) {
    // Well-formed text nlohmann cannot hold (a number such as 1e61200 overflows a double): it
    // carries no byte offset, only its message.
    return Status::ParseError(origin + ": invalid JSON: " + Printable(e.what(), kMaxJsonErrorBytes));
  }
}

std::string_view EmbeddedOrDie(const char* name) {
  auto text = EmbeddedFile(name);
  if (!text) {
    std::fprintf(stderr, "hetsched: built-in %s is missing from the binary\n", name);
    std::abort();
  }
  return *text;
}

void DieBuiltInInvalid(const char* what, const Status& status) {
  std::fprintf(stderr, "hetsched: built-in %s is invalid: %s\n", what, status.message().c_str());
  std::abort();
}

Status JsonFields::Error(std::string_view key, const std::string& message) const {
  return Status::InvalidArgument(where_ + ": field " + Quoted(key) + " " + message);
}

Status JsonFields::CheckKnownKeys(std::initializer_list<std::string_view> known) const {
  for (const auto& item : object_.items()) {
    bool found = false;
    for (std::string_view k : known) found = found || item.key() == k;
    if (!found) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return Status::InvalidArgument(where_ + ": unknown field " + Quoted(item.key()) + " (known: " +
                                     list + ")");
    }
  }
  return Status::Ok();
}

bool JsonFields::Has(std::string_view key) const {
  return object_.contains(key) && !object_.at(std::string(key)).is_null();
}

Result<std::string> JsonFields::String(std::string_view key) const {
  if (!Has(key)) return Error(key, "is missing");
  const auto& v = object_.at(std::string(key));
  if (!v.is_string()) return Error(key, "must be a string");
  std::string s = v.get<std::string>();
  if (s.empty()) return Error(key, "must not be empty");
  return s;
}

Result<std::string> JsonFields::String(std::string_view key, std::string fallback) const {
  if (!Has(key)) return fallback;
  const auto& v = object_.at(std::string(key));
  if (!v.is_string()) return Error(key, "must be a string");
  return v.get<std::string>();
}

namespace {
Status CheckRule(const JsonFields& f, std::string_view key, double v, NumberRule rule) {
  switch (rule) {
    case NumberRule::kPositive:
      if (!(v > 0)) return f.Error(key, "must be > 0, got " + std::to_string(v));
      break;
    case NumberRule::kNonNegative:
      if (!(v >= 0)) return f.Error(key, "must be >= 0, got " + std::to_string(v));
      break;
    case NumberRule::kFraction:
      if (!(v > 0 && v <= 1)) return f.Error(key, "must be in (0, 1], got " + std::to_string(v));
      break;
  }
  return Status::Ok();
}
}  // namespace

Result<double> JsonFields::Number(std::string_view key, NumberRule rule) const {
  if (!Has(key)) return Error(key, "is missing");
  const auto& v = object_.at(std::string(key));
  if (!v.is_number()) return Error(key, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) return Error(key, "must be finite");
  HETSCHED_RETURN_IF_ERROR(CheckRule(*this, key, d, rule));
  return d;
}

Result<double> JsonFields::Number(std::string_view key, NumberRule rule, double fallback) const {
  if (!Has(key)) return fallback;
  return Number(key, rule);
}

Result<int> JsonFields::Count(std::string_view key, int max, int fallback) const {
  HETSCHED_ASSIGN_OR_RETURN(double d, Number(key, NumberRule::kPositive, fallback));
  if (d > max) return Error(key, "must be at most " + std::to_string(max) + ", got " + std::to_string(d));
  if (d != std::floor(d)) return Error(key, "must be a whole number, got " + std::to_string(d));
  return static_cast<int>(d);
}

Result<bool> JsonFields::Bool(std::string_view key, bool fallback) const {
  if (!Has(key)) return fallback;
  const auto& v = object_.at(std::string(key));
  if (!v.is_boolean()) return Error(key, "must be true or false");
  return v.get<bool>();
}

Result<std::vector<std::string>> JsonFields::StringList(std::string_view key) const {
  std::vector<std::string> out;
  if (!Has(key)) return out;
  const auto& v = object_.at(std::string(key));
  if (!v.is_array()) return Error(key, "must be a list of strings");
  for (const auto& e : v) {
    if (!e.is_string() || e.get<std::string>().empty()) {
      return Error(key, "must be a list of non-empty strings");
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

Result<const nlohmann::json*> TopLevelArray(const nlohmann::json& doc, std::string_view key,
                                            const std::string& origin) {
  if (!doc.is_object()) return Status::InvalidArgument(origin + ": top level must be an object");
  auto it = doc.find(std::string(key));
  if (it == doc.end() || !it->is_array()) {
    return Status::InvalidArgument(origin + ": missing list '" + std::string(key) + "'");
  }
  if (it->empty()) return Status::InvalidArgument(origin + ": list '" + std::string(key) + "' is empty");
  return &*it;
}

}  // namespace hetsched::model_internal
