// The goodput jobs' two files (slurm/goodput_files.h): a metrics line parsed strictly (errors name
// file:line and the field), a metrics file read incrementally with a last line still being
// written left for later, and the allocation written whole.
#include "hetsched/slurm/goodput_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "hetsched/util/file_io.h"

namespace hetsched::slurm {
namespace {

constexpr const char* kGood =
    R"({"v":1,"gpus":2,"nodes":1,"local_bsz":64,"accum_steps":1,"accum_step_s":0.1,"optim_step_s":0.125,)"
    R"("grad_sqr":0.5,"grad_var":2,"progress":300.5})";

std::string TempDir(const std::string& name) {
  const std::string dir =
      ::testing::TempDir() + "/hetsched_goodput_files_" + std::to_string(getpid()) + "_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

void Append(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::app) << text; }

TEST(GoodputFilesTest, AReportLineIsParsedWithEveryField) {
  auto r = ParseGoodputReport(kGood, "m:1");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->gpus, 2);
  EXPECT_EQ(r->nodes, 1);
  EXPECT_EQ(r->local_bsz, 64);
  EXPECT_EQ(r->accum_steps, 1);
  EXPECT_DOUBLE_EQ(r->accum_step_s, 0.1);
  EXPECT_DOUBLE_EQ(r->optim_step_s, 0.125);
  ASSERT_TRUE(r->grad.has_value());
  EXPECT_DOUBLE_EQ(r->grad->sqr, 0.5);
  EXPECT_DOUBLE_EQ(r->grad->var, 2);
  EXPECT_DOUBLE_EQ(r->progress, 300.5);
  // Without gradient statistics (both absent) it is a measurement of times alone.
  auto times = ParseGoodputReport(
      R"({"v":1,"gpus":1,"nodes":1,"local_bsz":8,"accum_steps":0,"accum_step_s":0.1,"optim_step_s":0.1,"progress":0})",
      "m:2");
  ASSERT_TRUE(times.ok()) << times.status().message();
  EXPECT_FALSE(times->grad.has_value());
}

TEST(GoodputFilesTest, ABadLineNamesFileLineAndField) {
  struct Case {
    std::string line, needle;
  };
  const std::string base =
      R"("v":1,"gpus":2,"nodes":1,"local_bsz":64,"accum_steps":0,"accum_step_s":0.1,"progress":1)";
  for (
      const Case& c : std::vector<Case>{
          {"not json", "m.metrics:7: not a JSON object"},
          {"{" + base + "}", "m.metrics:7: field 'optim_step_s': missing"},
          {"{" + base + R"(,"optim_step_s":-1})", "field 'optim_step_s': must be finite and > 0"},
          {"{" + base + R"(,"optim_step_s":"fast"})", "field 'optim_step_s': must be a number"},
          {"{" + base + R"(,"optim_step_s":1,"colour":1})", "field 'colour': unknown field"},
          // A key or value the job wrote is quoted safely (fuzz_goodput_files: a DEL reached the message).
          {"{" + base + R"(,"optim_step_s":1,"co\u007flour":1})", "field 'co\\x7flour': unknown field"},
          {"{" + base + R"(,"optim_step_s":"\u009b2J"})", "must be a number, got \"\\xc2\\x9b2J\""},
          {"{" + base + R"(,"optim_step_s":1,"grad_sqr":1})", "field 'grad_var': missing"},
          {R"({"v":2,"gpus":2,"nodes":1,"local_bsz":64,"accum_steps":0,"accum_step_s":0.1,"optim_step_s":1,"progress":1})",
           "field 'v': format version 2 is not supported"},
          {R"({"v":1,"gpus":1,"nodes":2,"local_bsz":64,"accum_steps":0,"accum_step_s":0.1,"optim_step_s":1,"progress":1})",
           "field 'nodes': more nodes than GPUs"},
          {R"({"v":1,"gpus":1.5,"nodes":1,"local_bsz":64,"accum_steps":0,"accum_step_s":0.1,"optim_step_s":1,"progress":1})",
           "field 'gpus': must be an integer"},
      }) {
    auto r = ParseGoodputReport(c.line, "m.metrics:7");
    ASSERT_FALSE(r.ok()) << c.line;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().message();
  }
}

TEST(GoodputFilesTest, TheTailReadsWholeLinesOnceAndWaitsForAPartialLastLine) {
  const std::string dir = TempDir("tail");
  std::filesystem::create_directories(dir);
  const std::string path = MetricsPath(dir, 7);
  EXPECT_EQ(path, dir + "/7.metrics");
  MetricsTail tail(path);
  auto none = tail.Read();  // no file yet: the job has reported nothing
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->empty());
  Append(path, "one\ntw");
  auto first = tail.Read();
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].text, "one");
  EXPECT_EQ((*first)[0].number, 1);
  EXPECT_EQ((*first)[0].end, 4);
  EXPECT_TRUE(tail.Read()->empty());  // "tw" is still being written
  Append(path, "o\nthree\n");
  auto rest = tail.Read();
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 2u);
  EXPECT_EQ((*rest)[0].text, "two");
  EXPECT_EQ((*rest)[0].number, 2);
  EXPECT_EQ((*rest)[1].text, "three");
  EXPECT_EQ(tail.offset(), 14);
  // Resumed where a restarted agent stopped: only what follows.
  Append(path, "four\n");
  MetricsTail resumed(path, 14, 3);
  auto after = resumed.Read();
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].text, "four");
  EXPECT_EQ((*after)[0].number, 4);
  // A file cut shorter than what was read is an error, not a silent restart.
  EXPECT_EQ(resumed.reads(), 1);
  std::filesystem::resize_file(path, 3);
  auto cut = resumed.Read();
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("truncated"), std::string::npos) << cut.status().message();
  std::filesystem::remove_all(dir);
}

