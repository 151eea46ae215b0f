// Limits up front: how much memory this machine can give a run, and the check that refuses an
// input before it is read or built when it would need more (docs/formats-inputs.md, "Limits"),
// so that a too-large trace is an error naming what it needs, not a process the kernel kills.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hetsched/util/status.h"

namespace hetsched {

// MemAvailable of /proc/meminfo (what can be allocated without swapping), else the physical
// memory; 0 when neither is known (then nothing is refused).
uint64_t AvailableMemoryBytes();

// "1.5 GiB", "640 MiB", "12 KiB", "100 bytes".
std::string FormatBytes(double bytes);

// Ok when `need_bytes` <= `limit_bytes` (0: AvailableMemoryBytes()); else kInvalidArgument
// "WHAT needs about N of memory; this machine has M available".
Status CheckMemory(std::string_view what, double need_bytes, uint64_t limit_bytes = 0);

}  // namespace hetsched
