#include "hetsched/util/printable.h"

#include <algorithm>

namespace hetsched {

namespace {

// The length of the valid UTF-8 sequence at the start of `s` and its code point; 0 when the bytes
// there are not one (truncated, overlong, a surrogate, beyond U+10FFFF).
size_t Utf8Sequence(std::string_view s, char32_t* code_point) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  size_t len = 0;
  char32_t cp = 0;
  if (b(0) >= 0xC2 && b(0) <= 0xDF) {
    len = 2;
    cp = b(0) & 0x1Fu;
  } else if (b(0) >= 0xE0 && b(0) <= 0xEF) {
    len = 3;
    cp = b(0) & 0x0Fu;
  } else if (b(0) >= 0xF0 && b(0) <= 0xF4) {
    len = 4;
    cp = b(0) & 0x07u;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3Fu);
  }
  const char32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return len;
}

// C1 controls, and the format characters that reorder or hide text on a terminal: zero-width
// spaces and joiners, bidirectional marks, embeddings, overrides and isolates, the BOM.
bool IsHiddenOrControl(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

void AppendEscaped(std::string_view bytes, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    out->append("\\x");
    out->push_back(kHex[u >> 4]);
    out->push_back(kHex[u & 0xF]);
  }
}

}  // namespace

std::string Printable(std::string_view text, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 8);
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = 1;
    bool escape = c < 0x20 || c == 0x7F;
    if (c >= 0x80) {
      char32_t cp = 0;
      len = Utf8Sequence(text.substr(i), &cp);
      escape = len == 0 || IsHiddenOrControl(cp);
      if (len == 0) len = 1;  // not UTF-8: this byte alone, escaped
    }
    if (i + len > max_bytes) break;
    if (escape) {
      AppendEscaped(text.substr(i, len), &out);
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  if (i < text.size()) out.append("...");
  return out;
}

std::string Quoted(std::string_view text, size_t max_bytes) {
  std::string out = "'" + Printable(text, max_bytes) + "'";
  if (text.size() > max_bytes) out += " (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace hetsched
