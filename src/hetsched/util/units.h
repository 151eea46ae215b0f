// Units and limits that several files of the library use, defined once: with unity builds
// (HETSCHED_UNITY_LIBRARY) files of one module share a compile, where a constant each of them
// defines for itself would be defined twice. Only constants of one value and type belong here; a
// file whose constant differs (an integer GiB, a slack of another size) keeps its own name.
#pragma once

#include <limits>

namespace hetsched {

inline constexpr double kGiB = 1073741824.0;  // 2^30 bytes
inline constexpr double kGB = 1e9;            // bytes (and a bandwidth's GB/s)
inline constexpr double kSecondsPerHour = 3600;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace hetsched
