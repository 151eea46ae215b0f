#include "hetsched/model/cluster.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace hetsched {
namespace {

class ClusterTest : public ::testing::Test {
 protected:
  const DeviceCatalog& devices_ = DeviceCatalog::BuiltIn();
  const LinkCatalog& links_ = LinkCatalog::BuiltIn();

  Node MakeNode(const std::string& name, RackId rack, const char* type, int n) {
    Node node;
    node.name = name;
    node.rack = rack;
    node.device_type = devices_.Find(type);
    node.num_devices = n;
    node.intra_link = links_.Find(devices_.type(node.device_type).peer_link);
    node.nic = links_.Find("eth25");
    node.cpu_cores = 16;
    node.host_memory_bytes = 1e11;
    return node;
  }
  Rack MakeRack(const std::string& name) { return Rack{name, links_.Find("eth100"), 1, 1.0, {}}; }
};

TEST_F(ClusterTest, WidestNodePerType) {
  Cluster c(&devices_, &links_);
  const RackId r0 = c.AddRack(MakeRack("r0"));
  c.AddNode(MakeNode("a", r0, "v100", 8));
  c.AddNode(MakeNode("b", r0, "k80", 4));
  c.AddNode(MakeNode("c", r0, "k80", 2));
  EXPECT_EQ(c.max_devices_per_node(), 8);
  EXPECT_EQ(c.max_devices_per_node(devices_.Find("v100")), 8);
  EXPECT_EQ(c.max_devices_per_node(devices_.Find("k80")), 4);
  EXPECT_EQ(c.max_devices_per_node(devices_.Find("p100")), 0);  // absent
  EXPECT_EQ(c.max_devices_per_node(kNoDeviceType), 0);
}

TEST_F(ClusterTest, AddNodeAssignsDevicesInOrder) {
  Cluster c(&devices_, &links_);
  const RackId r0 = c.AddRack(MakeRack("r0"));
  const RackId r1 = c.AddRack(MakeRack("r1"));
  EXPECT_EQ(c.AddNode(MakeNode("a", r0, "v100", 4)), 0);
  EXPECT_EQ(c.AddNode(MakeNode("b", r1, "k80", 2)), 1);
  EXPECT_EQ(c.AddNode(MakeNode("c", r0, "cpu", 1)), 2);
  ASSERT_TRUE(c.Validate().ok()) << c.Validate().ToString();
  // Devices: a -> 0..3, b -> 4..5, c -> 6.
  EXPECT_EQ(c.num_devices(), 7);
  EXPECT_EQ(c.node(1).first_device, 4);
  EXPECT_EQ(c.node(2).first_device, 6);
  EXPECT_EQ(c.device(5).node, 1);
  EXPECT_EQ(c.device(5).local_index, 1);
  EXPECT_EQ(c.device(5).type, devices_.Find("k80"));
  EXPECT_EQ(c.rack(r0).nodes, (std::vector<NodeId>{0, 2}));
  EXPECT_EQ(c.rack(r1).nodes, (std::vector<NodeId>{1}));
  EXPECT_EQ(c.max_devices_per_node(), 4);
  EXPECT_EQ(c.devices_per_type()[static_cast<size_t>(devices_.Find("v100"))], 4);
  // present_types() is in catalog order, whatever order the nodes came in.
  std::vector<DeviceTypeId> want{devices_.Find("v100"), devices_.Find("k80"), devices_.Find("cpu")};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(c.present_types(), want);
}

TEST_F(ClusterTest, SummaryCountsGpusAndCpuNodes) {
  Cluster c(&devices_, &links_);
  const RackId r = c.AddRack(MakeRack("r"));
  c.AddNode(MakeNode("a", r, "v100", 8));
  c.AddNode(MakeNode("b", r, "v100", 8));
  c.AddNode(MakeNode("k", r, "k80", 4));
  c.AddNode(MakeNode("cpu", r, "cpu", 1));
  // v100-16gb precedes k80 in data/devices.json.
  EXPECT_EQ(c.Summary(), "4 nodes in 1 racks, 20 GPUs: 16 v100-16gb, 4 k80; 1 CPU nodes (1 cpu-node)");
}

TEST_F(ClusterTest, ValidateCatchesEachDefect) {
  auto check = [&](auto mutate, const char* expected) {
    Cluster c(&devices_, &links_);
    Rack rack = MakeRack("r");
    Node node = MakeNode("n", 0, "v100", 8);
    mutate(rack, node);
    c.AddRack(rack);
    c.AddNode(node);
    Status s = c.Validate();
    ASSERT_FALSE(s.ok()) << expected;
    EXPECT_NE(s.message().find(expected), std::string::npos) << s.message();
  };
  check([](Rack&, Node& n) { n.num_devices = 0; }, "num_devices must be >= 1");
  check([&](Rack&, Node& n) { n.device_type = devices_.Find("cpu"); n.num_devices = 2; },
        "a CPU node counts as exactly 1 device");
  check([](Rack&, Node& n) { n.nic = kNoLinkClass; }, "nic: no link class set");
  check([](Rack&, Node& n) { n.intra_link = 99; }, "intra_link: no link class set");
  check([](Rack&, Node& n) { n.device_type = 99; }, "unknown device type id 99");
  check([](Rack&, Node& n) { n.rack = 3; }, "rack id 3 does not exist");
  check([](Rack& r, Node&) { r.uplink_count = 0; }, "uplink_count must be >= 1");
  check([](Rack& r, Node&) { r.oversubscription = 0.5; }, "oversubscription must be >= 1");
  check([](Rack&, Node& n) { n.name.clear(); }, "has no name");
}

TEST_F(ClusterTest, ValidateRejectsEmptyAndDuplicates) {
  Cluster empty(&devices_, &links_);
  EXPECT_NE(empty.Validate().message().find("no nodes"), std::string::npos);
  Cluster dup(&devices_, &links_);
  dup.AddRack(MakeRack("r"));
  dup.AddRack(MakeRack("lonely"));
  dup.AddNode(MakeNode("n", 0, "p100", 4));
  EXPECT_NE(dup.Validate().message().find("rack 1 ('lonely'): has no nodes"), std::string::npos);
  Cluster names(&devices_, &links_);
  names.AddRack(MakeRack("r"));
  names.AddNode(MakeNode("n", 0, "p100", 4));
  names.AddNode(MakeNode("n", 0, "p100", 4));
  EXPECT_NE(names.Validate().message().find("duplicate node name 'n'"), std::string::npos);
}

TEST_F(ClusterTest, ValidateRejectsZeroBandwidthLink) {
  LinkCatalog links = links_;
  LinkClass broken{"broken", "broken", 0, 1e-6, 0.8, "test"};
  const LinkClassId id = links.Add(broken);
  Cluster c(&devices_, &links);
  c.AddRack(MakeRack("r"));
  Node n = MakeNode("n", 0, "t4", 2);
  n.nic = id;
  c.AddNode(n);
  EXPECT_NE(c.Validate().message().find("link 'broken' has zero bandwidth"), std::string::npos)
      << c.Validate().message();
}

TEST_F(ClusterTest, DefaultClusterValidatesAndIsHeterogeneous) {
  auto c = DefaultCluster(devices_, links_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->Validate().ok());
  // data/default_cluster.yaml: 4x8 v100 + 4x4 p100 + 4x4 k80 + 4x8 a100 = 96 GPUs, 2 CPU nodes.
  EXPECT_EQ(c->num_devices(), 98);
  EXPECT_EQ(c->num_nodes(), 18);
  EXPECT_EQ(c->racks().size(), 3u);
  EXPECT_EQ(c->devices_per_type()[static_cast<size_t>(devices_.Find("v100"))], 32);
  EXPECT_EQ(c->devices_per_type()[static_cast<size_t>(devices_.Find("k80"))], 16);
  EXPECT_EQ(c->present_types().size(), 5u);
  EXPECT_EQ(c->max_devices_per_node(), 8);
}

}  // namespace
}  // namespace hetsched
