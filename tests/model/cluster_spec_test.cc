#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "hetsched/model/cluster.h"

namespace hetsched {
namespace {

class ClusterSpecTest : public ::testing::Test {
 protected:
  const DeviceCatalog& devices_ = DeviceCatalog::BuiltIn();
  const LinkCatalog& links_ = LinkCatalog::BuiltIn();

  Result<Cluster> Parse(const std::string& yaml) {
    return ParseClusterSpec(yaml, "c.yaml", devices_, links_);
  }
  // Expects a parse failure whose message contains `expected`.
  void ExpectError(const std::string& yaml, const std::string& expected) {
    auto r = Parse(yaml);
    ASSERT_FALSE(r.ok()) << "accepted:\n" << yaml;
    EXPECT_NE(r.status().message().find(expected), std::string::npos)
        << "message: " << r.status().message() << "\nexpected: " << expected;
  }
  LinkClassId Link(const char* name) { return links_.Find(name); }
};

constexpr const char* kGolden = R"(name: golden
defaults:
  nic: eth10
  cpu_cores: 24
  host_memory_gib: 128
racks:
  - name: fast
    uplink: ib-hdr
    uplink_count: 4
    oversubscription: 2
    nodes:
      - device: V100
        num_devices: 8
        count: 2
        nic: ib-edr
      - device: a100-40gb
        num_devices: 4
        name: dgx
        intra_link: pcie4
  - nodes:
      - device: k80
        num_devices: 4
        count: 3
        name_prefix: old
      - device: cpu
        count: 2
)";

TEST_F(ClusterSpecTest, GoldenSpec) {
  auto r = Parse(kGolden);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Cluster& c = *r;
  // Nodes: 2 v100 (8 each) + 1 a100 (4) + 3 k80 (4 each) + 2 CPU = 8 nodes;
  // devices: 16 + 4 + 12 + 2 = 34.
  ASSERT_EQ(c.num_nodes(), 8);
  EXPECT_EQ(c.num_devices(), 34);
  ASSERT_EQ(c.racks().size(), 2u);

  const Rack& fast = c.rack(0);
  EXPECT_EQ(fast.name, "fast");
  EXPECT_EQ(fast.uplink, Link("ib-hdr"));
  EXPECT_EQ(fast.uplink_count, 4);
  EXPECT_DOUBLE_EQ(fast.oversubscription, 2.0);
  EXPECT_EQ(fast.nodes, (std::vector<NodeId>{0, 1, 2}));
  const Rack& second = c.rack(1);
  EXPECT_EQ(second.name, "rack1");              // generated from the index
  EXPECT_EQ(second.uplink, Link("eth100"));     // built-in default uplink
  EXPECT_EQ(second.uplink_count, 1);
  EXPECT_EQ(second.nodes, (std::vector<NodeId>{3, 4, 5, 6, 7}));

  EXPECT_EQ(c.node(0).name, "fast-node0");
  EXPECT_EQ(c.node(1).name, "fast-node1");
  EXPECT_EQ(c.node(0).device_type, devices_.Find("v100-16gb"));
  EXPECT_EQ(c.node(0).nic, Link("ib-edr"));
  EXPECT_EQ(c.node(0).intra_link, Link("nvlink2"));  // the V100's peer link by default
  EXPECT_EQ(c.node(0).cpu_cores, 24);                 // from defaults:
  EXPECT_DOUBLE_EQ(c.node(0).host_memory_bytes, 128.0 * 1073741824.0);
  EXPECT_EQ(c.node(2).name, "dgx");
  EXPECT_EQ(c.node(2).intra_link, Link("pcie4"));    // explicit override
  EXPECT_EQ(c.node(2).nic, Link("eth10"));           // defaults.nic
  EXPECT_EQ(c.node(2).first_device, 16);
  EXPECT_EQ(c.node(3).name, "old0");
  EXPECT_EQ(c.node(5).name, "old2");
  EXPECT_EQ(c.node(5).rack, 1);
  EXPECT_EQ(c.node(6).name, "rack1-node0");
  EXPECT_EQ(c.node(7).name, "rack1-node1");
  EXPECT_EQ(c.node(7).num_devices, 1);
  EXPECT_EQ(c.node(7).intra_link, Link("loopback"));
  EXPECT_EQ(c.node(7).first_device, 33);
}

TEST_F(ClusterSpecTest, JsonSpecParsesToo) {
  auto r = Parse(R"({"racks": [{"nodes": [{"device": "t4", "num_devices": 2, "count": 3}]}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_devices(), 6);  // 3 nodes x 2
  EXPECT_EQ(r->node(0).nic, Link("eth25"));  // built-in default NIC
}

TEST_F(ClusterSpecTest, LoadFromFileNamesThePath) {
  const std::string path = ::testing::TempDir() + "/cluster_spec_test.yaml";
  {
    std::ofstream out(path);
    out << "racks:\n  - nodes:\n      - device: v200\n        num_devices: 2\n";
  }
  auto r = LoadClusterSpec(path, devices_, links_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path + ":3: racks[0].nodes[0].device: unknown device type 'v200' (known: a100-40gb"),
            std::string::npos)
      << r.status().message();
  auto missing = LoadClusterSpec(::testing::TempDir() + "/nope.yaml", devices_, links_);
  EXPECT_FALSE(missing.ok());
}

TEST_F(ClusterSpecTest, Errors) {
  const std::string node = "racks:\n  - nodes:\n      - device: p100\n        num_devices: 4\n";
  ExpectError("", "c.yaml: empty cluster spec");
  ExpectError("racks: [\n  {nodes: \n", "c.yaml:3:");  // unterminated flow sequence
  ExpectError("racks:\n  - nodes: [\n", "YAML syntax error");
  ExpectError("name: x\n", "racks: must be a non-empty list (the cluster is empty)");
  ExpectError("racks: []\n", "racks: must be a non-empty list");
  ExpectError("racks:\n  - name: r\n", "c.yaml:2: racks[0].nodes: must be a non-empty list");
  ExpectError("rack:\n  - {}\n", "c.yaml:1: (top level): unknown field 'rack'");
  ExpectError(node + "        gpus: 3\n", "c.yaml:5: racks[0].nodes[0]: unknown field 'gpus'");
  ExpectError("racks:\n  - nodes:\n      - num_devices: 4\n", "racks[0].nodes[0].device: is missing");
  ExpectError("racks:\n  - nodes:\n      - device: p100\n", "racks[0].nodes[0].num_devices: is missing");
  ExpectError(node + "        count: 0\n", "c.yaml:5: racks[0].nodes[0].count: must be >= 1, got 0");
  ExpectError(node + "        count: -2\n", "racks[0].nodes[0].count: must be >= 1, got -2");
  ExpectError(node + "        count: two\n", "racks[0].nodes[0].count: value: expected an integer, got 'two'");
  ExpectError("racks:\n  - nodes:\n      - device: p100\n        num_devices: 0\n",
              "racks[0].nodes[0].num_devices: must be >= 1");
  ExpectError("racks:\n  - nodes:\n      - device: cpu\n        num_devices: 2\n",
              "racks[0].nodes[0].num_devices: a CPU node counts as exactly 1 device");
  ExpectError(node + "        nic: eth40\n", "c.yaml:5: racks[0].nodes[0].nic: unknown link class 'eth40' (known: nvlink3");
  ExpectError(node + "        intra_link: nvlink9\n", "racks[0].nodes[0].intra_link: unknown link class 'nvlink9'");
  ExpectError(node + "        host_memory_gib: 0\n", "racks[0].nodes[0].host_memory_gib: must be > 0");
  ExpectError(node + "        count: 2\n        name: solo\n", "racks[0].nodes[0].name: only for a single node");
  ExpectError("racks:\n  - uplink: carrier-pigeon\n    nodes:\n      - device: p100\n        num_devices: 4\n",
              "c.yaml:2: racks[0].uplink: unknown link class 'carrier-pigeon'");
  ExpectError("racks:\n  - uplink_count: 0\n    nodes:\n      - device: p100\n        num_devices: 4\n",
              "racks[0].uplink_count: must be >= 1");
  ExpectError("racks:\n  - oversubscription: 0.5\n    nodes:\n      - device: p100\n        num_devices: 4\n",
              "racks[0].oversubscription: must be >= 1");
  ExpectError("defaults:\n  nic: eth7\n" + node, "c.yaml:2: defaults.nic: unknown link class 'eth7'");
  ExpectError("defaults:\n  cores: 3\n" + node, "defaults: unknown field 'cores'");
  ExpectError("defaults:\n  cpu_cores: 0\n" + node, "defaults.cpu_cores: must be >= 1");
  ExpectError("racks:\n  - nodes:\n      - device: p100\n        num_devices: 4\n        name: a\n"
              "      - device: p100\n        num_devices: 4\n        name: a\n",
              "racks[0].nodes[1]: duplicate node name 'a' (also made by racks[0].nodes[0])");
  ExpectError("racks:\n  - name: r\n    nodes:\n      - {device: p100, num_devices: 4}\n"
              "  - name: r\n    nodes:\n      - {device: p100, num_devices: 4}\n",
              "racks[1].name: duplicate rack name 'r'");
  ExpectError("racks:\n  - nodes:\n      - [p100, 4]\n", "racks[0].nodes[0]: must be a mapping");
}

// Issue 20: limits up front. A spec cannot ask for more devices than hetsched simulates (the
// check comes before any node is made), and every integer has an upper bound.
TEST_F(ClusterSpecTest, TooLargeIsRefusedBeforeBuilding) {
  const std::string node = "racks:\n  - nodes:\n      - device: p100\n";
  ExpectError(node + "        num_devices: 4\n        count: 999999999999\n",
              "racks[0].nodes[0].count: must be <= 1048576, got 999999999999");
  ExpectError(node + "        num_devices: 1025\n", "racks[0].nodes[0].num_devices: must be <= 1024, got 1025");
  ExpectError(node + "        num_devices: 1024\n        count: 1024\n" +
                  "      - {device: k80, num_devices: 1, count: 1}\n",
              "racks[0].nodes[1]: the cluster would hold 1048577 devices, more than the 1048576 hetsched simulates");
  ExpectError(node + "        num_devices: 4\n        cpu_cores: 4294967297\n",
              "racks[0].nodes[0].cpu_cores: must be <= 1000000");
}

// Issue 20: a cluster the machine's memory cannot hold is refused before any node is made, with
// what it would need (256 bytes a device: 4,096 devices need 1 MiB; the limit stands in for
// the machine's available memory).
TEST_F(ClusterSpecTest, TooLargeForMemoryIsRefusedWithWhatItNeeds) {
  const std::string spec = "racks:\n  - nodes:\n      - device: p100\n        num_devices: 8\n        count: 512\n";
  auto refused = ParseClusterSpec(spec, "c.yaml", DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn(), 512 * 1024);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "c.yaml: racks[0].nodes[0]: a cluster of 4096 devices needs about 1.0 MiB of memory; this machine has "
            "512 KiB available");
  auto fits = ParseClusterSpec(spec, "c.yaml", DeviceCatalog::BuiltIn(), LinkCatalog::BuiltIn(), 2 * 1024 * 1024);
  ASSERT_TRUE(fits.ok()) << fits.status().message();
  EXPECT_EQ(fits->num_devices(), 4096);
}

