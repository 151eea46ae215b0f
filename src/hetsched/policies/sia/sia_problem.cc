#include "hetsched/policies/sia/sia_problem.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "hetsched/lp/linear_program.h"
#include "hetsched/perf/goodput.h"
#include "hetsched/policies/pollux/common.h"
#include "hetsched/util/units.h"
#include "hetsched/util/fixed_math.h"

namespace hetsched::sia_internal {

std::vector<NodeGroup> GroupNodes(const Cluster& cluster) {
  std::vector<NodeGroup> groups;
  for (NodeId n = 0; n < cluster.num_nodes(); ++n) {
    const auto& node = cluster.node(n);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const NodeGroup& g) { return g.type == node.device_type; });
    if (it == groups.end()) {
      groups.push_back(NodeGroup{node.device_type, 0, {}});
      it = groups.end() - 1;
    }
    it->gpus_per_node = std::max(it->gpus_per_node, node.num_devices);
    it->nodes.push_back(n);
  }
  return groups;
}

std::vector<SiaConfig> Configurations(const std::vector<NodeGroup>& groups) {
  std::vector<SiaConfig> out;
  for (size_t g = 0; g < groups.size(); ++g) {
    const int per_node = groups[g].gpus_per_node;
    const int nodes = static_cast<int>(groups[g].nodes.size());
    if (per_node <= 0 || nodes == 0) continue;
    // One node: powers of two below a node's GPUs, then the whole node (CONFIGS_4GPU, CONFIGS_8GPU).
    for (int gpus = 1; gpus < per_node && gpus <= kMaxConfigGpus; gpus *= 2) out.push_back({static_cast<int>(g), 1, gpus});
    if (per_node <= kMaxConfigGpus) out.push_back({static_cast<int>(g), 1, per_node});
    // k whole nodes, k >= 2, up to 64 GPUs.
    for (int k = 2; k <= nodes && k * per_node <= kMaxConfigGpus; ++k) out.push_back({static_cast<int>(g), k, k * per_node});
  }
  return out;
}

std::vector<double> NormaliseGoodputs(const std::vector<SiaConfig>& configs, std::vector<double> raw,
                                      const std::vector<bool>& group_has_model) {
  const size_t nc = configs.size();
  // A group counts as having goodputs when the job has a model there and some valid configuration.
  std::vector<bool> counted(group_has_model.size(), false);
  double min_goodput = kInf;
  for (size_t c = 0; c < nc; ++c) {
    const size_t g = static_cast<size_t>(configs[c].group);
    if (!group_has_model[g] || !(raw[c] > 0)) continue;
    counted[g] = true;
    if (raw[c] > kZeroAllocGain) min_goodput = std::min(min_goodput, raw[c]);
  }
  const double scale = std::isfinite(min_goodput) ? 1.0 / min_goodput : 1.0;
  for (size_t c = 0; c < nc; ++c) {
    const size_t g = static_cast<size_t>(configs[c].group);
    double v = counted[g] ? raw[c] * scale : 0.0;
    if (!counted[g] && configs[c].gpus == 1) v = 1;  // sia.py:712-719: the scale unit's configuration
    raw[c] = v > kZeroAllocGain ? v : kZeroAllocGain;
  }
  return raw;
}

double ReallocFactor(double age_s, int restarts, double penalty_s) {
  if (age_s < penalty_s) return 1;
  return std::max(age_s - restarts * penalty_s, 0.0) / (age_s + penalty_s);
}

double RestartPenalty(const std::string& application) {
  // Matched on the job's name in sia.py (its names are "<application>-<n>"); here on its application.
  if (application.find("deepspeech") != std::string::npos) return 25;
  if (application.find("imagenet") != std::string::npos) return 250;
  if (application.find("cifar") != std::string::npos) return 30;
  if (application.find("bert") != std::string::npos) return 120;
  if (application.find("yolov3") != std::string::npos) return 45;
  return 30;
}

double PricedFactor(double age_s, int restarts, double pause_s) {
  return std::max(age_s - restarts * pause_s, 0.0) / (age_s + pause_s);
}

double PoweredCoefficient(double goodput, double p) {
  // numpy.round(x, 2): x * 100 rounded half to even, over 100.
  const double v = std::nearbyint(FixedPow(goodput, p) * 100.0) / 100.0;
  return std::min(v, kGoodputClip);
}

void WeighByRemaining(std::vector<SiaJobRow>& rows, double k) {
  if (!(k > 0)) return;
  std::vector<double> known;
  for (const SiaJobRow& r : rows) {
    if (r.remaining_s > 0) known.push_back(r.remaining_s);
  }
  if (known.empty()) return;
  const auto middle = known.begin() + static_cast<std::ptrdiff_t>((known.size() - 1) / 2);
  std::nth_element(known.begin(), middle, known.end());
  const double median = *middle;
  for (SiaJobRow& r : rows) {
    if (r.remaining_s > 0) r.weight = std::clamp(FixedPow(r.remaining_s / median, -k), 1.0, 4.0);
  }
}

