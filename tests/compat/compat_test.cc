#include "hetsched/compat/compat.h"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

CompatProfile Sample() {
  CompatProfile p;
  p.name = "peer-x";
  p.peer = "Peer X's simulator (example/peer @ 0000000)";
  p.summary = "a test profile";
  p.settings = {
      {"--restart-cost", "0", {}, "sim.py:10", "the peer charges nothing for a preemption"},
      {"--policy-opt", "backfill=none", {"fifo"}, "sched.py:20", "the peer's FIFO never backfills"},
  };
  p.reproduces = {{"fifo", "fifo", "sched.py:15"}};
  return p;
}

TEST(CompatSetting, MethodOptionsSplitKeyAndValue) {
  const CompatProfile p = Sample();
  EXPECT_FALSE(p.settings[0].IsMethodOption());
  EXPECT_EQ(p.settings[0].MethodOptionKey(), "");
  EXPECT_TRUE(p.settings[1].IsMethodOption());
  EXPECT_EQ(p.settings[1].MethodOptionKey(), "backfill");
  EXPECT_EQ(p.settings[1].MethodOptionValue(), "none");
}

TEST(CompatSetting, PolicyFilter) {
  const CompatProfile p = Sample();
  EXPECT_TRUE(p.settings[0].AppliesTo("anything"));
  EXPECT_TRUE(p.settings[1].AppliesTo("fifo"));
  EXPECT_FALSE(p.settings[1].AppliesTo("sjf"));
}

TEST(CompatProfile, ValidateAcceptsAWellFormedProfile) { EXPECT_TRUE(ValidateProfile(Sample()).ok()); }

TEST(CompatProfile, ValidateNamesWhatIsMissing) {
  CompatProfile p = Sample();
  p.settings[0].source.clear();
  Status st = ValidateProfile(p);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--restart-cost 0"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("no source"), std::string::npos) << st.message();

  p = Sample();
  p.settings[1].value = "backfill";
  st = ValidateProfile(p);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("KEY=VALUE"), std::string::npos) << st.message();

  p = Sample();
  p.settings[0].option = "restart-cost";
  EXPECT_FALSE(ValidateProfile(p).ok());

  p = Sample();
  p.reproduces[0].source.clear();
  EXPECT_FALSE(ValidateProfile(p).ok());

  p = Sample();
  p.name = "Peer X";  // goes into job scripts: no spaces or capitals
  EXPECT_FALSE(ValidateProfile(p).ok());
}

TEST(CompatProfiles, FindListsTheKnownNames) {
  CompatProfiles& all = CompatProfiles::Instance();
  all.Register(Sample());
  auto found = all.Find("peer-x");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->settings.size(), 2u);
  auto missing = all.Find("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("unknown compatibility profile 'nope'"), std::string::npos);
  EXPECT_NE(missing.status().message().find("peer-x"), std::string::npos);
  EXPECT_NE(all.Reproduces("fifo").find("peer-x: fifo (--compat peer-x)"), std::string::npos) << all.Reproduces("fifo");
  EXPECT_EQ(all.Reproduces("no-such-method"), "");
}

// Every profile built into hetsched (registered by src/hetsched/compat/*.cc) is well formed:
// each setting cites the peer's file and line and says why.
TEST(CompatProfiles, EveryBuiltInProfileIsWellFormed) {
  for (const CompatProfile* p : CompatProfiles::Instance().List()) {
    EXPECT_TRUE(ValidateProfile(*p).ok()) << ValidateProfile(*p).message();
  }
}

}  // namespace
}  // namespace hetsched
