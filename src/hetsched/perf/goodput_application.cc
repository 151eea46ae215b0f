#include "hetsched/perf/goodput_application.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "hetsched/util/printable.h"

namespace hetsched {
namespace {

constexpr int kMaxInterpolatedNodes = 16;  // applications.py:222: num_nodes = min(num_nodes, 16)

// The placement as Pollux keys it: empty nodes dropped, the lexicographically smallest rotation.
std::string PlacementKey(std::span<const int> gpus_per_node) {
  std::string digits;
  for (int g : gpus_per_node) {
    if (g > 0) digits += static_cast<char>('0' + std::min(g, 9));
  }
  std::string best = digits;
  for (size_t i = 1; i < digits.size(); ++i) best = std::min(best, digits.substr(i) + digits.substr(0, i));
  return best;
}

// pandas' groupby mean of the placements per (nodes, replicas, local_bsz), in key order (its
// Kahan-compensated sums), followed by the scalability rows as they are: the points Pollux's
// LinearNDInterpolator is built on.
void ScatteredPoints(const PolluxModelProfile& p, std::vector<double>* points, std::vector<double>* values) {
  struct Sum {
    double step = 0, step_c = 0, sync = 0, sync_c = 0;
    int count = 0;
  };
  auto add = [](double v, double* sum, double* c) {
    const double y = v - *c;
    const double t = *sum + y;
    *c = t - *sum - y;
    *sum = t;
  };
  std::map<std::tuple<int, int, int>, Sum> groups;
  for (const PolluxPlacementRow& r : p.placements) {
    Sum& s = groups[{r.nodes(), r.replicas(), r.local_bsz}];
    add(r.step_time_s, &s.step, &s.step_c);
    add(r.sync_time_s, &s.sync, &s.sync_c);
    ++s.count;
  }
  for (const auto& [key, s] : groups) {
    points->insert(points->end(), {static_cast<double>(std::get<0>(key)), static_cast<double>(std::get<1>(key)),
                                   static_cast<double>(std::get<2>(key))});
    values->insert(values->end(), {s.step / s.count, s.sync / s.count});
  }
  for (const PolluxScalabilityRow& r : p.scalability) {
    points->insert(points->end(), {static_cast<double>(r.num_nodes), static_cast<double>(r.num_replicas),
                                   static_cast<double>(r.local_bsz)});
    values->insert(values->end(), {r.step_time_s, r.sync_time_s});
  }
}

}  // namespace

Result<std::shared_ptr<const GoodputApplication>> GoodputApplication::Create(PolluxModelProfile profile,
                                                                           const ApplicationSettings& settings) {
  const std::string who = "application " + Quoted(profile.model);
  if (profile.placements.empty()) return Status::InvalidArgument(who + ": its profile has no placement");
  if (profile.validation.empty()) return Status::InvalidArgument(who + ": its profile has no validation file");
  std::shared_ptr<GoodputApplication> app(new GoodputApplication());
  GoodputApplication& a = *app;
  a.init_batch_size_ = settings.init_batch_size > 0 ? settings.init_batch_size : profile.validation.begin()->first;
  a.max_batch_size_ = settings.max_batch_size > 0 ? settings.max_batch_size : profile.validation.rbegin()->first;
  int min_local = profile.placements.front().local_bsz, max_local = min_local;
  for (const PolluxPlacementRow& r : profile.placements) {
    min_local = std::min(min_local, r.local_bsz);
    max_local = std::max(max_local, r.local_bsz);
  }
  a.min_local_bsz_ = settings.min_local_bsz > 0 ? settings.min_local_bsz : min_local;
  a.max_local_bsz_ = settings.max_local_bsz > 0 ? settings.max_local_bsz : max_local;
  a.max_replicas_ = std::max(0, settings.max_replicas);
  a.pinned_batch_size_ = std::max(0, settings.pinned_batch_size);
  if (!(settings.restart_delay_s >= 0) || !std::isfinite(settings.restart_delay_s)) {
    return Status::InvalidArgument(who + ": its re-allocation delay must be seconds >= 0");
  }
  if (!(settings.progress_scale > 0) || !std::isfinite(settings.progress_scale)) {
    return Status::InvalidArgument(who + ": its progress scale must be > 0");
  }
  a.restart_delay_s_ = settings.restart_delay_s;
  a.progress_scale_ = settings.progress_scale;
  a.local_batch_per_placement_ = settings.local_batch_per_placement;
  if (!(settings.fit_tolerance >= 0) || !std::isfinite(settings.fit_tolerance)) {
    return Status::InvalidArgument(who + ": its fit tolerance must be >= 0");
  }
  a.fit_tolerance_ = settings.fit_tolerance;
  if (a.max_batch_size_ < a.min_local_bsz_) {
    return Status::InvalidArgument(who + ": its largest batch size (" + std::to_string(a.max_batch_size_) +
                                   ") is below its smallest local batch (" + std::to_string(a.min_local_bsz_) + ")");
  }
  size_t fewest = profile.validation.begin()->second.size();
  for (const auto& [bsz, rows] : profile.validation) fewest = std::min(fewest, rows.size());
  a.max_epochs_ = settings.max_epochs > 0 ? settings.max_epochs : static_cast<int>(fewest);
  if (a.max_epochs_ < 1 || static_cast<size_t>(a.max_epochs_) > fewest) {
    return Status::InvalidArgument(who + ": " + std::to_string(a.max_epochs_) + " epochs, but a validation file has " +
                                   std::to_string(fewest) + " row(s)");
  }
  a.progress_at_.assign(static_cast<size_t>(a.max_epochs_) + 1, 0.0);
  for (int e = 1; e <= a.max_epochs_; ++e) {
    double low = profile.validation.begin()->second[static_cast<size_t>(e - 1)].progress;
    for (const auto& [bsz, rows] : profile.validation) low = std::min(low, rows[static_cast<size_t>(e - 1)].progress);
    a.progress_at_[static_cast<size_t>(e)] = low;
  }
  std::map<std::string, std::vector<double>> xs, ys;
  for (const PolluxPlacementRow& r : profile.placements) {
    xs[r.placement].push_back(r.local_bsz);
    ys[r.placement].insert(ys[r.placement].end(), {r.step_time_s, r.sync_time_s});
  }
  for (const auto& [placement, x] : xs) {
    if (x.size() < 2) continue;  // asked for, it is an error (StepTime)
    HETSCHED_ASSIGN_OR_RETURN(Interp1d line, Interp1d::Create(x, ys[placement], 2));
    a.by_placement_.emplace(placement, std::move(line));
  }
  for (const PolluxPlacementRow& r : profile.placements) {
    int& on = a.max_local_by_placement_[r.placement];
    on = std::max(on, r.local_bsz);
    int& gpus = a.max_local_by_replicas_[r.replicas()];
    gpus = std::max(gpus, r.local_bsz);
  }
  double most_bsz = 0, most_step = 0;
  for (const PolluxPlacementRow& r : profile.placements) {
    if (r.replicas() != 1) continue;
    most_bsz = std::max(most_bsz, static_cast<double>(r.local_bsz));
    most_step = std::max(most_step, r.step_time_s);
  }
  a.single_gpu_throughput_ = most_step > 0 ? most_bsz / most_step : 0;
  a.profile_ = std::move(profile);
  return std::shared_ptr<const GoodputApplication>(std::move(app));
}

Result<StepTimes> GoodputApplication::StepTime(std::span<const int> gpus_per_node, double local_bsz) const {
  const std::string key = PlacementKey(gpus_per_node);
  auto where = [&] {
    return "application " + Quoted(name()) + ": no measured step time for placement " + Quoted(key) + " at local batch " +
           std::to_string(local_bsz);
  };
  if (key.empty()) return Status::InvalidArgument("application " + Quoted(name()) + ": a placement with no GPU");
  std::optional<std::vector<double>> v;
  if (auto it = by_placement_.find(key); it != by_placement_.end()) {
    v = it->second.At(local_bsz);
    if (!v) {
      return Status::InvalidArgument(where() + " (measured from " + std::to_string(it->second.min_x()) + " to " +
                                std::to_string(it->second.max_x()) + ")");
    }
  } else if (std::any_of(profile_.placements.begin(), profile_.placements.end(),
                         [&](const PolluxPlacementRow& r) { return r.placement == key; })) {
    return Status::InvalidArgument(where() + " (one batch size measured: nothing to interpolate between)");
  } else {
    int replicas = 0;
    for (char c : key) replicas += c - '0';
    const double x[3] = {static_cast<double>(std::min<int>(static_cast<int>(key.size()), kMaxInterpolatedNodes)),
                         static_cast<double>(replicas), local_bsz};
    HETSCHED_ASSIGN_OR_RETURN(const DelaunayInterpolator* scattered, Scattered());
    v = scattered->At(x);
    if (!v) return Status::InvalidArgument(where() + " (outside the measured nodes, replicas and local batches)");
  }
  return StepTimes{(*v)[0], (*v)[1]};
}

int GoodputApplication::MaxLocalBszOn(std::span<const int> gpus_per_node) const {
  const std::string key = PlacementKey(gpus_per_node);
  if (auto it = max_local_by_placement_.find(key); it != max_local_by_placement_.end()) return it->second;
  int nodes = 0, replicas = 0;
  for (int g : gpus_per_node) {
    nodes += g > 0 ? 1 : 0;
    replicas += std::max(g, 0);
  }
  int most = 0;
  for (const PolluxScalabilityRow& r : profile_.scalability) {
    if (r.num_nodes >= nodes && r.num_replicas >= replicas) most = std::max(most, r.local_bsz);
  }
  return most > 0 ? most : max_local_bsz_;
}

int GoodputApplication::MaxLocalBszForReplicas(int replicas) const {
  const auto it = max_local_by_replicas_.find(replicas);
  return it == max_local_by_replicas_.end() ? 0 : it->second;
}

Result<const DelaunayInterpolator*> GoodputApplication::Scattered() const {
  std::call_once(scattered_once_, [this] {
    std::vector<double> points, values;
    ScatteredPoints(profile_, &points, &values);
    auto made = DelaunayInterpolator::Create(points, 3, values, 2);
    if (made.ok()) {
      scattered_ = std::make_unique<DelaunayInterpolator>(std::move(made).value());
    } else {
      scattered_error_ = made.status().WithContext("application " + Quoted(name()) +
                                                   ": (nodes, replicas, local batch) -> step time");
    }
  });
  if (scattered_ == nullptr) return scattered_error_;
  return scattered_.get();
}

Result<std::pair<int, int>> GoodputApplication::Bracket(double batch_size) const {
  int lower = 0, upper = 0;
  for (const auto& [bsz, rows] : profile_.validation) {
    if (bsz <= batch_size) lower = bsz;
    if (bsz >= batch_size) {
      upper = bsz;
      break;
    }
  }
  if (lower == 0 || upper == 0) {
    return Status::InvalidArgument("application " + Quoted(name()) + ": batch size " + std::to_string(batch_size) +
                              " is outside its validated sizes (" + std::to_string(profile_.validation.begin()->first) +
                              " to " + std::to_string(profile_.validation.rbegin()->first) + ")");
  }
  return std::make_pair(lower, upper);
}

Result<GradientStats> GoodputApplication::GradStats(double batch_size, int epoch) const {
  if (epoch < 0 || epoch >= max_epochs_) {
    return Status::InvalidArgument("application " + Quoted(name()) + ": epoch " + std::to_string(epoch) + " of " +
                              std::to_string(max_epochs_));
  }
  HETSCHED_ASSIGN_OR_RETURN(const auto bracket, Bracket(batch_size));
  const auto [lower, upper] = bracket;
  const PolluxValidationRow& lo = profile_.validation.at(lower)[static_cast<size_t>(epoch)];
  const PolluxValidationRow& hi = profile_.validation.at(upper)[static_cast<size_t>(epoch)];
  if (lower == upper) return GradientStats{lo.grad_sqr, lo.grad_var};
  const double width = upper - lower;
  return GradientStats{((batch_size - lower) * hi.grad_sqr + (upper - batch_size) * lo.grad_sqr) / width,
                       ((batch_size - lower) * hi.grad_var + (upper - batch_size) * lo.grad_var) / width};
}

Result<double> GoodputApplication::IterationsAt(double batch_size, int epoch) const {
  if (epoch < 0 || epoch >= max_epochs_) {
    return Status::InvalidArgument("application " + Quoted(name()) + ": epoch " + std::to_string(epoch) + " of " +
                                   std::to_string(max_epochs_));
  }
  HETSCHED_ASSIGN_OR_RETURN(const auto bracket, Bracket(batch_size));
  const auto [lower, upper] = bracket;
  const double lo = static_cast<double>(profile_.validation.at(lower)[static_cast<size_t>(epoch)].iteration);
  const double hi = static_cast<double>(profile_.validation.at(upper)[static_cast<size_t>(epoch)].iteration);
  if (lower == upper) return lo;
  return ((batch_size - lower) * hi + (upper - batch_size) * lo) / (upper - lower);
}

double GoodputApplication::ProgressAt(int epoch) const {
  return progress_at_[static_cast<size_t>(std::clamp(epoch, 0, max_epochs_))];
}

int GoodputApplication::EpochAt(double progress) const {
  size_t most = 0;
  for (const auto& [bsz, rows] : profile_.validation) {
    const auto it = std::upper_bound(rows.begin(), rows.end(), progress,
                                     [](double p, const PolluxValidationRow& r) { return p < r.progress; });
    most = std::max(most, static_cast<size_t>(it - rows.begin()));
  }
  return static_cast<int>(most);
}

BatchSplit SplitBatch(const GoodputApplication& app, double batch, int replicas, bool accumulate_alone,
                      int max_local_bsz) {
  BatchSplit out;
  const double local = std::ceil(batch / replicas - 1e-8);
  const int most = max_local_bsz > 0 ? max_local_bsz : app.max_local_bsz();
  out.accum_steps = static_cast<int>(std::ceil(local / most - 1e-8)) - 1;
  if (accumulate_alone) out.accum_steps = std::max(1, out.accum_steps);
  out.atomic_bsz = static_cast<int>(std::ceil(local / (out.accum_steps + 1) - 1e-8));
  const int count = replicas * (out.accum_steps + 1);
  out.atomic_bsz = std::min(out.atomic_bsz, static_cast<int>(static_cast<double>(app.max_batch_size()) / count));
  return out;
}

}  // namespace hetsched
