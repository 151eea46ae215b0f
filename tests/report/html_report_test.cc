#include "hetsched/report/html_report.h"

#include <gtest/gtest.h>

#include "balanced_tags.h"

namespace hetsched {
namespace {

TEST(ComparisonHtml, SelfContainedAndWellFormed) {
  RunRecord a, b;
  a.policy = "fifo";
  a.placer = "pack";
  a.trace = "demo<1>.csv";
  b.policy = "gavel";
  b.placer = "pack";
  Summary sa, sb;
  sa.jobs_total = 2;
  sa.jobs_finished = 1;
  const std::string html = ComparisonHtml({a, b}, {sa, sb});
  EXPECT_EQ(testing_util::CheckBalancedTags(html), "");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // The table (header and one row per run), both plots inline, nothing fetched from outside.
  EXPECT_NE(html.find("<th>avg JCT (h)</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>fifo</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>gavel</td>"), std::string::npos);
  EXPECT_NE(html.find("1/2"), std::string::npos);
  // Every figure inline with its sentence.
  for (const char* id : {"utilisation", "queue", "jct-cdf", "cost-energy"}) {
    EXPECT_NE(html.find(std::string("<figure id=\"") + id + "\">"), std::string::npos) << id;
  }
  EXPECT_EQ(testing_util::CheckBalancedTags(html).empty(), true);
  EXPECT_NE(html.find("Utilisation per GPU type over time"), std::string::npos);
  EXPECT_NE(html.find("JCT distribution (CDF)"), std::string::npos);
  EXPECT_NE(html.find("<figcaption>Jobs submitted and not running"), std::string::npos);
  EXPECT_NE(html.find("demo&lt;1&gt;.csv"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

}  // namespace
}  // namespace hetsched
