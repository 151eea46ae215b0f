// Gavel .trace files: both layouts, the job-type mapping, bad rows, and the real msr traces.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "trace_test_util.h"

namespace hetsched {
namespace {

using trace_test::Parse;
using trace_test::Skip;

// Seven fields: job_type, command, num_steps_arg, needs_data_dir, total_steps, arrival, num_gpus.
std::string Row7(const std::string& type, const std::string& steps, const std::string& arrival,
                 const std::string& gpus) {
  return type + "\tcd %s && python3 train.py; rm -rf /\t--steps\t1\t" + steps + "\t" + arrival + "\t" + gpus + "\n";
}

TEST(GavelFormatTest, SevenFieldRowsMapModelsAndBatches) {
  const std::string text = Row7("ResNet-50 (batch size 64)", "95121", "6.000000", "4") +
                           Row7("Transformer (batch size 128)", "27788", "0.000000", "1") +
                           Row7("LM (batch size 5)", "100", "7", "8") +
                           Row7("CycleGAN", "300", "8", "2") +
                           Row7("A3C", "400", "9", "1") +
                           Row7("Recommendation (batch size 8192)", "10", "10", "2") +
                           Row7("ResNet-18 (batch size 16)", "20", "11", "1");
  auto w = Parse(text, "gavel");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 7u);
  // Sorted by arrival: the Transformer (t=0) first.
  const JobSpec& t = w->jobs[0].spec;
  EXPECT_EQ(t.model, "transformer-nmt");
  EXPECT_EQ(t.batch_size, 128);  // 128 / 1 GPU
  EXPECT_EQ(t.iterations, 27788);
  EXPECT_EQ(w->jobs[0].truth.total_iterations, 27788.0);
  EXPECT_EQ(t.num_gpus, 1);
  EXPECT_EQ(t.parallelism, Parallelism::kSingle);
  EXPECT_EQ(t.name, "Transformer (batch size 128)");  // the command is never stored

  const JobSpec& r = w->jobs[1].spec;
  EXPECT_EQ(r.model, "resnet50");
  EXPECT_EQ(r.batch_size, 16);  // job batch 64 over 4 GPUs
  EXPECT_EQ(r.num_gpus, 4);
  EXPECT_EQ(r.parallelism, Parallelism::kDataRing);
  EXPECT_DOUBLE_EQ(r.submit_time_s, 6);
  EXPECT_EQ(r.id, 1);

  EXPECT_EQ(w->jobs[2].spec.model, "lstm-lm");
  EXPECT_EQ(w->jobs[2].spec.batch_size, 1);  // 5 / 8 rounds down to 0 -> at least 1
  EXPECT_EQ(w->jobs[3].spec.model, "cyclegan");
  EXPECT_EQ(w->jobs[3].spec.batch_size, 0);  // no batch in the type: the model's default
  EXPECT_EQ(w->jobs[4].spec.model, "a3c");
  EXPECT_EQ(w->jobs[5].spec.model, "recommendation-vae");
  EXPECT_EQ(w->jobs[5].spec.batch_size, 4096);  // 8192 / 2
  EXPECT_EQ(w->jobs[6].spec.model, "resnet18-cifar");
  for (const Job& j : w->jobs) {
    EXPECT_TRUE(std::isinf(j.spec.deadline_s));
    EXPECT_EQ(j.spec.name.find("python"), std::string::npos);
  }
}

TEST(GavelFormatTest, TenFieldRowsReadPriorityAndSlo) {
  // job_type, command, working_directory, num_steps_arg, needs_data_dir, total_steps,
  // scale_factor, priority_weight, SLO, arrival_time
  const std::string text =
      "ResNet-18 (batch size 128)\tpython3 main.py\timage_classification/cifar10\t--num_steps\t1\t36030\t2\t3\t-1.000000\t5\n"
      "A3C\tpython3 main.py\trl\t--max-steps\t1\t1000\t1\t1\t2.0\t0\n";
  auto w = Parse(text, "gavel");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 2u);
  const JobSpec& resnet = w->jobs[1].spec;
  EXPECT_EQ(resnet.model, "resnet18-cifar");
  EXPECT_EQ(resnet.iterations, 36030);
  EXPECT_EQ(resnet.num_gpus, 2);
  EXPECT_EQ(resnet.batch_size, 64);
  EXPECT_EQ(resnet.priority, 3);
  EXPECT_DOUBLE_EQ(resnet.submit_time_s, 5);
  EXPECT_TRUE(std::isinf(resnet.deadline_s));  // SLO -1 = none
  // SLO 2: deadline = arrival 0 + 2 x (1000 iterations x the calibrated iteration time).
  const JobSpec& a3c = w->jobs[0].spec;
  auto cal = RuntimeCalibrator::Create(trace_test::Devices(), LinkCatalog::BuiltIn(), "v100");
  ASSERT_TRUE(cal.ok());
  auto it_s = cal->IterationSeconds(**trace_test::Zoo().Lookup("a3c"), 0, 1);
  ASSERT_TRUE(it_s.ok());
  EXPECT_DOUBLE_EQ(a3c.deadline_s, 2.0 * 1000 * *it_s);
}

