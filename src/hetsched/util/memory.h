// Limits up front: how much memory this machine can give a run, and the check that refuses an
// input before it is read or built when it would need more (docs/formats-inputs.md, "Limits"),
// so that a too-large trace is an error naming what it needs, not a process the kernel kills.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// For a process that runs simulations (the CLI, the benchmarks; not a library call, since it
// sets the process's allocator): blocks of up to 4 MiB come from the heap and up to 64 MiB of
// freed memory stays at its top, instead of glibc's defaults (blocks from 128 KiB mapped and
// unmapped per use, the heap's top returned to the kernel from 128 KiB on, both adjusted as the
// process goes). The LP policies allocate and free the solver's work arrays at every solve, the
// round mechanism its vectors every round: with the defaults they were faulted in again each
// time (gavel-makespan on 2,000 jobs: 0.40 s of system time in 4 s; gavel-las 0.18 s in 0.87 s;
// docs/PERFORMANCE.md, session 15). It also makes the heap grow 32 MiB at a time and turns
// AdviseHeapGrowth on. No-op outside glibc.
void KeepFreedHeapMemory();

// After KeepFreedHeapMemory (else a no-op): puts the stretch the heap grew by since the last call
// on transparent huge pages (AdviseHugePages), as glibc's glibc.malloc.hugetlb=1 tunable would if
// the process had been started with it. Cheap when the heap has not grown (one comparison); the
// simulator calls it once per scheduling call. Changes no result, only where pages come from.
void AdviseHeapGrowth();

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent huge pages
// (Linux madvise MADV_HUGEPAGE, honoured when THP is "madvise" or "always"; a no-op elsewhere).
// For large arrays read at random, one per job at a million jobs: with 4 KiB pages most reads
// there also miss the TLB. Call it before the memory is first written: pages already faulted in
// stay small. Changes no result, only where the pages come from.
void AdviseHugePages(const void* p, size_t bytes);

// v.reserve(n), advised as above while the new storage is still untouched (only when v is
// empty and so gets new storage; otherwise a plain reserve).
template <typename T>
void ReserveHugePages(std::vector<T>& v, size_t n) {
  const bool fresh = v.empty() && v.capacity() < n;
  v.reserve(n);
  if (fresh) AdviseHugePages(v.data(), n * sizeof(T));
}

}  // namespace hetsched
