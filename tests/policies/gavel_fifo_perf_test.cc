// fifo-perf: arrival order, fastest type with room, head blocks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_backend.h"

namespace hetsched {
namespace {

using ::testing::ElementsAre;
using test::kFast;
using test::kSlow;

// Devices 0-1 fast (node 0), 2-3 slow (node 1). Job 1 (2 GPUs) takes the fast pair; job 2 finds
// no fast room and takes a slow GPU; job 3 (2 GPUs) does not fit (1 slow left): it blocks job 4.
TEST(FifoPerfTest, FastestTypeWithRoomAndHeadBlocks) {
  test::PolicyHarness h({{kFast, 2}, {kSlow, 2}}, "fifo-perf");
  h.Submit(1, 2, 0, 100);
  h.Submit(2, 1, 0, 100);
  h.Submit(3, 2, 0, 100);
  h.Submit(4, 1, 0, 100);
  h.ScheduleAt(0);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 1 on [0,1]", "start 2 on [2]"));
  h.Finish(1, 10);
  h.ScheduleAt(10);
  EXPECT_THAT(h.TakeLog(), ElementsAre("start 3 on [0,1]", "start 4 on [3]"));
}

}  // namespace
}  // namespace hetsched
