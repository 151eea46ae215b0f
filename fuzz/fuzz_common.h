// What every libFuzzer target shares (docs/fuzzing.md): the input as text, and the checks that
// turn a quiet misbehaviour into a crash the fuzzer reports. A reader may refuse any input; it
// must not crash, hang, leak or invoke undefined behaviour (ASan + UBSan), and its error message
// must be safe to print (no control bytes: util/text.h Quoted()) and bounded in length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "hetsched/util/status.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched::fuzz {

// The longest error message a reader may produce for any input (quoted input is cut to a few
// dozen bytes; the longest fixed texts list the known names of a field).
inline constexpr size_t kMaxMessageBytes = 4096;

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz check failed: %s: %s\n", what, Printable(detail, 2000).c_str());
  std::abort();
}

inline void Check(bool ok, const char* what) {
  if (!ok) Fail(what, "");
}

// An error message must be printable as is: no C0 control byte (newline included) and no DEL.
inline void CheckMessage(const Status& status) {
  if (status.ok()) return;
  const std::string& m = status.message();
  if (m.size() > kMaxMessageBytes) Fail("error message too long", std::string_view(m).substr(0, 200));
  for (unsigned char c : m) {
    if (c < 0x20 || c == 0x7f) Fail("control byte in an error message", m);
  }
}

}  // namespace hetsched::fuzz