// Issue 20: text quoted from the spec is escaped and bounded.
TEST_F(ClusterSpecTest, ErrorsQuoteTheSpecSafely) {
  auto r = Parse("racks:\n  - nodes:\n      - device: \"v\\e[2J\\x07\\u202e\"\n        num_devices: 4\n");
  ASSERT_FALSE(r.ok());
  const std::string m = r.status().message();
  EXPECT_NE(m.find("unknown device type 'v\\x1b[2J\\x07\\xe2\\x80\\xae'"), std::string::npos) << m;
  auto key = Parse("racks:\n  - nodes:\n      - device: p100\n        num_devices: 4\n        " +
                   std::string(300, 'k') + ": 1\n");
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find("unknown field '" + std::string(64, 'k') + "...' (300 bytes)"),
            std::string::npos) << key.status().message();
}

TEST_F(ClusterSpecTest, ZeroBandwidthLinkIsRejected) {
  LinkCatalog links = links_;
  links.Add(LinkClass{"dead", "dead", 0, 0, 0.8, "test"});
  auto r = ParseClusterSpec("racks:\n  - nodes:\n      - {device: t4, num_devices: 1, nic: dead}\n",
                            "z.yaml", devices_, links);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("z.yaml:3: racks[0].nodes[0].nic: link 'dead' has zero bandwidth"),
            std::string::npos)
      << r.status().message();
}

