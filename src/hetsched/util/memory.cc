#include "hetsched/util/memory.h"

#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace hetsched {

uint64_t AvailableMemoryBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  return 0;
}

std::string FormatBytes(double bytes) {
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return fmt::format("{:.0f} bytes", bytes);
  int u = -1;
  while (bytes >= 1024 && u + 1 < 5) {
    bytes /= 1024;
    ++u;
  }
  if (bytes < 10) return fmt::format("{:.1f} {}", bytes, kUnits[u]);
  return fmt::format("{:.0f} {}", bytes, kUnits[u]);
}

Status CheckMemory(std::string_view what, double need_bytes, uint64_t limit_bytes) {
  // Any machine that runs hetsched has this much: no need to ask the kernel.
  constexpr double kAlwaysThere = 64.0 * 1024 * 1024;
  if (limit_bytes == 0 && need_bytes < kAlwaysThere) return Status::Ok();
  const uint64_t limit = limit_bytes > 0 ? limit_bytes : AvailableMemoryBytes();
  if (limit == 0 || need_bytes <= static_cast<double>(limit)) return Status::Ok();
  return Status::InvalidArgument(fmt::format("{} needs about {} of memory; this machine has {} available",
                                             what, FormatBytes(need_bytes), FormatBytes(static_cast<double>(limit))));
}

namespace {
// AdviseHeapGrowth's state: on once KeepFreedHeapMemory ran; the heap's end up to which (a 2 MiB
// boundary) it has been advised.
std::atomic<bool> advise_heap{false};
std::atomic<uintptr_t> heap_advised_end{0};
constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
}  // namespace

void KeepFreedHeapMemory() {
#if defined(__GLIBC__)
  // Setting either turns glibc's dynamic thresholds off, so both are set: blocks up to 4 MiB come
  // from the heap (with the default 128 KiB each one was mapped and unmapped per use).
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#if defined(__linux__)
  // The heap grows 32 MiB at a time (untouched until used), so AdviseHeapGrowth finds most of each
  // new stretch not yet faulted in.
  mallopt(M_TOP_PAD, 32 << 20);
  heap_advised_end.store(reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHugePage - 1), std::memory_order_relaxed);
  advise_heap.store(true, std::memory_order_relaxed);
#endif
#endif
}

void AdviseHeapGrowth() {
#if defined(__GLIBC__) && defined(__linux__)
  if (!advise_heap.load(std::memory_order_relaxed)) return;
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  const uintptr_t from = heap_advised_end.load(std::memory_order_relaxed);
  if (end == from) return;
  // A heap trimmed below what was advised is advised again from its new end as it regrows.
  if (end > from) AdviseHugePages(reinterpret_cast<const void*>(from), end - from);
  heap_advised_end.store(end, std::memory_order_relaxed);
#endif
}

void AdviseHugePages(const void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  // Advice only: where it is refused (THP off, an old kernel) the pages stay small.
  if (p != nullptr && end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace hetsched
