// Shared reader pieces: field parsing, splitting, headers, the bad-row policy and the builder.
#include "hetsched/trace/reader_common.h"

#include <gtest/gtest.h>

#include "trace_test_util.h"

namespace hetsched::trace_internal {
namespace {

const RowRef kRow{"f.csv", 12};

TEST(ReaderCommonTest, FieldParsersAcceptAndReject) {
  long long i = 0;
  EXPECT_TRUE(ParseIntField(kRow, "n", " 42 ", &i).ok());
  EXPECT_EQ(i, 42);
  EXPECT_TRUE(ParseIntField(kRow, "n", "4.0", &i).ok());  // pandas-style integral float
  EXPECT_EQ(i, 4);
  EXPECT_EQ(ParseIntField(kRow, "n", "4.5", &i).message(), "f.csv:12: field 'n': expected an integer, got '4.5'");
  EXPECT_EQ(ParseIntField(kRow, "n", "", &i).message(), "f.csv:12: field 'n': expected an integer, got ''");
  double d = 0;
  EXPECT_TRUE(ParseDoubleField(kRow, "x", "1e3", &d).ok());
  EXPECT_EQ(d, 1000);
  EXPECT_EQ(ParseDoubleField(kRow, "x", "inf", &d).message(), "f.csv:12: field 'x': expected a number, got 'inf'");
  EXPECT_EQ(ParseDoubleField(kRow, "x", "1x", &d).message(), "f.csv:12: field 'x': expected a number, got '1x'");
  EXPECT_EQ(ParseSecondsField(kRow, "t", "-1", &d).message(), "f.csv:12: field 't': must be >= 0 seconds, got -1");
  int g = 0;
  EXPECT_TRUE(ParseGpuCountField(kRow, "g", "8", &g).ok());
  EXPECT_EQ(g, 8);
  EXPECT_EQ(ParseGpuCountField(kRow, "g", "0", &g).message(),
            "f.csv:12: field 'g': GPU count must be >= 1, got 0 (a job needs a GPU)");
  EXPECT_EQ(ParseGpuCountField(kRow, "g", "-3", &g).message(),
            "f.csv:12: field 'g': GPU count must be >= 1, got -3 (negative)");
  EXPECT_FALSE(ParseGpuCountField(kRow, "g", "99999999", &g).ok());
  int64_t it = 0;
  EXPECT_EQ(ParseIterationsField(kRow, "i", "0", &it).message(), "f.csv:12: field 'i': must be >= 1 iteration, got 0");
}

TEST(ReaderCommonTest, SplittingPlainAndQuotedRows) {
  std::vector<std::string_view> f;
  SplitInto("a,,b", ',', &f);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[1], "");
  CsvRowSplitter s;
  ASSERT_TRUE(s.Split(kRow, "x,\"y,z\",\"q\"\"\"").ok());
  ASSERT_EQ(s.fields().size(), 3u);
  EXPECT_EQ(s.fields()[1], "y,z");
  EXPECT_EQ(s.fields()[2], "q\"");
  EXPECT_EQ(s.Split(kRow, "\"open").message(), "f.csv:12: unterminated quoted field");
}

TEST(ReaderCommonTest, ColumnMapFindsRequiredAndOptionalColumns) {
  constexpr std::string_view req[] = {"a", "b"};
  constexpr std::string_view opt[] = {"c"};
  auto m = ColumnMap::FromHeader(kRow, " b ,c,a", req, opt, false);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Index("a"), 2);
  EXPECT_EQ(m->Index("b"), 0);
  EXPECT_EQ(m->Index("zz"), -1);
  EXPECT_FALSE(ColumnMap::FromHeader(kRow, "a,b,zz", req, opt, false).ok());
  EXPECT_TRUE(ColumnMap::FromHeader(kRow, "a,b,zz", req, opt, true).ok());
  auto missing = ColumnMap::FromHeader(kRow, "a,c", req, opt, false);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message().rfind("f.csv:12: missing header row or column 'b'", 0), 0u);
}

