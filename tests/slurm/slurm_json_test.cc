#include "hetsched/slurm/slurm_json.h"

#include <gtest/gtest.h>

#include "hetsched/util/file_io.h"

namespace hetsched::slurm {
namespace {

std::string Fixture(const std::string& name) {
  auto text = ReadFile(std::string(HETSCHED_TEST_DATA_DIR) + "/slurm/" + name);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : std::string();
}

TEST(SlurmJsonTest, SinfoFixtureHasFourGpuNodes) {
  auto nodes = ParseSinfoJson(Fixture("sinfo_2a100_2v100.json"), "fixture");
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes->size(), 4u);
  EXPECT_EQ((*nodes)[0].name, "a100-1");
  EXPECT_EQ((*nodes)[0].gres, "gpu:a100:4");
  EXPECT_EQ((*nodes)[3].gres, "gpu:v100:8");
  EXPECT_EQ((*nodes)[0].cpus, 32);
  EXPECT_EQ((*nodes)[0].features, std::vector<std::string>{"a100"});
  EXPECT_EQ((*nodes)[2].partitions, (std::vector<std::string>{"all", "v100"}));
  for (const auto& n : *nodes) EXPECT_TRUE(n.Usable()) << n.name;
  for (const auto& n : *nodes) EXPECT_EQ(n.gpus_used, 0) << n.name;  // "gpu:a100:0(IDX:N\/A)"
}

TEST(SlurmJsonTest, DownNodeIsNotUsable) {
  auto nodes = ParseSinfoJson(Fixture("sinfo_node_down.json"), "fixture");
  ASSERT_TRUE(nodes.ok());
  EXPECT_EQ((*nodes)[3].state, "down");
  EXPECT_FALSE((*nodes)[3].Usable());
  EXPECT_EQ((*nodes)[3].reason, "test");
  EXPECT_TRUE((*nodes)[0].Usable());  // "mixed": one job running
}

TEST(SlurmJsonTest, SqueueFixture) {
  auto jobs = ParseSqueueJson(Fixture("squeue_mixed.json"), "fixture");
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 8u);
  const SlurmJob& held = (*jobs)[5];
  EXPECT_EQ(held.id, 6);
  EXPECT_TRUE(held.HeldByUser());
  EXPECT_EQ(held.name, "held job");
  EXPECT_EQ(held.comment, "hetsched model=resnet50 iterations=100");
  EXPECT_EQ(held.tres_per_job, "gres:gpu:2");
  const SlurmJob& typed = (*jobs)[6];
  EXPECT_EQ(typed.tres_per_node, "gres:gpu:v100:2");
  EXPECT_EQ(typed.node_count, 2);
  const SlurmJob& running = (*jobs)[7];
  EXPECT_TRUE(running.Active());
  EXPECT_EQ(running.nodes, std::vector<std::string>{"a100-1"});
  EXPECT_EQ(running.gres_detail, std::vector<std::string>{"gpu:a100:1(IDX:0)"});
  const SlurmJob& done = (*jobs)[0];
  EXPECT_TRUE(done.Terminal());
  EXPECT_EQ(done.nodes, (std::vector<std::string>{"a100-1", "a100-2"}));
  EXPECT_GT(done.end_time_s, done.start_time_s);
  // A job name with shell syntax is carried as plain text.
  EXPECT_EQ((*jobs)[4].name, "evil $(touch /tmp/pwn)");
}

TEST(SlurmJsonTest, BadJsonNamesOrigin) {
  auto r = ParseSqueueJson("{\"jobs\": [", "squeue --json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("squeue --json"), std::string::npos);
  auto missing = ParseSinfoJson("{\"nodes\": [{\"state\": \"idle\"}]}", "sinfo");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nodes[0]"), std::string::npos);
  auto errors = ParseSinfoJson("{\"errors\": [{\"error\": \"x\"}], \"nodes\": []}", "sinfo");
  EXPECT_FALSE(errors.ok());
}

TEST(HostlistTest, Expands) {
  auto r = ExpandHostlist("a100-[1-2,4],v100-3,n[08-10]x");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<std::string>{"a100-1", "a100-2", "a100-4", "v100-3", "n08x", "n09x", "n10x"}));
  EXPECT_FALSE(ExpandHostlist("a[1-2").ok());
  EXPECT_FALSE(ExpandHostlist("a[3-1]").ok());
  EXPECT_FALSE(ExpandHostlist("a]").ok());
  EXPECT_TRUE(ExpandHostlist("")->empty());
}

