#include "hetsched/compat/compat.h"

#include <algorithm>

namespace hetsched {

bool CompatSetting::AppliesTo(std::string_view policy) const {
  return policies.empty() || std::find(policies.begin(), policies.end(), policy) != policies.end();
}

bool CompatSetting::IsMethodOption() const {
  return option == "--policy-opt" || option == "--placer-opt" || option == "--planner-opt";
}

std::string CompatSetting::MethodOptionKey() const {
  if (!IsMethodOption()) return {};
  return value.substr(0, value.find('='));
}

std::string CompatSetting::MethodOptionValue() const {
  const size_t eq = value.find('=');
  if (!IsMethodOption() || eq == std::string::npos) return {};
  return value.substr(eq + 1);
}

CompatProfiles& CompatProfiles::Instance() {
  static CompatProfiles profiles;
  return profiles;
}

bool CompatProfiles::Register(CompatProfile profile) {
  auto it = std::lower_bound(profiles_.begin(), profiles_.end(), profile.name,
                             [](const CompatProfile& p, const std::string& name) { return p.name < name; });
  profiles_.insert(it, std::move(profile));
  return true;
}

Result<const CompatProfile*> CompatProfiles::Find(std::string_view name) const {
  for (const CompatProfile& p : profiles_) {
    if (p.name == name) return &p;
  }
  std::string known;
  for (const CompatProfile& p : profiles_) known += (known.empty() ? "" : ", ") + p.name;
  return Status::NotFound("unknown compatibility profile '" + std::string(name) + "' (known: " +
                          (known.empty() ? "none" : known) + ")");
}

std::vector<const CompatProfile*> CompatProfiles::List() const {
  std::vector<const CompatProfile*> out;
  for (const CompatProfile& p : profiles_) out.push_back(&p);
  return out;
}

std::string CompatProfiles::Reproduces(std::string_view method) const {
  std::string out;
  for (const CompatProfile& p : profiles_) {
    for (const CompatMethod& m : p.reproduces) {
      if (m.method != method) continue;
      out += (out.empty() ? "" : "; ") + p.name + ": " + m.peer_method + " (--compat " + p.name + ")";
    }
  }
  return out;
}

Status ValidateProfile(const CompatProfile& profile) {
  if (profile.name.empty()) return Status::InvalidArgument("compat profile with no name");
  const std::string where = "compat profile '" + profile.name + "'";
  // The name goes into command lines (sweep's job script): lower-case letters, digits and '-'.
  for (char c : profile.name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      return Status::InvalidArgument(where + ": a name is lower-case letters, digits and '-'");
    }
  }
  if (profile.peer.empty()) return Status::InvalidArgument(where + ": no peer named");
  for (const CompatSetting& s : profile.settings) {
    const std::string what = where + ", setting '" + s.option + " " + s.value + "'";
    if (s.option.size() < 3 || s.option.rfind("--", 0) != 0) {
      return Status::InvalidArgument(what + ": the option must be spelled as typed, '--name'");
    }
    if (s.value.empty()) return Status::InvalidArgument(what + ": no value");
    if (s.source.empty()) return Status::InvalidArgument(what + ": no source (the peer's file and line)");
    if (s.why.empty()) return Status::InvalidArgument(what + ": no reason");
    if (s.IsMethodOption() && (s.MethodOptionKey().empty() || s.value.find('=') == std::string::npos)) {
      return Status::InvalidArgument(what + ": a method option's value is KEY=VALUE");
    }
  }
  for (const CompatMethod& m : profile.reproduces) {
    if (m.method.empty() || m.peer_method.empty() || m.source.empty()) {
      return Status::InvalidArgument(where + ": a reproduced method needs our name, the peer's name and its source");
    }
  }
  return Status::Ok();
}

}  // namespace hetsched