TEST(ReaderCommonTest, BuilderStopSkipFilterAndReasonsCap) {
  TraceReadOptions stop;
  WorkloadBuilder b1("f.csv", stop);
  EXPECT_FALSE(b1.BadRow(Status::ParseError("bad")).ok());

  TraceReadOptions skip;
  skip.on_bad_row = BadRowPolicy::kSkip;
  WorkloadBuilder b2("f.csv", skip);
  for (int i = 0; i < 15; ++i) EXPECT_TRUE(b2.BadRow(Status::ParseError("bad " + std::to_string(i))).ok());
  b2.FilteredRow("filtered");
  const Workload w = b2.Finish();
  EXPECT_EQ(w.rows_skipped, 16);
  ASSERT_EQ(w.skipped_reasons.size(), static_cast<size_t>(WorkloadBuilder::kMaxSkippedReasons));
  EXPECT_EQ(w.skipped_reasons[0], "bad 0");
}

TEST(ReaderCommonTest, BuilderSortsStablyAndRenumbers) {
  TraceReadOptions o;
  WorkloadBuilder b("f.csv", o);
  for (double t : {5.0, 1.0, 5.0, 0.0}) {
    Job j;
    j.spec.submit_time_s = t;
    j.spec.name = std::to_string(static_cast<int>(t)) + "-" + std::to_string(b.jobs().size());
    b.Add(j);
  }
  const Workload w = b.Finish();
  ASSERT_EQ(w.jobs.size(), 4u);
  EXPECT_EQ(w.jobs[0].spec.name, "0-3");
  EXPECT_EQ(w.jobs[1].spec.name, "1-1");
  EXPECT_EQ(w.jobs[2].spec.name, "5-0");  // equal times keep the order added
  EXPECT_EQ(w.jobs[3].spec.name, "5-2");
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(w.jobs[i].spec.id, static_cast<JobId>(i));
  EXPECT_EQ(w.source, "f.csv");
}

TEST(ReaderCommonTest, ShiftToZeroAndMaxJobs) {
  TraceReadOptions o;
  o.max_jobs = 2;
  WorkloadBuilder b("f.csv", o);
  Job j;
  j.spec.submit_time_s = 100;
  b.Add(j);
  EXPECT_FALSE(b.Full());
  j.spec.submit_time_s = 40;
  b.Add(j);
  EXPECT_TRUE(b.Full());
  b.ShiftSubmitTimesToZero();
  const Workload w = b.Finish();
  EXPECT_EQ(w.jobs[0].spec.submit_time_s, 0);
  EXPECT_EQ(w.jobs[1].spec.submit_time_s, 60);
}

TEST(ReaderCommonTest, ResolversCacheAndReportUnknownNames) {
  ModelResolver models(trace_test::Zoo());
  const ModelProfile* m = nullptr;
  ASSERT_TRUE(models.Resolve(kRow, "model", "ResNet-50", &m).ok());
  EXPECT_EQ(m->name, "resnet50");
  Status bad = models.Resolve(kRow, "model", "nosuchnet", &m);
  EXPECT_EQ(bad.message().rfind("f.csv:12: field 'model': ", 0), 0u);
  DeviceListResolver lists(trace_test::Devices());
  const std::vector<DeviceTypeId>* ids = nullptr;
  ASSERT_TRUE(lists.Resolve(kRow, "allowed_types", "v100; k80;v100", &ids).ok());
  ASSERT_EQ(ids->size(), 2u);  // duplicates folded
  ASSERT_TRUE(lists.Resolve(kRow, "allowed_types", "", &ids).ok());
  EXPECT_TRUE(ids->empty());
  EXPECT_FALSE(lists.Resolve(kRow, "allowed_types", "v100;zz", &ids).ok());
}

}  // namespace
}  // namespace hetsched::trace_internal