TEST(GresTest, ParsesForms) {
  EXPECT_EQ(ParseGpuGres("gpu:a100:4")->type, "a100");
  EXPECT_EQ(ParseGpuGres("gpu:a100:4")->count, 4);
  EXPECT_EQ(ParseGpuGres("gres:gpu:6")->count, 6);
  EXPECT_EQ(ParseGpuGres("gres:gpu:6")->type, "");
  EXPECT_EQ(ParseGpuGres("gpu:v100:8(S:0),shard:2")->count, 8);
  EXPECT_EQ(ParseGpuGres("gres/gpu:a100=2")->type, "a100");
  EXPECT_EQ(ParseGpuGres("gres/gpu:a100=2")->count, 2);
  EXPECT_EQ(ParseGpuGres("shard:2,gpumem:4")->count, 0);
  EXPECT_EQ(ParseGpuGres("")->count, 0);
  EXPECT_FALSE(ParseGpuGres("gpu:a100:x").ok());
}

// sinfo's `gres_used`: every GPU entry counts, whatever its type; an index list's commas are not
// entries; other GRES do not count.
TEST(GresTest, CountsGpusInUseOverEntries) {
  EXPECT_EQ(*CountGpuGres("gpu:v100:1(IDX:6)"), 1);
  EXPECT_EQ(*CountGpuGres("gpu:a100:1(IDX:0),gpu:v100:3(IDX:0,2-3)"), 4);
  EXPECT_EQ(*CountGpuGres("gpu:v100:0(IDX:N/A)"), 0);
  EXPECT_EQ(*CountGpuGres("gpu:2,shard:4"), 2);
  EXPECT_EQ(*CountGpuGres(""), 0);
  EXPECT_FALSE(CountGpuGres("gpu:v100:-1(IDX:0)").ok());
  const std::string bad = "{\"nodes\": [{\"name\": \"n1\", \"gres\": \"gpu:4\", \"gres_used\": \"gpu:x(IDX:0)\"}]}";
  auto nodes = ParseSinfoJson(bad, "sinfo --json");
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find("nodes[0]: field 'gres_used'"), std::string::npos) << nodes.status().message();
  auto silent = ParseSinfoJson("{\"nodes\": [{\"name\": \"n1\", \"gres\": \"gpu:4\"}]}", "sinfo --json");
  ASSERT_TRUE(silent.ok());
  EXPECT_EQ(silent->at(0).gpus_used, -1);  // not said: the agent keeps nothing out
}

TEST(GresTest, Indices) {
  EXPECT_EQ(*ParseGresIndices("gpu:a100:3(IDX:0-2)"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(*ParseGresIndices("gpu:v100:2(IDX:0,5)"), (std::vector<int>{0, 5}));
  EXPECT_TRUE(ParseGresIndices("gpu:a100:0(IDX:N/A)")->empty());
  EXPECT_FALSE(ParseGresIndices("gpu:a100:3").ok());
}

// Issue 20 (found by fuzz_slurm_json / fuzz_squeue_text): numbers out of their field's range
// were converted with undefined behaviour (1e300 CPUs to int) or wrapped (GPU index 3e9); a host
// list could expand without bound. Each is an error now.
TEST(SlurmJsonTest, OutOfRangeNumbersAreErrors) {
  auto cpus = ParseSinfoJson(R"({"nodes": [{"name": "n1", "cpus": 1e300}]})", "sinfo");
  ASSERT_FALSE(cpus.ok());
  EXPECT_EQ(cpus.status().message(), "sinfo: nodes[0]: field 'cpus' out of range [0, 10000000]");
  auto exit_code = ParseSqueueJson(R"({"jobs": [{"job_id": 1, "exit_code": 1e20}]})", "squeue");
  ASSERT_FALSE(exit_code.ok());
  EXPECT_NE(exit_code.status().message().find("field 'exit_code' out of range"), std::string::npos);
  auto nan_like = ParseSqueueJson(R"({"jobs": [{"job_id": 1, "node_count": -1}]})", "squeue");
  EXPECT_FALSE(nan_like.ok());
  EXPECT_FALSE(ParseGresIndices("gpu:a100:1(IDX:3000000000)").ok());
  EXPECT_FALSE(ParseGresIndices("gpu:a100:1(IDX:0-3000000000)").ok());
  EXPECT_FALSE(ParseGpuGres("gpu:a100:99999999999").ok());
}

TEST(HostlistTest, ExpansionIsBounded) {
  EXPECT_EQ(ExpandHostlist("n[0-99999]")->size(), 100000u);
  auto many = ExpandHostlist("a[0-60000],b[0-60000]");
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("more than 100000 hosts"), std::string::npos);
  EXPECT_FALSE(ExpandHostlist("n[0-9223372036854775807]").ok());
}

TEST(HostlistTest, ErrorsQuoteTheListSafely) {
  auto bad = ExpandHostlist(std::string("n[1-x\x1b[2J\xff]"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find('\x1b'), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("\\x1b[2J\\xff"), std::string::npos) << bad.status().message();
}
}  // namespace
}  // namespace hetsched::slurm
