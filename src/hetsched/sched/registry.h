// Registries of job schedulers, placers and planners. Each concrete class registers itself in its
// own .cc with one HETSCHED_REGISTER_* line; the core never names a concrete policy.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/sched/options.h"
#include "hetsched/util/status.h"

namespace hetsched {

// Where a method comes from, printed by `hetsched catalog` and in run summaries
// (tags as in ALGORITHMS.md: [SRC] from the paper, [REC] our reconstruction, [CLASSIC] a
// well-known baseline implemented from its public description).
struct MethodInfo {
  std::string name;
  std::string summary;     // one line
  std::string provenance;  // "[CLASSIC] Tiresias (Gu et al., NSDI 2019) 2D-LAS ..."
};

template <typename Base>
class Registry {
 public:
  using Factory = std::function<Result<std::unique_ptr<Base>>(const Options&)>;

  static Registry& Instance() {
    static Registry registry;
    return registry;
  }

  bool Register(MethodInfo info, Factory factory) {
    std::string key = info.name;
    entries_[key] = Entry{std::move(info), std::move(factory)};
    return true;
  }

  // Creates `name` with `options`; errors name the unknown method and list the known ones, or
  // report option keys the method did not read.
  Result<std::unique_ptr<Base>> Create(std::string_view name, const Options& options) const {
    auto it = entries_.find(std::string(name));
    if (it == entries_.end()) {
      std::string known;
      for (const auto& [k, e] : entries_) known += (known.empty() ? "" : ", ") + k;
      return Status::NotFound("unknown " + std::string(Base::kKind) + " '" + std::string(name) +
                              "' (known: " + known + ")");
    }
    auto made = it->second.factory(options);
    if (!made.ok()) return made.status();
    auto unused = options.Unused();
    if (!unused.empty()) {
      std::string keys;
      for (const auto& k : unused) keys += (keys.empty() ? "" : ", ") + k;
      return Status::InvalidArgument(std::string(Base::kKind) + " '" + std::string(name) +
                                     "' does not take option(s): " + keys);
    }
    return made;
  }

  std::vector<MethodInfo> List() const {
    std::vector<MethodInfo> out;
    for (const auto& [k, e] : entries_) out.push_back(e.info);
    return out;
  }
  bool Contains(std::string_view name) const { return entries_.count(std::string(name)) > 0; }

 private:
  struct Entry {
    MethodInfo info;
    Factory factory;
  };
  std::map<std::string, Entry> entries_;  // ordered: listings are deterministic
};

#define HETSCHED_REGISTER_IMPL(Base, var, info, factory) \
  namespace {                                           \
  const bool var = ::hetsched::Registry<Base>::Instance().Register(info, factory); \
  }

}  // namespace hetsched
