// Test helper for the SVG/HTML tests: checks that every opened tag is closed in order (a cheap
// well-formedness check; HTML void elements such as <meta> need no closing tag).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hetsched::testing_util {

// Returns "" when balanced, else a description of the first problem.
inline std::string CheckBalancedTags(std::string_view text) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "link", "input"};
  std::vector<std::string> open;
  size_t pos = 0;
  while ((pos = text.find('<', pos)) != std::string_view::npos) {
    const size_t end = text.find('>', pos);
    if (end == std::string_view::npos) return "unterminated tag at " + std::to_string(pos);
    std::string_view tag = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '!' || tag[0] == '?') continue;  // doctype, comment, xml declaration
    const bool closing = tag[0] == '/';
    const bool self_closing = tag.back() == '/';
    if (closing) tag.remove_prefix(1);
    const std::string name(tag.substr(0, tag.find_first_of(" \t\n/")));
    if (closing) {
      if (open.empty() || open.back() != name) return "unexpected </" + name + ">";
      open.pop_back();
    } else if (!self_closing && kVoid.count(name) == 0) {
      open.push_back(name);
    }
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  return "";
}

}  // namespace hetsched::testing_util
