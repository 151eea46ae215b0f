// The CLI's checks of option values, with messages that say what is expected, and parsing a
// command line held as strings.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::cli {

// Option validators whose messages say what is expected (CLI11's own say "Value 0 not in range
// 0.000000 to 1.79...e308"). The option's name is prefixed by CLI11; a failure exits 2.
CLI::Validator WholeAtLeast(long long min);        // an integer >= min
CLI::Validator NumberAbove(double min);            // a finite number > min
CLI::Validator ProfileTypes();                     // SUFFIX=TYPE,... of built-in device types
CLI::Validator DataFile();                         // a readable file, here or in the data tree
CLI::Validator DeviceCounts();                     // TYPE=COUNT,... of built-in device types, counts >= 1
CLI::Validator NumberAtLeast(double min);          // a finite number >= min
CLI::Validator WholeInRange(long long min, long long max);  // an integer in [min, max]
CLI::Validator NumberBetween(double low, double high);      // a finite number in (low, high)
CLI::Validator SeedValue();                        // an integer in [0, 2^64 - 1] (--seed)
CLI::Validator OneOf(std::vector<std::string> allowed);  // one of the words
// Every FLOAT option of `app` and of its subcommands refuses NaN and infinity (main.cc).
void RequireFiniteNumbers(CLI::App& app);
// Parses `argv` (argv[0]: the program's name) with `app`; CLI11's error becomes
// kInvalidArgument with its message (a bad command line). For command lines read from a file.
Status ParseCommandLine(CLI::App& app, std::vector<std::string> argv);

}  // namespace hetsched::cli
