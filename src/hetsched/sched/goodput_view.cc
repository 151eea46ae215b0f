#include "hetsched/sched/goodput_view.h"

#include <algorithm>

namespace hetsched {

Result<GoodputJobView> GoodputJobViewOf(GoodputJob& g, bool with_model) {
  GoodputJobView v;
  for (size_t t = 0; t < g.types.size(); ++t) {
    GoodputTypeView tv;
    tv.type = g.types[t].type;
    tv.application = g.types[t].app;
    for (const ThroughputSample& s : g.learned(t).samples)
      tv.max_profiled_replicas = std::max(tv.max_profiled_replicas, s.replicas);
    if (with_model) {
      HETSCHED_ASSIGN_OR_RETURN(tv.params, GoodputSteps::Params(g, t));
    }
    v.types.push_back(std::move(tv));
  }
  const GoodputTypeView& here = v.types[static_cast<size_t>(g.on)];
  v.application = g.app;
  v.params = here.params;
  v.max_profiled_replicas = here.max_profiled_replicas;
  v.adaptive = g.adaptive;
  v.target_batch = g.target_batch;
  v.epoch = g.epoch;
  v.placement = g.placement;
  v.atomic_bsz = g.atomic_bsz;
  v.accum_steps = g.accum_steps;
  v.restarts = std::max(0, g.restarts);
  v.grad = g.grad;
  if (g.split()) {
    v.second_type = g.types[static_cast<size_t>(g.second.on)].type;
    v.second_atomic_bsz = g.second.atomic_bsz;
  }
  v.split_measured = g.split_measured;
  return v;
}

}  // namespace hetsched
