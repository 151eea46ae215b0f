#include "cli_compat.h"

namespace hetsched::cli {

namespace {

// A command's options as a compat profile's target (run/compat_apply.h): a setting is given to
// CLI11 as if typed, so that the option's own checks run.
class CommandTarget final : public CompatTarget {
 public:
  explicit CommandTarget(CLI::App& cmd) : cmd_(cmd) {}
  std::string_view name() const override { return cmd_.get_name(); }
  bool Has(std::string_view option) const override { return Find(option) != nullptr; }
  std::optional<std::string> Given(std::string_view option) const override {
    CLI::Option* opt = Find(option);
    if (opt->count() == 0) return std::nullopt;
    std::string given;
    for (const std::string& r : opt->results()) given += (given.empty() ? "" : " ") + r;
    return given;
  }
  Status Set(std::string_view option, std::string_view value) override {
    CLI::Option* opt = Find(option);
    try {
      opt->add_result(std::string(value));
      opt->run_callback();
    } catch (const CLI::Error& e) {
      return Status::InvalidArgument(e.what());
    }
    return Status::Ok();
  }

 private:
  // The option `option` means: itself, or its plural form on commands that take a list
  // (compare's --placers).
  CLI::Option* Find(std::string_view option) const {
    if (CLI::Option* o = cmd_.get_option_no_throw(std::string(option))) return o;
    return cmd_.get_option_no_throw(std::string(option) + "s");
  }
  CLI::App& cmd_;
};

}  // namespace

std::string CompatNames() {
  std::string out;
  for (const CompatProfile* p : CompatProfiles::Instance().List()) out += (out.empty() ? "" : ", ") + p->name;
  return out;
}

void CompatArgs::Add(CLI::App& app) {
  app.add_option("--compat", name_,
                 "Run as a peer simulator would (" + CompatNames() +
                     "): its assumptions become the defaults; explicit options still win (see `hetsched catalog compat`, "
                     "docs/compat.md)");
}

Status CompatArgs::ApplyToCommand(CLI::App& cmd, const std::vector<std::string>& policies) {
  HETSCHED_ASSIGN_OR_RETURN(applier_, CompatApplier::Find(name_));
  CommandTarget target(cmd);
  return applier_.ApplyToTarget(target, policies);
}

}  // namespace hetsched::cli