Result<std::vector<int>> SolveRound(const std::vector<int>& group_capacity, const std::vector<SiaJobRow>& jobs,
                                    const SiaSettings& settings) {
  std::vector<int> choice(jobs.size(), -1);
  lp::LinearProgram mip;
  mip.SetSense(lp::Sense::kMinimize);
  std::vector<std::vector<std::pair<int, double>>> per_group(group_capacity.size());
  std::vector<int> first_var(jobs.size() + 1, 0);
  std::vector<std::pair<int, double>> row;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const SiaJobRow& job = jobs[j];
    first_var[j] = mip.num_variables();
    row.clear();
    for (size_t o = 0; o < job.options.size(); ++o) {
      const SiaOption& opt = job.options[o];
      // A job with a configuration pays its factor to change it (sia.py:860-873); one without none.
      const bool previous = static_cast<int>(o) == job.previous;
      const double factor = opt.group == job.elastic_group ? job.elastic_factor : job.realloc_factor;
      const double g = job.previous < 0 || previous ? opt.goodput : opt.goodput * factor;
      // The constant lambda_n x jobs is left out: each x carries its coefficient minus lambda_n.
      const int v = mip.AddVariable(job.hold && previous ? 1 : 0, 1, job.weight * (PoweredCoefficient(g, settings.p) - settings.lambda_n),
                                    /*integer=*/true);
      row.emplace_back(v, 1.0);
      per_group[static_cast<size_t>(opt.group)].emplace_back(v, opt.gpus);
    }
    if (!row.empty()) mip.AddConstraint(row, -lp::kInfinity, 1);
  }
  first_var[jobs.size()] = mip.num_variables();
  if (mip.num_variables() == 0) return choice;
  for (size_t g = 0; g < per_group.size(); ++g) {
    if (!per_group[g].empty()) mip.AddConstraint(per_group[g], -lp::kInfinity, group_capacity[g]);
  }
  lp::SolveOptions options;
  options.relative_gap = settings.relative_gap;
  options.time_limit_s = lp::kInfinity;
  options.max_nodes = settings.max_nodes;
  HETSCHED_ASSIGN_OR_RETURN(const lp::Solution sol, lp::SolveMip(mip, options));
  if (sol.values.empty()) {
    return Status::Internal("Sia's integer program has no solution (a job held to its configuration that no longer fits?)");
  }
  for (size_t j = 0; j < jobs.size(); ++j) {
    for (int v = first_var[j]; v < first_var[j + 1]; ++v) {
      if (sol.values[static_cast<size_t>(v)] > 0.5) choice[j] = v - first_var[j];
    }
  }
  return choice;
}

std::vector<std::vector<int>> PlaceFast(const std::vector<int>& gpus, std::vector<int> free) {
  const int num_nodes = static_cast<int>(free.size());
  std::vector<std::vector<int>> out(gpus.size());
  if (num_nodes == 0) return out;
  const int per_node = *std::max_element(free.begin(), free.end());
  std::vector<size_t> order(gpus.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return gpus[a] > gpus[b]; });
  int cursor = 0;
  for (size_t k : order) {
    int need = gpus[k];
    if (need == 0) continue;
    int node = cursor;
    std::vector<int>& placed = out[k];
    // Whole free nodes first, one sweep of the nodes at most.
    int whole = per_node > 0 ? need / per_node : 0;
    for (int checked = 0; checked < num_nodes && whole > 0; ++checked) {
      if (free[static_cast<size_t>(node)] == per_node) {
        free[static_cast<size_t>(node)] = 0;
        need -= per_node;
        placed.insert(placed.end(), static_cast<size_t>(per_node), node);
        --whole;
      }
      node = (node + 1) % num_nodes;
    }
    // Then any free GPUs. The caller's counts fit the group, so the sweep ends; a guard all the same.
    int idle_sweep = 0;
    while (need > 0 && idle_sweep <= num_nodes) {
      const int take = std::min(need, free[static_cast<size_t>(node)]);
      if (take > 0) {
        need -= take;
        free[static_cast<size_t>(node)] -= take;
        placed.insert(placed.end(), static_cast<size_t>(take), node);
        idle_sweep = 0;
      } else {
        ++idle_sweep;
      }
      node = (node + 1) % num_nodes;
    }
    cursor = node;
  }
  return out;
}

