// SHA-256 (FIPS 180-4) of a byte string, as 64 lower-case hex digits: checks that a shipped file
// (a trained agent in data/models/) is the one that was measured. Plain C++, no dependency.
#pragma once

#include <string>
#include <string_view>

namespace hetsched {

std::string Sha256Hex(std::string_view bytes);

}  // namespace hetsched
