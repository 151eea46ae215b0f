#include "cli_validate.h"

#include <charconv>
#include <optional>
#include <tuple>

#include "hetsched/model/device.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::cli {

namespace {

// The value as given, escaped and bounded (it is echoed in the message).
std::string Given(const std::string& text) { return Quoted(text); }

// A number, finite (CLI11 converts "nan" and "inf" to doubles without complaint).
std::optional<double> FiniteNumber(const std::string& text) {
  const Result<double> v = ParseDouble(Trim(text), "value");  // refuses NaN and infinity
  if (!v.ok()) return std::nullopt;
  return *v;
}

}  // namespace

CLI::Validator WholeAtLeast(long long min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        const Result<long long> n = ParseInt(Trim(text), "value");
        if (n.ok() && *n >= min) return {};
        return "must be a whole number >= " + std::to_string(min) + ", got " + Given(text);
      },
      "INT >= " + std::to_string(min));
}

CLI::Validator DeviceCounts() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto counts = ParseTypeCounts(text, "list");
        if (!counts.ok()) return counts.status().message().substr(std::string_view("list: ").size());
        for (const auto& [type, count] : *counts) {
          if (auto known = DeviceCatalog::BuiltIn().Lookup(type); !known.ok()) return known.status().message();
          if (count < 1) return "entry " + Quoted(type + "=" + std::to_string(count)) + ": the count must be >= 1";
        }
        return {};
      },
      "TYPE=COUNT,...");
}

CLI::Validator NumberAbove(double min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        const std::optional<double> v = FiniteNumber(text);
        if (v && *v > min) return {};
        return fmt::format("must be a finite number > {}, got {}", min, Given(text));
      },
      fmt::format("NUMBER > {}", min));
}

CLI::Validator NumberAtLeast(double min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        const std::optional<double> v = FiniteNumber(text);
        if (v && *v >= min) return {};
        return fmt::format("must be a finite number >= {}, got {}", min, Given(text));
      },
      fmt::format("NUMBER >= {}", min));
}

CLI::Validator WholeInRange(long long min, long long max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const Result<long long> n = ParseInt(Trim(text), "value");
        if (n.ok() && *n >= min && *n <= max) return {};
        return fmt::format("must be a whole number in [{}, {}], got {}", min, max, Given(text));
      },
      fmt::format("INT in [{}, {}]", min, max));
}

CLI::Validator NumberBetween(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        const std::optional<double> v = FiniteNumber(text);
        if (v && *v > low && *v < high) return {};
        return fmt::format("must be a finite number in ({}, {}), got {}", low, high, Given(text));
      },
      fmt::format("NUMBER in ({}, {})", low, high));
}

CLI::Validator SeedValue() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        // CLI11 reads "-1" into an unsigned as 2^64 - 1 and takes 2^64 as 0: digits only, no wrap.
        const std::string_view digits = Trim(text);
        unsigned long long v = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size()) return {};
        return "must be a whole number in [0, 18446744073709551615], got " + Given(text);
      },
      "INT in [0, 18446744073709551615]");
}

void RequireFiniteNumbers(CLI::App& app) {
  const CLI::Validator finite(
      [](std::string& text) -> std::string {
        if (FiniteNumber(text)) return {};
        return "must be a finite number, got " + Given(text);
      },
      "");
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