std::vector<SiaOption> GoodputOptions(const GoodputJobView& view, const std::vector<NodeGroup>& groups,
                                      const std::vector<SiaConfig>& configs, const std::vector<bool>& allowed,
                                      const GoodputRowSettings& settings) {
  std::vector<SiaOption> out;
  const size_t n = groups.size();
  std::vector<const GoodputTypeView*> on_group(n, nullptr);
  std::vector<std::unique_ptr<GoodputModel>> models(n);
  std::vector<BatchLimits> limits(n);
  std::vector<int> max_replicas(n, 1);
  int shared_max = 1;
  for (size_t g = 0; g < n; ++g) {
    for (const GoodputTypeView& t : view.types) {
      if (t.type == groups[g].type || t.type == kNoDeviceType) on_group[g] = &t;
    }
    const GoodputTypeView* t = on_group[g];
    if (t == nullptr) continue;
    const GoodputApplication& app = *t->application;
    max_replicas[g] = pollux_internal::GoodputMaxReplicas(app, t->max_profiled_replicas);
    shared_max = std::max(shared_max, max_replicas[g]);
    if (!allowed[g] || !t->params.has_value() || !view.grad.has_value()) continue;
    models[g] = std::make_unique<GoodputModel>(*t->params, *view.grad, app.init_batch_size());
    limits[g] = pollux_internal::GoodputBatchLimits(
        app, settings.batch_from_job && view.target_batch > 0 ? view.target_batch : app.max_batch_size());
  }
  // Where a group without a model of its own borrows one: the first group (in the job's type
  // order) whose type has a model.
  std::vector<int> source(n, -1);
  for (size_t g = 0; g < n; ++g) {
    if (models[g]) source[g] = static_cast<int>(g);
  }
  if (settings.project) {
    int first = -1;
    for (const GoodputTypeView& t : view.types) {
      for (size_t g = 0; first < 0 && g < n; ++g) {
        if (models[g] && on_group[g] == &t) first = static_cast<int>(g);
      }
    }
    for (size_t g = 0; g < n; ++g) {
      if (source[g] < 0 && allowed[g] && on_group[g] != nullptr) source[g] = first;
      max_replicas[g] = shared_max;
    }
  }
  std::vector<double> raw(configs.size(), 0.0);
  for (size_t c = 0; c < configs.size(); ++c) {
    const SiaConfig& cfg = configs[c];
    const auto g = static_cast<size_t>(cfg.group);
    if (source[g] < 0 || cfg.gpus > max_replicas[g]) continue;
    const auto d = static_cast<size_t>(source[g]);
    if (d == g) {
      raw[c] = models[g]->Optimize(cfg.nodes, cfg.gpus, limits[g]).goodput;
    } else {
      const double from = on_group[d]->application->single_gpu_throughput();
      const double ratio = from > 0 ? on_group[g]->application->single_gpu_throughput() / from : 0;
      const int nodes = (cfg.gpus + groups[d].gpus_per_node - 1) / groups[d].gpus_per_node;
      raw[c] = ratio * models[d]->Optimize(nodes, cfg.gpus, limits[d]).goodput;
    }
  }
  std::vector<bool> group_has_model(n);
  for (size_t g = 0; g < n; ++g) group_has_model[g] = source[g] >= 0;
  const std::vector<double> g = NormaliseGoodputs(configs, std::move(raw), group_has_model);
  for (size_t c = 0; c < configs.size(); ++c) {
    const auto group = static_cast<size_t>(configs[c].group);
    if (allowed[group] && on_group[group] != nullptr) out.push_back({configs[c].group, configs[c].gpus, g[c]});
  }
  return out;
}

}  // namespace hetsched::sia_internal

namespace hetsched::sia_internal {

std::vector<SiaOption> PriorOptions(const GoodputJobView& view, const std::vector<NodeGroup>& groups,
                                    const std::vector<SiaConfig>& configs, const std::vector<bool>& allowed,
                                    int requested) {
  std::vector<SiaOption> out;
  double lowest = kInf;
  for (const SiaConfig& c : configs) {
    const auto g = static_cast<size_t>(c.group);
    if (!allowed[g] || c.gpus > std::max(requested, 1)) continue;
    const GoodputApplication* app = nullptr;
    for (const GoodputTypeView& t : view.types) {
      if (t.type == groups[g].type || t.type == kNoDeviceType) app = t.application;
    }
    if (app == nullptr || !(app->single_gpu_throughput() > 0)) continue;
    const double worth = c.gpus * app->single_gpu_throughput();
    lowest = std::min(lowest, worth);
    out.push_back({c.group, c.gpus, worth});
  }
  for (SiaOption& o : out) o.goodput /= lowest;
  return out;
}

std::vector<int> ResizeWithin(const std::vector<int>& held, const std::vector<int>& room, int gpus, int max_nodes) {
  const size_t n = held.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Its own nodes by what it holds there, then the others by their room; ties to the lower node.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if ((held[a] > 0) != (held[b] > 0)) return held[a] > 0;
    if (held[a] != held[b]) return held[a] > held[b];
    return held[a] + room[a] > held[b] + room[b];
  });
  std::vector<size_t> chosen;
  int capacity = 0;
  for (size_t k : order) {
    if (capacity >= gpus) break;
    if (held[k] + room[k] <= 0) continue;
    chosen.push_back(k);
    capacity += held[k] + room[k];
  }
  if (capacity < gpus || static_cast<int>(chosen.size()) > max_nodes || chosen.empty() || held[chosen.front()] == 0) {
    return {};
  }
  std::vector<int> out(n, 0);
  int left = gpus;
  for (size_t k : chosen) {  // its own GPUs first
    const int take = std::min(left, held[k]);
    out[k] = take;
    left -= take;
  }
  for (size_t k : chosen) {  // then the room beside them
    const int take = std::min(left, room[k]);
    out[k] += take;
    left -= take;
  }
  // A node the fill left empty is not used.
  return out;
}

}  // namespace hetsched::sia_internal
