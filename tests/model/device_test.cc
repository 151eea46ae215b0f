#include "hetsched/model/device.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "hetsched/model/link.h"

namespace hetsched {
namespace {

// A minimal valid device entry; tests splice fields in or out of it.
std::string Entry(const std::string& extra = "", const std::string& name = "gpu-x") {
  return R"({"name": ")" + name + R"(", "fp32_tflops": 10, "memory_gib": 16,
    "memory_bandwidth_gb_per_s": 500, "tdp_watts": 200, "price_per_hour_usd": 1.5,
    "price_source": "test", "peer_link": "pcie3", "host_link": "pcie3", "source": "test")" +
         extra + "}";
}
std::string Doc(const std::string& entries) { return R"({"devices": [)" + entries + "]}"; }

TEST(DeviceCatalogTest, ParsesUnitsAndDefaults) {
  auto c = DeviceCatalog::FromJson(Doc(Entry(R"(, "aliases": ["X1"], "fp16_tflops": 40)")), "t.json");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->size(), 1);
  const DeviceType& t = c->type(0);
  EXPECT_DOUBLE_EQ(t.fp32_flops, 10e12);
  EXPECT_DOUBLE_EQ(t.tensor_flops, 40e12);
  EXPECT_DOUBLE_EQ(t.memory_bytes, 16.0 * 1073741824.0);  // GiB = 2^30 bytes
  EXPECT_DOUBLE_EQ(t.memory_bandwidth_Bps, 500e9);
  EXPECT_DOUBLE_EQ(t.idle_watts, 60);          // default 0.3 x 200 W
  EXPECT_DOUBLE_EQ(t.efficiency, 0.4);         // GPU default
  EXPECT_DOUBLE_EQ(t.iteration_overhead_s, 0.002);
  EXPECT_FALSE(t.is_cpu);
  EXPECT_EQ(t.display_name, "gpu-x");
}

TEST(DeviceCatalogTest, CpuDefaultsDiffer) {
  auto c = DeviceCatalog::FromJson(Doc(Entry(R"(, "is_cpu": true)")), "t.json");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_DOUBLE_EQ(c->type(0).efficiency, 0.2);
  EXPECT_DOUBLE_EQ(c->type(0).iteration_overhead_s, 0.0005);
}

TEST(DeviceCatalogTest, FindIsCaseInsensitiveAndUsesAliases) {
  auto c = DeviceCatalog::FromJson(
      Doc(Entry(R"(, "aliases": ["Fast"])", "gpu-a") + "," + Entry("", "gpu-b")), "t.json");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->Find("GPU-A"), 0);
  EXPECT_EQ(c->Find("fast"), 0);
  EXPECT_EQ(c->Find(" gpu-b "), 1);
  EXPECT_EQ(c->Find("gpu-c"), kNoDeviceType);
  auto missing = c->Lookup("v200");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("unknown device type 'v200' (known: gpu-a, gpu-b)"),
            std::string::npos)
      << missing.status().message();
}

TEST(DeviceCatalogTest, AddReturnsNewId) {
  DeviceCatalog c;
  DeviceType t;
  t.name = "x";
  EXPECT_EQ(c.Add(t), 0);
  t.name = "y";
  EXPECT_EQ(c.Add(t), 1);
  EXPECT_EQ(c.Find("y"), 1);
}

struct BadCase {
  const char* label;
  std::string json;
  const char* expected;  // substring of the message
};

class DeviceCatalogBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(DeviceCatalogBadInput, IsRejectedWithClearMessage) {
  auto c = DeviceCatalog::FromJson(GetParam().json, "bad.json");
  ASSERT_FALSE(c.ok()) << GetParam().label;
  EXPECT_NE(c.status().message().find(GetParam().expected), std::string::npos)
      << GetParam().label << ": " << c.status().message();
  EXPECT_NE(c.status().message().find("bad.json"), std::string::npos) << c.status().message();
}

std::string Without(const std::string& field) {
  std::string e = Entry();
  const size_t at = e.find("\"" + field + "\"");
  const size_t comma = e.find(',', at);
  return e.erase(at, comma - at + 1);
}

