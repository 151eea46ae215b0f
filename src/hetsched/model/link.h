// Link classes: NVLink generations, PCIe, Ethernet, InfiniBand. Data in data/links.json.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched {

using LinkClassId = int;
inline constexpr LinkClassId kNoLinkClass = -1;

struct LinkClass {
  std::string name;            // "nvlink3", "pcie4", "eth25", "ib-hdr"
  std::string display_name;    // "NVLink 3.0 (A100, NVSwitch)"
  double bandwidth_Bps = 0;    // per direction, theoretical, bytes/s
  double latency_s = 0;        // per message (alpha)
  double efficiency = 0.8;     // achieved fraction of bandwidth (epsilon)
  std::string source;

  double effective_bandwidth_Bps() const { return bandwidth_Bps * efficiency; }
};

class LinkCatalog {
 public:
  static Result<LinkCatalog> FromJson(std::string_view json_text, const std::string& origin);
  static const LinkCatalog& BuiltIn();  // data/links.json

  const std::vector<LinkClass>& links() const { return links_; }
  const LinkClass& link(LinkClassId id) const { return links_.at(static_cast<size_t>(id)); }
  int size() const { return static_cast<int>(links_.size()); }
  LinkClassId Find(std::string_view name) const;  // case-insensitive; kNoLinkClass if unknown
  Result<LinkClassId> Lookup(std::string_view name) const;
  LinkClassId Add(LinkClass link);

 private:
  std::vector<LinkClass> links_;
};

}  // namespace hetsched
