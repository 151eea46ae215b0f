// Checks of one setting's value given as text, shared by everything that takes settings as text:
// the command line's options (apps/hetsched/cli_validate.h wraps them for CLI11), the Python
// module's keywords and the compat profiles' settings (run/simulate_request.h). One check per
// kind of value, so that a value the command line refuses is refused with the same words
// everywhere.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hetsched {

struct ValueCheck {
  std::string expected;  // what a good value is, for --help: "INT >= 1"
  // "" for a good value; else what is wrong, e.g. "must be a whole number >= 1, got 'x'".
  std::function<std::string(std::string_view text)> check;
};

ValueCheck WholeAtLeastCheck(long long min);                 // an integer >= min
ValueCheck WholeInRangeCheck(long long min, long long max);  // an integer in [min, max]
ValueCheck NumberAboveCheck(double min);                     // a finite number > min
ValueCheck NumberAtLeastCheck(double min);                   // a finite number >= min
ValueCheck NumberBetweenCheck(double low, double high);      // a finite number in (low, high)
ValueCheck FiniteNumberCheck();                              // any finite number
ValueCheck SeedCheck();                                      // an integer in [0, 2^64 - 1]
ValueCheck DeviceCountsCheck();   // TYPE=COUNT,... of built-in device types, counts >= 1
ValueCheck ProfileTypesCheck();   // SUFFIX=TYPE,... (or TYPE) of built-in device types
ValueCheck DataFileCheck();       // a readable file, here or in the project's data tree (util/file_io.h)
ValueCheck OneOfCheck(std::vector<std::string> allowed);     // one of the words
ValueCheck BoolCheck();                                      // true/false, 1/0, yes/no, on/off

// The value of a BoolCheck-valid text.
bool ParseBoolText(std::string_view text);

}  // namespace hetsched