INSTANTIATE_TEST_SUITE_P(
    All, DeviceCatalogBadInput,
    ::testing::Values(
        BadCase{"syntax", "{\"devices\": [\n{,]}", "bad.json:2:"},
        BadCase{"not an object", "[1]", "top level must be an object"},
        BadCase{"no list", "{}", "missing list 'devices'"},
        BadCase{"empty list", Doc(""), "is empty"},
        BadCase{"entry not object", Doc("3"), "devices[0]: must be an object"},
        BadCase{"missing fp32", Doc(Without("fp32_tflops")), "devices[0] ('gpu-x'): field 'fp32_tflops' is missing"},
        BadCase{"missing memory", Doc(Without("memory_gib")), "field 'memory_gib' is missing"},
        BadCase{"missing price source", Doc(Without("price_source")), "field 'price_source' is missing"},
        BadCase{"missing peer link", Doc(Without("peer_link")), "field 'peer_link' is missing"},
        BadCase{"zero fp32", Doc(Without("fp32_tflops").insert(1, R"("fp32_tflops": 0, )")),
                "field 'fp32_tflops' must be > 0"},
        BadCase{"negative tdp", Doc(Without("tdp_watts").insert(1, R"("tdp_watts": -5, )")), "field 'tdp_watts' must be > 0"},
        BadCase{"string number", Doc(Without("memory_gib").insert(1, R"("memory_gib": "16", )")), "field 'memory_gib' must be a number"},
        BadCase{"efficiency above 1", Doc(Entry(R"(, "efficiency": 1.5)")), "field 'efficiency' must be in (0, 1]"},
        BadCase{"idle above tdp", Doc(Entry(R"(, "idle_watts": 500)")), "idle_watts' must not exceed tdp_watts"},
        BadCase{"unknown field", Doc(Entry(R"(, "fp32_tflop": 3)")), "unknown field 'fp32_tflop'"},
        BadCase{"bad alias list", Doc(Entry(R"(, "aliases": "v")")), "field 'aliases' must be a list"},
        BadCase{"duplicate name", Doc(Entry() + "," + Entry()), "devices[1] ('gpu-x'): name or alias 'gpu-x' already used"},
        BadCase{"alias clashes with name", Doc(Entry() + "," + Entry(R"(, "aliases": ["GPU-X"])", "gpu-y")),
                "name or alias 'gpu-x' already used by device 'gpu-x'"},
        BadCase{"alias repeated", Doc(Entry(R"(, "aliases": ["a", "A"])")), "name 'a' listed twice"}),
    [](const ::testing::TestParamInfo<BadCase>& param_info) {
      std::string n = param_info.param.label;
      for (char& ch : n) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// --- the built-in catalog (data/devices.json) ---

TEST(BuiltInDeviceCatalogTest, HasTheRequiredTypesAndTraceAliases) {
  const DeviceCatalog& c = DeviceCatalog::BuiltIn();
  for (const char* name : {"a100-40gb", "a100-80gb", "v100-16gb", "v100-32gb", "p100", "t4", "k80",
                           "rtx-a6000", "cpu-node"}) {
    EXPECT_NE(c.Find(name), kNoDeviceType) << name;
  }
  // Plain names that traces use (Gavel measured "v100" on the 16 GB part).
  EXPECT_EQ(c.Find("v100"), c.Find("v100-16gb"));
  EXPECT_EQ(c.Find("V100"), c.Find("v100-16gb"));
  EXPECT_EQ(c.Find("a100"), c.Find("a100-40gb"));
  EXPECT_EQ(c.Find("P100"), c.Find("p100"));
  EXPECT_EQ(c.Find("K80"), c.Find("k80"));
  EXPECT_EQ(c.Find("T4"), c.Find("t4"));
  EXPECT_EQ(c.Find("cpu"), c.Find("cpu-node"));
  EXPECT_TRUE(c.type(c.Find("cpu")).is_cpu);
}

TEST(BuiltInDeviceCatalogTest, NumbersMatchAlgorithmsTable) {
  const DeviceCatalog& c = DeviceCatalog::BuiltIn();
  const DeviceType& v100 = c.type(c.Find("v100"));
  EXPECT_DOUBLE_EQ(v100.fp32_flops, 15.7e12);   // ALGORITHMS.md 1.2
  EXPECT_DOUBLE_EQ(v100.tensor_flops, 125e12);
  EXPECT_DOUBLE_EQ(v100.tdp_watts, 300);
  EXPECT_DOUBLE_EQ(v100.idle_watts, 90);        // 0.3 x 300
  EXPECT_DOUBLE_EQ(v100.price_per_hour, 2.48);
  EXPECT_EQ(v100.peer_link, "nvlink2");
  const DeviceType& a100 = c.type(c.Find("a100"));
  EXPECT_DOUBLE_EQ(a100.memory_bandwidth_Bps, 1555e9);
  EXPECT_DOUBLE_EQ(a100.memory_bytes, 40.0 * 1073741824.0);
  EXPECT_EQ(a100.peer_link, "nvlink3");
  const DeviceType& cpu = c.type(c.Find("cpu"));
  EXPECT_DOUBLE_EQ(cpu.efficiency, 0.2);
}

TEST(BuiltInDeviceCatalogTest, EveryTypeIsCompleteAndItsLinksExist) {
  const DeviceCatalog& c = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  for (const DeviceType& t : c.types()) {
    SCOPED_TRACE(t.name);
    EXPECT_GT(t.fp32_flops, 0);
    EXPECT_GT(t.memory_bytes, 0);
    EXPECT_GT(t.memory_bandwidth_Bps, 0);
    EXPECT_GT(t.price_per_hour, 0);
    EXPECT_GT(t.idle_watts, 0);
    EXPECT_LT(t.idle_watts, t.tdp_watts);
    EXPECT_FALSE(t.price_source.empty());
    // Every source carries an evidence tag from ALGORITHMS.md section 0.
    EXPECT_TRUE(t.source.find("[PUB") != std::string::npos || t.source.find("[REC]") != std::string::npos)
        << t.source;
    EXPECT_NE(links.Find(t.peer_link), kNoLinkClass) << t.peer_link;
    EXPECT_NE(links.Find(t.host_link), kNoLinkClass) << t.host_link;
    EXPECT_EQ(c.type(c.Find(t.name)).name, t.name);  // names are stored lower case
  }
}

}  // namespace
}  // namespace hetsched
