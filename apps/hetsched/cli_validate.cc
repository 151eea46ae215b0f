#include "cli_validate.h"

#include "hetsched/run/value_checks.h"

namespace hetsched::cli {

namespace {

// A library check (run/value_checks.h) as a CLI11 validator: the same words as the Python
// module's and the compat profiles' checks. CLI11 prefixes the option's name; a failure exits 2.
CLI::Validator Wrap(ValueCheck c) {
  return CLI::Validator([check = std::move(c.check)](std::string& text) { return check(text); }, c.expected);
}

}  // namespace

CLI::Validator WholeAtLeast(long long min) { return Wrap(WholeAtLeastCheck(min)); }
CLI::Validator DeviceCounts() { return Wrap(DeviceCountsCheck()); }
CLI::Validator ProfileTypes() { return Wrap(ProfileTypesCheck()); }
CLI::Validator DataFile() { return Wrap(DataFileCheck()); }
CLI::Validator NumberAbove(double min) { return Wrap(NumberAboveCheck(min)); }
CLI::Validator NumberAtLeast(double min) { return Wrap(NumberAtLeastCheck(min)); }
CLI::Validator WholeInRange(long long min, long long max) { return Wrap(WholeInRangeCheck(min, max)); }
CLI::Validator NumberBetween(double low, double high) { return Wrap(NumberBetweenCheck(low, high)); }
CLI::Validator SeedValue() { return Wrap(SeedCheck()); }
CLI::Validator OneOf(std::vector<std::string> allowed) { return Wrap(OneOfCheck(std::move(allowed))); }

void RequireFiniteNumbers(CLI::App& app) {
  const CLI::Validator finite = Wrap(FiniteNumberCheck());
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_name().rfind("FLOAT", 0) == 0) opt->check(finite);
  }
  for (CLI::App* sub : app.get_subcommands({})) RequireFiniteNumbers(*sub);
}

Status ParseCommandLine(CLI::App& app, std::vector<std::string> argv) {
  std::vector<char*> cargv;
  for (auto& s : argv) cargv.push_back(s.data());
  try {
    app.parse(static_cast<int>(cargv.size()), cargv.data());
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(e.what());
  }
  return Status::Ok();
}

}  // namespace hetsched::cli