// --- shorthand clusters ---

TEST_F(ClusterSpecTest, ShorthandCluster) {
  // 36 devices of each type, 4 per node: 9 nodes per type, one rack per type.
  auto r = MakeShorthandCluster({{"v100", 36}, {"p100", 36}, {"k80", 36}}, 4, devices_, links_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_nodes(), 27);
  EXPECT_EQ(r->num_devices(), 108);
  ASSERT_EQ(r->racks().size(), 3u);
  EXPECT_EQ(r->rack(1).name, "p100");
  EXPECT_EQ(r->rack(1).nodes.size(), 9u);
  EXPECT_EQ(r->node(0).name, "v100-16gb-node0");
  EXPECT_EQ(r->node(0).intra_link, Link("nvlink2"));
  EXPECT_EQ(r->node(9).intra_link, Link("pcie3"));
  EXPECT_EQ(r->node(0).nic, Link("eth25"));
}

TEST_F(ClusterSpecTest, ShorthandLastNodeHoldsRemainder) {
  // 10 A100s, 8 per node: nodes of 8 and 2 (ceil(10/8) = 2 nodes, exactly 10 devices).
  auto r = MakeShorthandCluster({{"a100", 10}, {"cpu", 3}}, 8, devices_, links_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->node(0).num_devices, 8);
  EXPECT_EQ(r->node(1).num_devices, 2);
  EXPECT_EQ(r->num_nodes(), 5);  // 2 GPU nodes + 3 CPU nodes (one device each)
  EXPECT_EQ(r->num_devices(), 13);
}

