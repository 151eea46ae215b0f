// Key=value options for policies, placers and planners ("--policy-opt threshold=3600").
// Typed getters with defaults; Unused() lists keys nobody asked for, so typos are reported. A value
// a getter cannot read is kInvalidArgument naming the key (a wrong option, not a bad file).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched {

class Options {
 public:
  Options() = default;
  // Parses "k=v" items. Error names the malformed item.
  static Result<Options> Parse(const std::vector<std::string>& items);

  void Set(const std::string& key, const std::string& value) { values_[key] = value; }
  // Sets `key` unless the user set it, and never reports it as unused: for values every method
  // may take but need not (the run's `seed`).
  void SetDefault(const std::string& key, const std::string& value) {
    if (values_.emplace(key, value).second) optional_.insert(key);
  }
  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  Result<double> GetDouble(const std::string& key, double def) const;
  Result<long long> GetInt(const std::string& key, long long def) const;
  Result<bool> GetBool(const std::string& key, bool def) const;
  std::string GetString(const std::string& key, const std::string& def) const;
  // Keys that were set but never read by a getter.
  std::vector<std::string> Unused() const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
  mutable std::set<std::string> used_;
  std::set<std::string> optional_;
};

}  // namespace hetsched
