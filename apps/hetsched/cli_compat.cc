#include "cli_compat.h"

#include <fmt/core.h>

namespace hetsched::cli {

namespace {
// The option of `cmd` that a profile's `option` means: itself, or its plural form on commands
// that take a list (compare's --placers).
CLI::Option* FindOption(CLI::App& cmd, const std::string& option) {
  if (CLI::Option* o = cmd.get_option_no_throw(option)) return o;
  return cmd.get_option_no_throw(option + "s");
}

std::string Cite(const CompatSetting& s) { return fmt::format("{}: {}", s.source, s.why); }
}  // namespace

void CompatArgs::Add(CLI::App& app) {
  app.add_option("--compat", name_,
                 "Run as a peer simulator would (gavel, tiresias): its assumptions become the defaults; "
                 "explicit options still win (see `hetsched catalog compat`, docs/compat.md)");
}

Status CompatArgs::ApplyToCommand(CLI::App& cmd, const std::vector<std::string>& policies) {
  if (name_.empty()) return Status::Ok();
  auto found = CompatProfiles::Instance().Find(name_);
  if (!found.ok()) return found.status().WithContext("--compat");
  profile_ = *found;
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
    CLI::Option* opt = FindOption(cmd, s.option);
    if (opt == nullptr) {
      lines_.push_back(fmt::format("  -    {:<36} (not an option of `{}`)", what, cmd.get_name()));
      continue;
    }
    if (opt->count() > 0) {
      std::string given;
      for (const std::string& r : opt->results()) given += (given.empty() ? "" : " ") + r;
      lines_.push_back(fmt::format("  kept {:<36} as given (profile: {})", s.option + " " + given, s.value));
      continue;
    }
    try {
      opt->add_result(s.value);
      opt->run_callback();
    } catch (const CLI::Error& e) {
      return Status::Internal("compat profile '" + profile_->name + "': " + what + ": " + e.what());
    }
    lines_.push_back(fmt::format("  set  {:<36} {}", what, Cite(s)));
  }
  return Status::Ok();
}

void CompatArgs::ApplyToChoice(MethodChoice& choice, const std::string& label) {
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

std::string CompatArgs::Report() const {
  if (profile_ == nullptr) return "";
  std::string out = fmt::format("compat  : {}: {}\n", profile_->name, profile_->peer);
  for (const std::string& l : lines_) out += l + "\n";
  return out;
}

}  // namespace hetsched::cli
