#include "hetsched/run/compat_apply.h"

#include <algorithm>

#include <fmt/core.h>

namespace hetsched {

namespace {
std::string Cite(const CompatSetting& s) { return fmt::format("{}: {}", s.source, s.why); }
}  // namespace

Result<CompatApplier> CompatApplier::Find(const std::string& name) {
  CompatApplier applier;
  if (name.empty()) return applier;
  auto found = CompatProfiles::Instance().Find(name);
  if (!found.ok()) return found.status().WithContext("--compat");
  applier.profile_ = *found;
  return applier;
}

Status CompatApplier::ApplyToTarget(CompatTarget& target, const std::vector<std::string>& policies) {
  if (profile_ == nullptr) return Status::Ok();
  lines_.clear();
  for (const CompatSetting& s : profile_->settings) {
    if (s.IsMethodOption()) continue;
    const std::string what = s.option + " " + s.value;
    bool applies = !policies.empty();
    for (const std::string& p : policies) applies = applies && s.AppliesTo(p);
    if (!applies) {
      std::string only;
      for (const std::string& p : s.policies) only += (only.empty() ? "" : ", ") + p;
      lines_.push_back(fmt::format("  -    {:<36} only for {}", what, only));
      continue;
    }
    if (!target.Has(s.option)) {
      lines_.push_back(fmt::format("  -    {:<36} (not an option of `{}`)", what, target.name()));
      continue;
    }
    if (const std::optional<std::string> given = target.Given(s.option)) {
      lines_.push_back(fmt::format("  kept {:<36} as given (profile: {})", s.option + " " + *given, s.value));
      continue;
    }
    const auto other = std::find_if(s.unless_given.begin(), s.unless_given.end(),
                                    [&](const std::string& o) { return target.Given(o).has_value(); });
    if (other != s.unless_given.end()) {
      lines_.push_back(fmt::format("  -    {:<36} not with {} (given)", what, *other));
      continue;
    }
    if (Status set = target.Set(s.option, s.value); !set.ok()) {
      return Status::Internal("compat profile '" + profile_->name + "': " + what + ": " + set.message());
    }
    lines_.push_back(fmt::format("  set  {:<36} {}", what, Cite(s)));
  }
  return Status::Ok();
}

void CompatApplier::ApplyToChoice(MethodChoice& choice, const std::string& label) {
  if (profile_ == nullptr) return;
  for (const CompatSetting& s : profile_->settings) {
    if (!s.IsMethodOption() || !s.AppliesTo(choice.policy)) continue;
    Options& target = s.option == "--policy-opt"  ? choice.policy_options
                      : s.option == "--placer-opt" ? choice.placer_options
                                                   : choice.planner_options;
    const std::string key = s.MethodOptionKey();
    const std::string what = s.option + " " + s.value;
    if (target.Has(key)) {
      lines_.push_back(fmt::format("  kept {:<36} [{}] as given (profile: {})",
                                   s.option + " " + key + "=" + target.values().at(key), label, s.value));
      continue;
    }
    // A setting for every policy is offered like --seed (a policy that does not read it is not
    // an error); one named for this policy must be read by it.
    if (s.policies.empty()) {
      target.SetDefault(key, s.MethodOptionValue());
    } else {
      target.Set(key, s.MethodOptionValue());
    }
    lines_.push_back(fmt::format("  set  {:<36} [{}] {}", what, label, Cite(s)));
  }
}

std::string CompatApplier::Report() const {
  if (profile_ == nullptr) return "";
  std::string out = fmt::format("compat  : {}: {}\n", profile_->name, profile_->peer);
  for (const std::string& l : lines_) out += l + "\n";
  return out;
}

}  // namespace hetsched