TEST(GoodputFilesTest, ABadAllocationNamesWhereAndTheField) {
  const std::string base =
      R"("v":1,"job":3,"type":"t4","nodes":["n1"],"placement":[2],"adaptive":false,"restarts":0)";
  // A v1 file from before `seq` reads as seq 0.
  auto old =
      DecodeGoodputAlloc("{" + base + R"(,"gpus":2,"local_bsz":8,"accum_steps":1,"batch_size":32})", "j:4");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(old->seq, 0);
  EXPECT_EQ(old->batch_size, 32);
  struct Case {
    std::string text, needle;
  };
  for (const Case& c : std::vector<Case>{
           {"[]", "j:4: not a JSON object"},
           {"{" + base + R"(,"gpus":2,"local_bsz":8,"accum_steps":1})", "j:4: field 'batch_size': missing"},
           {"{" + base + R"(,"gpus":2,"local_bsz":8,"accum_steps":1,"batch_size":16})",
            "field 'batch_size': is not gpus x local_bsz x (accum_steps + 1)"},
           {"{" + base + R"(,"gpus":3,"local_bsz":8,"accum_steps":1,"batch_size":48})",
            "field 'gpus': is not the sum of 'placement' (2)"},
           {"{" + base + R"(,"gpus":2,"local_bsz":8,"accum_steps":1,"batch_size":32,"seq":-1})",
            "field 'seq': must be in [0, 1e9]"},
           {"{" + base + R"(,"gpus":2,"local_bsz":8,"accum_steps":1,"batch_size":32,"colour":1})",
            "field 'colour': unknown field"},
       }) {
    auto r = DecodeGoodputAlloc(c.text, "j:4");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().message();
  }
}

// The agent polls every placed job's file: one stat each, and a file whose size and modification
// time are those of the last read is not opened. The proof: a line put where a partial one was,
// the size and time kept, is not seen until the time changes.
TEST(GoodputFilesTest, TheTailReadsAFileOnlyWhenItsSizeOrTimeChanged) {
  const std::string dir = TempDir("unchanged");
  std::filesystem::create_directories(dir);
  const std::string path = MetricsPath(dir, 8);
  Append(path, "one\ntw");
  MetricsTail tail(path);
  auto first = tail.Read();
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ(tail.reads(), 1);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(tail.Read()->empty());
  EXPECT_EQ(tail.reads(), 1);  // not grown: not opened
  const auto time = std::filesystem::last_write_time(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out);
    f.seekp(4);
    f << "t\n";  // "one\nt\n": the same 6 bytes
  }
  std::filesystem::last_write_time(path, time);
  EXPECT_TRUE(tail.Read()->empty());
  EXPECT_EQ(tail.reads(), 1);
  std::filesystem::last_write_time(path, time + std::chrono::seconds(1));
  auto changed = tail.Read();
  ASSERT_TRUE(changed.ok());
  ASSERT_EQ(changed->size(), 1u);
  EXPECT_EQ((*changed)[0].text, "t");
  EXPECT_EQ(tail.reads(), 2);
  Append(path, "three\n");  // grown
  auto grown = tail.Read();
  ASSERT_TRUE(grown.ok());
  ASSERT_EQ(grown->size(), 1u);
  EXPECT_EQ((*grown)[0].text, "three");
  EXPECT_EQ(tail.reads(), 3);
  std::filesystem::remove_all(dir);
}

TEST(GoodputFilesTest, TheAllocationIsWrittenWholeAndTheDirectoryChecked) {
  const std::string dir = TempDir("alloc");
  ASSERT_TRUE(PrepareGoodputDir(dir).ok());  // created
  GoodputAlloc a;
  a.job = 12;
  a.type = "v100-16gb";
  a.nodes = {"v100-1", "v100-2"};
  a.placement = {8, 4};
  a.batch_size = 1536;
  a.local_bsz = 64;
  a.accum_steps = 1;
  a.adaptive = true;
  a.restarts = 2;
  a.seq = 5;
  ASSERT_TRUE(WriteGoodputAlloc(dir, a).ok());
  auto text = ReadFile(AllocPath(dir, 12));
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            R"({"accum_steps":1,"adaptive":true,"batch_size":1536,"gpus":12,"job":12,"local_bsz":64,)"
            R"("nodes":["v100-1","v100-2"],"placement":[8,4],"restarts":2,"seq":5,"type":"v100-16gb","v":1})"
            "\n");
  // Read back whole (as a restarted agent reads its journaled allocations).
  auto back = DecodeGoodputAlloc(*text, "a.alloc");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(GoodputAllocJson(*back) + "\n", *text);
  // Only the allocation is left: no temp file, no probe.
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
  // A directory that cannot be made is a clear error naming it.
  Status bad = PrepareGoodputDir("/dev/null/goodput");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("goodput directory /dev/null/goodput"), std::string::npos) << bad.message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetsched::slurm
