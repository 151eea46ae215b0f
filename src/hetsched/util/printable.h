// Input text made safe to quote in a message (issue 20), so that a crafted trace or cluster file
// cannot rewrite the terminal that shows the error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hetsched {

// Input text made safe to quote in a message: every byte that could act on a terminal is written
// as \xNN (C0 controls, newline included, DEL, C1 controls, bytes that are not valid UTF-8, and
// the Unicode bidirectional and zero-width format characters a crafted name could use to hide
// text), and the text is cut after `max_bytes` of input (whole characters), ending in "...".
// Every reader quotes input through Quoted() (below) or this.
inline constexpr size_t kMaxQuotedBytes = 64;
std::string Printable(std::string_view text, size_t max_bytes = kMaxQuotedBytes);
// 'Printable(text)', followed by " (N bytes)" when the text was cut.
std::string Quoted(std::string_view text, size_t max_bytes = kMaxQuotedBytes);

}  // namespace hetsched
