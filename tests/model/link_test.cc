#include "hetsched/model/link.h"

#include <gtest/gtest.h>

#include <string>

namespace hetsched {
namespace {

std::string LinkDoc(const std::string& entries) { return R"({"links": [)" + entries + "]}"; }
std::string LinkEntry(const std::string& name, const std::string& extra = "") {
  return R"({"name": ")" + name + R"(", "bandwidth_gb_per_s": 12.5, "latency_us": 10, "source": "t")" +
         extra + "}";
}

TEST(LinkCatalogTest, ParsesUnits) {
  auto c = LinkCatalog::FromJson(LinkDoc(LinkEntry("ETH100", R"(, "efficiency": 0.7)")), "l.json");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const LinkClass& l = c->link(0);
  EXPECT_EQ(l.name, "eth100");  // stored lower case
  EXPECT_DOUBLE_EQ(l.bandwidth_Bps, 12.5e9);
  EXPECT_DOUBLE_EQ(l.latency_s, 10e-6);
  EXPECT_DOUBLE_EQ(l.effective_bandwidth_Bps(), 12.5e9 * 0.7);
}

TEST(LinkCatalogTest, DefaultEfficiencyIsPointEight) {
  auto c = LinkCatalog::FromJson(LinkDoc(LinkEntry("x")), "l.json");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_DOUBLE_EQ(c->link(0).efficiency, 0.8);  // ALGORITHMS.md 1.3
}

TEST(LinkCatalogTest, FindAndLookup) {
  auto c = LinkCatalog::FromJson(LinkDoc(LinkEntry("a") + "," + LinkEntry("b")), "l.json");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Find("B"), 1);
  EXPECT_EQ(c->Find("c"), kNoLinkClass);
  auto r = c->Lookup("c");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown link class 'c' (known: a, b)"), std::string::npos);
  LinkCatalog added;
  EXPECT_EQ(added.Add(LinkClass{"z", "Z", 1, 0, 0.8, ""}), 0);
  EXPECT_EQ(added.Find("z"), 0);
}

TEST(LinkCatalogTest, BadInputs) {
  struct Case {
    std::string json;
    const char* expected;
  };
  const Case cases[] = {
      {"{\"links\": [}", "l.json:1:"},
      {"{\"devices\": []}", "missing list 'links'"},
      {LinkDoc(""), "is empty"},
      {LinkDoc(R"({"bandwidth_gb_per_s": 1, "latency_us": 1, "source": "t"})"), "field 'name' is missing"},
      {LinkDoc(R"({"name": "x", "latency_us": 1, "source": "t"})"), "links[0] ('x'): field 'bandwidth_gb_per_s' is missing"},
      {LinkDoc(R"({"name": "x", "bandwidth_gb_per_s": 0, "latency_us": 1, "source": "t"})"), "'bandwidth_gb_per_s' must be > 0"},
      {LinkDoc(R"({"name": "x", "bandwidth_gb_per_s": 1, "latency_us": -1, "source": "t"})"), "'latency_us' must be >= 0"},
      {LinkDoc(R"({"name": "x", "bandwidth_gb_per_s": 1, "latency_us": 1})"), "field 'source' is missing"},
      {LinkDoc(LinkEntry("x", R"(, "efficiency": 0)")), "'efficiency' must be in (0, 1]"},
      {LinkDoc(LinkEntry("x", R"(, "bandwidth_gbps": 3)")), "unknown field 'bandwidth_gbps'"},
      {LinkDoc(LinkEntry("x") + "," + LinkEntry("X")), "links[1] ('X'): duplicate link name 'x'"},
  };
  for (const Case& c : cases) {
    auto r = LinkCatalog::FromJson(c.json, "l.json");
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_NE(r.status().message().find(c.expected), std::string::npos) << r.status().message();
  }
}

TEST(BuiltInLinkCatalogTest, HasEveryLinkWithAlgorithmsNumbers) {
  const LinkCatalog& c = LinkCatalog::BuiltIn();
  for (const char* name : {"nvlink3", "nvlink2", "pcie4", "pcie3", "eth10", "eth25", "eth100",
                           "ib-edr", "ib-hdr", "loopback"}) {
    ASSERT_NE(c.Find(name), kNoLinkClass) << name;
    const LinkClass& l = c.link(c.Find(name));
    EXPECT_GT(l.bandwidth_Bps, 0) << name;
    EXPECT_FALSE(l.source.empty()) << name;
  }
  // ALGORITHMS.md 1.3: 10 GbE = 10e9 / 8 = 1.25e9 B/s, 30 us, Ethernet efficiency 0.7.
  const LinkClass& eth10 = c.link(c.Find("eth10"));
  EXPECT_DOUBLE_EQ(eth10.bandwidth_Bps, 1.25e9);
  EXPECT_DOUBLE_EQ(eth10.latency_s, 30e-6);
  EXPECT_DOUBLE_EQ(eth10.efficiency, 0.7);
  const LinkClass& nvlink3 = c.link(c.Find("nvlink3"));
  EXPECT_DOUBLE_EQ(nvlink3.bandwidth_Bps, 300e9);
  EXPECT_DOUBLE_EQ(nvlink3.efficiency, 0.8);
  // The host-memory path must beat every network and PCIe link (co-location is "effectively
  // free", ALGORITHMS.md 1.4-3), but NVLink 2/3 are faster still.
  const double loop = c.link(c.Find("loopback")).bandwidth_Bps;
  EXPECT_GT(loop, c.link(c.Find("ib-hdr")).bandwidth_Bps);
  EXPECT_GT(loop, c.link(c.Find("pcie4")).bandwidth_Bps);
}

}  // namespace
}  // namespace hetsched
