// The measured profile of one application as Pollux's and Sia's simulators hold it: its step
// times per placement and local batch, more per (nodes, replicas), and one validation curve per
// batch size (read by trace/pollux_profile.h; the truth built on it: perf/goodput_application.h).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace hetsched {

struct PolluxPlacementRow {
  std::string placement;  // digits 1-9: GPUs used on each node
  int local_bsz = 0;
  double step_time_s = 0, sync_time_s = 0;
  int nodes() const { return static_cast<int>(placement.size()); }
  int replicas() const {
    int n = 0;
    for (char c : placement) n += c - '0';
    return n;
  }
};

struct PolluxScalabilityRow {
  int num_nodes = 0, num_replicas = 0, local_bsz = 0;
  double step_time_s = 0, sync_time_s = 0;
};

struct PolluxValidationRow {
  double progress = 0;  // cumulative, at the end of the epoch
  long long iteration = 0;
  double metric = 0, grad_sqr = 0, grad_var = 0;
};

struct PolluxModelProfile {
  std::string model;
  std::vector<PolluxPlacementRow> placements;
  std::vector<PolluxScalabilityRow> scalability;
  std::map<int, std::vector<PolluxValidationRow>> validation;  // by total batch size
};

}  // namespace hetsched
