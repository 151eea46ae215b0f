#include "hetsched/run/value_checks.h"

#include <charconv>
#include <optional>
#include <fmt/format.h>

#include "hetsched/model/cluster.h"
#include "hetsched/model/device.h"
#include "hetsched/run/sim_inputs.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched {

namespace {

// A number, finite (NaN and infinity are refused).
std::optional<double> Finite(std::string_view text) {
  const Result<double> v = ParseDouble(Trim(text), "value");
  if (!v.ok()) return std::nullopt;
  return *v;
}

std::optional<long long> Whole(std::string_view text) {
  const Result<long long> n = ParseInt(Trim(text), "value");
  if (!n.ok()) return std::nullopt;
  return *n;
}

}  // namespace

ValueCheck WholeAtLeastCheck(long long min) {
  return {"INT >= " + std::to_string(min), [min](std::string_view text) -> std::string {
            const std::optional<long long> n = Whole(text);
            if (n && *n >= min) return {};
            return "must be a whole number >= " + std::to_string(min) + ", got " + Quoted(text);
          }};
}

ValueCheck WholeInRangeCheck(long long min, long long max) {
  return {fmt::format("INT in [{}, {}]", min, max), [min, max](std::string_view text) -> std::string {
            const std::optional<long long> n = Whole(text);
            if (n && *n >= min && *n <= max) return {};
            return fmt::format("must be a whole number in [{}, {}], got {}", min, max, Quoted(text));
          }};
}

ValueCheck NumberAboveCheck(double min) {
  return {fmt::format("NUMBER > {}", min), [min](std::string_view text) -> std::string {
            const std::optional<double> v = Finite(text);
            if (v && *v > min) return {};
            return fmt::format("must be a finite number > {}, got {}", min, Quoted(text));
          }};
}

ValueCheck NumberAtLeastCheck(double min) {
  return {fmt::format("NUMBER >= {}", min), [min](std::string_view text) -> std::string {
            const std::optional<double> v = Finite(text);
            if (v && *v >= min) return {};
            return fmt::format("must be a finite number >= {}, got {}", min, Quoted(text));
          }};
}

ValueCheck NumberBetweenCheck(double low, double high) {
  return {fmt::format("NUMBER in ({}, {})", low, high), [low, high](std::string_view text) -> std::string {
            const std::optional<double> v = Finite(text);
            if (v && *v > low && *v < high) return {};
            return fmt::format("must be a finite number in ({}, {}), got {}", low, high, Quoted(text));
          }};
}

ValueCheck FiniteNumberCheck() {
  return {"", [](std::string_view text) -> std::string {
            if (Finite(text)) return {};
            return "must be a finite number, got " + Quoted(text);
          }};
}

ValueCheck SeedCheck() {
  return {"INT in [0, 18446744073709551615]", [](std::string_view text) -> std::string {
            // Digits only: no sign, no wrap ("-1" is not 2^64 - 1, 2^64 is not 0).
            const std::string_view digits = Trim(text);
            unsigned long long v = 0;
            const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
            if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size()) return {};
            return "must be a whole number in [0, 18446744073709551615], got " + Quoted(text);
          }};
}

ValueCheck DeviceCountsCheck() {
  return {"TYPE=COUNT,...", [](std::string_view text) -> std::string {
            auto counts = ParseTypeCounts(text, "list");
            if (!counts.ok()) return counts.status().message().substr(std::string_view("list: ").size());
            for (const auto& [type, count] : *counts) {
              if (auto known = DeviceCatalog::BuiltIn().Lookup(type); !known.ok()) return known.status().message();
              if (count < 1) return "entry " + Quoted(type + "=" + std::to_string(count)) + ": the count must be >= 1";
            }
            return {};
          }};
}

ValueCheck DataFileCheck() {
  return {"FILE", [](std::string_view text) -> std::string {
            auto read = ReadFileOrEmbedded(std::string(text));
            return read.ok() ? std::string() : read.status().message();
          }};
}

ValueCheck ProfileTypesCheck() {
  return {"SUFFIX=TYPE,...", [](std::string_view text) -> std::string {
            auto types = ParseProfileTypes(text);
            if (!types.ok()) return types.status().message();
            for (const auto& [suffix, type] : *types) {
              if (auto known = DeviceCatalog::BuiltIn().Lookup(type); !known.ok()) return known.status().message();
            }
            return {};
          }};
}

ValueCheck OneOfCheck(std::vector<std::string> allowed) {
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  return {"{" + list + "}", [allowed = std::move(allowed), list](std::string_view text) -> std::string {
            for (const std::string& a : allowed) {
              if (text == a) return {};
            }
            return "must be one of " + list + ", got " + Quoted(text);
          }};
}

ValueCheck BoolCheck() {
  return {"BOOL", [](std::string_view text) -> std::string {
            for (std::string_view word : {"true", "false", "1", "0", "yes", "no", "on", "off"}) {
              if (text == word) return {};
            }
            return "must be true or false, got " + Quoted(text);
          }};
}

bool ParseBoolText(std::string_view text) { return text == "true" || text == "1" || text == "yes" || text == "on"; }

}  // namespace hetsched
