#include "hetsched/slurm/cluster_translate.h"

#include <gtest/gtest.h>

#include "hetsched/util/file_io.h"

namespace hetsched::slurm {
namespace {

Result<SlurmCluster> FromFixture(const std::string& name, TranslateOptions options = {}) {
  auto text = ReadFile(std::string(HETSCHED_TEST_DATA_DIR) + "/slurm/" + name);
  if (!text.ok()) return text.status();
  auto nodes = ParseSinfoJson(*text, name);
  if (!nodes.ok()) return nodes.status();
  return TranslateCluster(*nodes, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn(), options, name);
}

TEST(ClusterTranslateTest, RecordedClusterBecomesModel) {
  auto c = FromFixture("sinfo_2a100_2v100.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const Cluster& cluster = c->cluster;
  // 2 nodes x 4 A100 + 2 nodes x 8 V100 = 8 + 16 = 24 GPUs.
  EXPECT_EQ(cluster.num_nodes(), 4);
  EXPECT_EQ(cluster.num_devices(), 24);
  const DeviceCatalog& cat = DeviceCatalog::BuiltIn();
  const DeviceTypeId a100 = cat.Find("a100"), v100 = cat.Find("v100");
  EXPECT_EQ(cat.type(a100).name, "a100-40gb");  // the catalog's alias "a100"
  EXPECT_EQ(cluster.devices_per_type()[static_cast<size_t>(a100)], 8);
  EXPECT_EQ(cluster.devices_per_type()[static_cast<size_t>(v100)], 16);
  EXPECT_EQ(cluster.node(c->Find("v100-2")).num_devices, 8);
  EXPECT_EQ(cluster.node(c->Find("a100-1")).device_type, a100);
  EXPECT_EQ(cluster.racks().size(), 2u);  // one per GPU type
  EXPECT_EQ(c->gres_type_names.at(a100), "a100");
  EXPECT_EQ(c->Find("nosuch"), -1);
}

TEST(ClusterTranslateTest, PartitionFilter) {
  TranslateOptions o;
  o.partition = "v100";
  auto c = FromFixture("sinfo_2a100_2v100.json", o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->cluster.num_nodes(), 2);
  EXPECT_EQ(c->cluster.num_devices(), 16);
  o.partition = "nosuch";
  auto none = FromFixture("sinfo_2a100_2v100.json", o);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no node with GPUs in partition 'nosuch'"), std::string::npos);
}

TEST(ClusterTranslateTest, UnknownTypeIsReportedClearly) {
  auto c = FromFixture("sinfo_unknown_type.json");
  ASSERT_FALSE(c.ok());
  const std::string m = c.status().message();
  EXPECT_NE(m.find("node 'v100-2'"), std::string::npos) << m;
  EXPECT_NE(m.find("GPU type 'h100x'"), std::string::npos) << m;
  EXPECT_NE(m.find("--gpu-type-map h100x="), std::string::npos) << m;
  EXPECT_NE(m.find("a100-40gb"), std::string::npos) << m;  // lists the known names
}

TEST(ClusterTranslateTest, TypeMapFixesUnknownType) {
  TranslateOptions o;
  o.type_map["h100x"] = "a100-80gb";
  auto c = FromFixture("sinfo_unknown_type.json", o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const DeviceTypeId t = DeviceCatalog::BuiltIn().Find("a100-80gb");
  EXPECT_EQ(c->cluster.node(c->Find("v100-2")).device_type, t);
  o.type_map["h100x"] = "cpu-node";  // not a GPU
  EXPECT_FALSE(FromFixture("sinfo_unknown_type.json", o).ok());
}

TEST(ClusterTranslateTest, UntypedGpuGresAndCpuNodes) {
  std::vector<SlurmNode> nodes(2);
  nodes[0].name = "cpu-1";
  nodes[0].gres = "";
  nodes[1].name = "g-1";
  nodes[1].gres = "gpu:2";
  auto c = TranslateCluster(nodes, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn(), {}, "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("has no type"), std::string::npos);
  nodes[1].gres = "gpu:v100:2";
  auto ok = TranslateCluster(nodes, DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn(), {}, "t");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->skipped_nodes, std::vector<std::string>{"cpu-1"});
  EXPECT_EQ(ok->cluster.num_devices(), 2);
}

}  // namespace
}  // namespace hetsched::slurm
