#include "hetsched/sched/options.h"

#include "hetsched/util/text.h"

namespace hetsched {

namespace {
// A value the method cannot read is a wrong option (kInvalidArgument), like a key it does not
// take: the CLI refuses both as a command-line error (exit 2). kParseError stays for files.
template <typename T>
Result<T> AsOptionError(Result<T> parsed) {
  if (parsed.ok()) return parsed;
  return Status::InvalidArgument(parsed.status().message());
}
}  // namespace

Result<Options> Options::Parse(const std::vector<std::string>& items) {
  Options options;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("option '" + item + "': expected key=value");
    }
    options.Set(std::string(Trim(item.substr(0, eq))), std::string(Trim(item.substr(eq + 1))));
  }
  return options;
}

Result<double> Options::GetDouble(const std::string& key, double def) const {
  used_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) return def;
  return AsOptionError(ParseDouble(it->second, "option '" + key + "'"));
}

Result<long long> Options::GetInt(const std::string& key, long long def) const {
  used_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) return def;
  return AsOptionError(ParseInt(it->second, "option '" + key + "'"));
}

Result<bool> Options::GetBool(const std::string& key, bool def) const {
  used_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) return def;
  const std::string v = ToLower(it->second);
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  return Status::InvalidArgument("option '" + key + "': expected true/false, got '" + it->second + "'");
}

std::string Options::GetString(const std::string& key, const std::string& def) const {
  used_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? def : it->second;
}

std::vector<std::string> Options::Unused() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values_) {
    if (used_.count(k) == 0 && optional_.count(k) == 0) out.push_back(k);
  }
  return out;
}

}  // namespace hetsched