TEST(TypeCountsTest, ParsesTheListAndNamesTheBadEntry) {
  auto ok = ParseTypeCounts(" v100=36, k80 = 4 ,a100-40gb=0", "--gpus");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(*ok, (std::vector<std::pair<std::string, int>>{{"v100", 36}, {"k80", 4}, {"a100-40gb", 0}}));
  auto pool = ParseTypeCounts("cpu-node,t4=3", "--pool", /*count_optional=*/true);
  ASSERT_TRUE(pool.ok()) << pool.status().message();
  EXPECT_EQ(*pool, (std::vector<std::pair<std::string, int>>{{"cpu-node", 0}, {"t4", 3}}));
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {"", "--gpus: empty (expected TYPE=COUNT,...)"},
           {"v100", "--gpus: entry 'v100': expected TYPE=COUNT"},
           {"v100=8x", "--gpus: entry 'v100=8x': the count must be a whole number >= 0"},
           {"v100=nan", "--gpus: entry 'v100=nan': the count must be a whole number >= 0"},
           {"v100=-2", "--gpus: entry 'v100=-2': the count must be a whole number >= 0"},
           {"v100=1.5", "--gpus: entry 'v100=1.5': the count must be a whole number >= 0"},
           {"v100=99999999999", "--gpus: entry 'v100=99999999999': the count must be a whole number >= 0"},
           {"v100=4,", "--gpus: entry '': no type (expected TYPE=COUNT)"},
           {"=4", "--gpus: entry '=4': no type (expected TYPE=COUNT)"}}) {
    auto r = ParseTypeCounts(bad, "--gpus");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), says) << bad;
  }
}

TEST_F(ClusterSpecTest, ShorthandErrors) {
  EXPECT_FALSE(MakeShorthandCluster({}, 4, devices_, links_).ok());
  EXPECT_NE(MakeShorthandCluster({{"v100", 4}}, 0, devices_, links_).status().message().find("devices per node must be >= 1"),
            std::string::npos);
  EXPECT_NE(MakeShorthandCluster({{"v200", 4}}, 4, devices_, links_).status().message().find("unknown device type 'v200'"),
            std::string::npos);
  EXPECT_NE(MakeShorthandCluster({{"v100", 0}}, 4, devices_, links_).status().message().find("count must be >= 1"),
            std::string::npos);
  EXPECT_NE(MakeShorthandCluster({{"v100", 4}, {"V100-16GB", 4}}, 4, devices_, links_).status().message().find("listed twice"),
            std::string::npos);
}

}  // namespace
}  // namespace hetsched
