#include "hetsched/model/link.h"

#include "hetsched/model/json_fields.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"
#include "hetsched/util/units.h"

namespace hetsched {

namespace {

using model_internal::JsonFields;
using model_internal::NumberRule;

constexpr double kMicro = 1e-6;
constexpr double kDefaultEfficiency = 0.8;  // ALGORITHMS.md 1.3 [REC]

Result<LinkClass> ParseLink(const JsonFields& f) {
  HETSCHED_RETURN_IF_ERROR(f.CheckKnownKeys({"name", "display_name", "bandwidth_gb_per_s",
                                             "latency_us", "efficiency", "source", "comment"}));
  LinkClass l;
  HETSCHED_ASSIGN_OR_RETURN(l.name, f.String("name"));
  l.name = ToLower(l.name);
  HETSCHED_ASSIGN_OR_RETURN(l.display_name, f.String("display_name", l.name));
  HETSCHED_ASSIGN_OR_RETURN(double bw, f.Number("bandwidth_gb_per_s", NumberRule::kPositive));
  HETSCHED_ASSIGN_OR_RETURN(double lat, f.Number("latency_us", NumberRule::kNonNegative));
  HETSCHED_ASSIGN_OR_RETURN(l.efficiency,
                            f.Number("efficiency", NumberRule::kFraction, kDefaultEfficiency));
  HETSCHED_ASSIGN_OR_RETURN(l.source, f.String("source"));
  l.bandwidth_Bps = bw * kGB;
  l.latency_s = lat * kMicro;
  return l;
}

}  // namespace

Result<LinkCatalog> LinkCatalog::FromJson(std::string_view json_text, const std::string& origin) {
  HETSCHED_ASSIGN_OR_RETURN(nlohmann::json doc, model_internal::ParseJsonText(json_text, origin));
  HETSCHED_ASSIGN_OR_RETURN(const nlohmann::json* list,
                            model_internal::TopLevelArray(doc, "links", origin));
  LinkCatalog catalog;
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& entry = (*list)[i];
    std::string where = origin + ": links[" + std::to_string(i) + "]";
    if (!entry.is_object()) return Status::InvalidArgument(where + ": must be an object");
    if (entry.contains("name") && entry["name"].is_string()) {
      where += " ('" + entry["name"].get<std::string>() + "')";
    }
    HETSCHED_ASSIGN_OR_RETURN(LinkClass l, ParseLink(JsonFields(entry, where)));
    if (catalog.Find(l.name) != kNoLinkClass) {
      return Status::InvalidArgument(where + ": duplicate link name '" + l.name + "'");
    }
    catalog.Add(std::move(l));
  }
  return catalog;
}

const LinkCatalog& LinkCatalog::BuiltIn() {
  static const LinkCatalog catalog = model_internal::ValueOrDie(
      FromJson(model_internal::EmbeddedOrDie("data/links.json"), "data/links.json"),
      "link catalog");
  return catalog;
}

LinkClassId LinkCatalog::Find(std::string_view name) const {
  const std::string key = ToLower(Trim(name));
  for (size_t i = 0; i < links_.size(); ++i) {
    if (ToLower(links_[i].name) == key) return static_cast<LinkClassId>(i);
  }
  return kNoLinkClass;
}

Result<LinkClassId> LinkCatalog::Lookup(std::string_view name) const {
  LinkClassId id = Find(name);
  if (id != kNoLinkClass) return id;
  std::string known;
  for (const auto& l : links_) known += (known.empty() ? "" : ", ") + l.name;
  return Status::NotFound("unknown link class " + Quoted(name) + " (known: " + known + ")");
}

LinkClassId LinkCatalog::Add(LinkClass link) {
  links_.push_back(std::move(link));
  return static_cast<LinkClassId>(links_.size() - 1);
}

}  // namespace hetsched
