// A reproduction experiment (experiments/experiment.h) as `hetsched experiment NAME` and
// hetsched.experiment() ask for it: its options read and checked before anything is written, then
// one run, or one per seed and their summary (experiments/seeds.h).
#pragma once

#include <functional>
#include <string>

#include "hetsched/sched/options.h"
#include "hetsched/util/status.h"

namespace hetsched {

struct ExperimentRequest {
  std::string name;
  std::string out;               // empty: hetsched-out/experiment-NAME
  unsigned long long seed = 1;
  std::string seeds;             // "1-3", "1,2,5": one run per seed (empty: one run at `seed`)
  bool quick = false;
  int threads = 0;               // 0: one per core
  Options options;               // the experiment's own (--opt KEY=VALUE)
  std::function<void(const std::string&)> print;           // what it prints as it goes; may be null
  std::function<void(long long, long long)> progress;      // may be null

  std::string OutDir() const { return out.empty() ? "hetsched-out/experiment-" + name : out; }
};

// Runs the experiment. An unknown name, a bad seed list, or an option the experiment does not take
// or refuses is reported before any output is written, with `*usage` set (a usage error at the
// command line; the message names --seeds or --opt). `*headline` is the experiment's one-line
// result (may be empty).
Status RunExperimentRequest(const ExperimentRequest& request, std::string* headline, bool* usage);

}  // namespace hetsched