TEST(GavelFormatTest, BadRowsNameLineAndField) {
  const std::string good = Row7("A3C", "10", "0", "1");
  struct Case {
    std::string row;
    const char* expected;
  } cases[] = {
      {"A3C\tcmd\t--s\t1\t10\t0\n", "t.csv:2: wrong field count: expected 7 or 10 tab-separated fields, got 6"},
      {Row7("GPT-7 (batch size 8)", "10", "0", "1"), "t.csv:2: field 'job_type': unknown Gavel model 'GPT-7'"},
      {Row7("ResNet-50 (batch size x)", "10", "0", "1"), "t.csv:2: field 'job_type': expected an integer, got 'x'"},
      {Row7("ResNet-50 (batch size 0)", "10", "0", "1"), "t.csv:2: field 'job_type': batch size must be >= 1"},
      {Row7("ResNet-50 (batch size 8", "10", "0", "1"), "t.csv:2: field 'job_type': expected 'Model (batch size N)'"},
      {Row7("A3C", "0", "0", "1"), "t.csv:2: field 'total_steps': must be >= 1 iteration, got 0"},
      {Row7("A3C", "ten", "0", "1"), "t.csv:2: field 'total_steps': expected an integer"},
      {Row7("A3C", "10", "-1", "1"), "t.csv:2: field 'arrival_time_seconds': must be >= 0 seconds"},
      {Row7("A3C", "10", "0", "0"), "t.csv:2: field 'num_gpus': GPU count must be >= 1, got 0"},
      {Row7("A3C", "10", "0", "-8"), "t.csv:2: field 'num_gpus': GPU count must be >= 1, got -8 (negative)"},
      {"A3C\tc\tw\t-n\t1\t10\t0\t1\t-1\t0\n", "t.csv:2: field 'scale_factor': GPU count must be >= 1, got 0"},
      {"A3C\tc\tw\t-n\t1\t10\t1\t-1\t-1\t0\n", "t.csv:2: field 'priority_weight': must be in [0, 1e6]"},
      {"A3C\tc\tw\t-n\t1\t10\t1\t1\tsoon\t0\n", "t.csv:2: field 'SLO': expected a number"},
      {"A3C\tc\tw\t-n\t1\t10\t1\t1\t-1\tlater\n", "t.csv:2: field 'arrival_time': expected a number"},
  };
  for (const Case& c : cases) {
    auto w = Parse(good + c.row, "gavel");
    ASSERT_FALSE(w.ok()) << c.row;
    EXPECT_NE(w.status().message().find(c.expected), std::string::npos)
        << c.row << "\nmessage: " << w.status().message();
    auto skipped = Parse(good + c.row + good, "gavel", Skip());
    ASSERT_TRUE(skipped.ok()) << c.row;
    EXPECT_EQ(skipped->jobs.size(), 2u);
    EXPECT_EQ(skipped->rows_skipped, 1);
  }
}

TEST(GavelFormatTest, EmptyFileIsAnError) {
  auto w = Parse("\n\n", "gavel");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("t.csv: empty file"), std::string::npos);
}

TEST(GavelFormatTest, EveryRealTraceParsesFully) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(HETSCHED_SOURCE_DIR) / "data/real/gavel/traces";
  ASSERT_TRUE(fs::exists(dir));
  long long total = 0;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".trace") continue;
    // Expected count: one job per non-empty line.
    std::ifstream in(entry.path());
    std::string line;
    long long lines = 0;
    while (std::getline(in, line)) lines += line.empty() ? 0 : 1;
    auto w = ReadTrace(entry.path().string(), "auto", {}, trace_test::Devices(), trace_test::Zoo());
    ASSERT_TRUE(w.ok()) << entry.path() << ": " << w.status().ToString();
    EXPECT_EQ(static_cast<long long>(w->jobs.size()), lines) << entry.path();
    EXPECT_EQ(w->rows_skipped, 0);
    for (size_t i = 1; i < w->jobs.size(); ++i) {
      ASSERT_LE(w->jobs[i - 1].spec.submit_time_s, w->jobs[i].spec.submit_time_s);
    }
    total += lines;
    ++files;
  }
  EXPECT_EQ(files, 16);
  EXPECT_EQ(total, 15279);  // data/real/SOURCES.md: 15 msr traces + the 15-job physical trace
}

TEST(GavelFormatTest, TheEmbeddedDemoTraceReads) {
  // data/traces/ is compiled in: this reads the embedded copy when run from any directory.
  auto w = ReadTrace("data/traces/demo_gavel_msr_2869ce.trace", "auto", {}, trace_test::Devices(),
                     trace_test::Zoo());
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->jobs.size(), 533u);  // wc -l of the msr_seed0_2869ce trace
}

}  // namespace
}  // namespace hetsched
