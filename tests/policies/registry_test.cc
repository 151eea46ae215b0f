// Every job scheduler of policies/ is registered, creates with default options, and the registry
// rejects unknown names and unknown options.
#include <gtest/gtest.h>

#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/registry.h"

namespace hetsched {
namespace {

TEST(PolicyRegistryTest, EveryNameCreatesWithDefaults) {
  for (const char* name : {"fifo", "sjf", "srtf", "tiresias-las"}) {
    auto made = Registry<JobScheduler>::Instance().Create(name, Options{});
    ASSERT_TRUE(made.ok()) << name << ": " << made.status().ToString();
    EXPECT_EQ((*made)->name(), name);
  }
}

TEST(PolicyRegistryTest, EveryEntryHasProvenance) {
  for (const MethodInfo& info : Registry<JobScheduler>::Instance().List()) {
    EXPECT_FALSE(info.summary.empty()) << info.name;
    EXPECT_EQ(info.provenance.rfind("[", 0), 0u) << info.name << ": provenance must start with a tag";
  }
}

TEST(PolicyRegistryTest, UnknownNameListsKnownOnes) {
  auto made = Registry<JobScheduler>::Instance().Create("lottery", Options{});
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kNotFound);
  EXPECT_NE(made.status().message().find("tiresias-las"), std::string::npos);
}

TEST(PolicyRegistryTest, UnknownOptionIsRejected) {
  for (const char* name : {"fifo", "sjf", "srtf", "tiresias-las"}) {
    Options options;
    options.Set("no_such_option", "1");
    auto made = Registry<JobScheduler>::Instance().Create(name, options);
    ASSERT_FALSE(made.ok()) << name;
    EXPECT_NE(made.status().message().find("no_such_option"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace hetsched
