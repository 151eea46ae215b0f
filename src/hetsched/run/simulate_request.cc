#include "hetsched/run/simulate_request.h"

#include <charconv>
#include <fmt/core.h>

#include "hetsched/report/writers.h"
#include "hetsched/run/compat_apply.h"
#include "hetsched/run/value_checks.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/text.h"

namespace hetsched {

namespace {

double Number(std::string_view text) { return ParseDouble(Trim(text), "value").value(); }
long long CheckedWhole(std::string_view text) { return ParseInt(Trim(text), "value").value(); }

// One setting: its flag, its check, where it goes, and the setting it needs or excludes (the
// command line's CLI11 rules).
struct Setting {
  std::string_view flag;
  ValueCheck check;
  std::function<void(SimulateRequest&, std::string_view)> set;
  std::string_view needs = {}, excludes = {};
};

ValueCheck AnyText() { return {"TEXT", [](std::string_view) { return std::string(); }}; }

const std::vector<Setting>& Settings() {
  using R = SimulateRequest;
  static const std::vector<Setting> settings = {
      {"--cluster", AnyText(), [](R& r, std::string_view v) { r.cluster.file = v; }},
      {"--gpus", DeviceCountsCheck(), [](R& r, std::string_view v) { r.cluster.gpus = v; }, {}, "--cluster"},
      {"--gpus-per-server", WholeAtLeastCheck(1),
       [](R& r, std::string_view v) { r.cluster.gpus_per_server = static_cast<int>(CheckedWhole(v)); }, "--gpus"},
      {"--trace", AnyText(), [](R& r, std::string_view v) { r.workload.trace = v; }},
      {"--format", AnyText(), [](R& r, std::string_view v) { r.workload.format = v; }},
      {"--synthetic", WholeAtLeastCheck(1), [](R& r, std::string_view v) { r.workload.synthetic = CheckedWhole(v); }, {},
       "--trace"},
      {"--arrival-rate", NumberAboveCheck(0),
       [](R& r, std::string_view v) { r.workload.arrival_rate_per_hour = Number(v); }, "--synthetic"},
      {"--max-jobs", WholeAtLeastCheck(1), [](R& r, std::string_view v) { r.workload.max_jobs = CheckedWhole(v); }, {},
       "--synthetic"},
      {"--on-bad-row", OneOfCheck({"stop", "skip"}), [](R& r, std::string_view v) { r.workload.on_bad_row = v; }},
      {"--reference-device", AnyText(), [](R& r, std::string_view v) { r.workload.reference_device = v; }},
      {"--profiles", AnyText(), [](R& r, std::string_view v) { r.workload.profiles = v; }, {}, "--synthetic"},
      {"--profile-types", ProfileTypesCheck(), [](R& r, std::string_view v) { r.workload.profile_types = v; }, {},
       "--synthetic"},
      {"--profile-settings", OneOfCheck({"pollux", "sia"}),
       [](R& r, std::string_view v) { r.workload.profile_settings = v; }, {}, "--synthetic"},
      {"--seed", SeedCheck(),
       [](R& r, std::string_view v) {
         const std::string_view d = Trim(v);
         std::from_chars(d.data(), d.data() + d.size(), r.workload.seed);
       }},
      {"--restart-cost", NumberAtLeastCheck(0), [](R& r, std::string_view v) { r.sim.restart_cost_s = Number(v); }},
      {"--resize-rendezvous", NumberAtLeastCheck(0),
       [](R& r, std::string_view v) { r.sim.resize_rendezvous_s = Number(v); }},
      {"--max-time", NumberAboveCheck(0), [](R& r, std::string_view v) { r.sim.max_time_s = Number(v); }},
      {"--no-contention", BoolCheck(), [](R& r, std::string_view v) { r.sim.no_contention = ParseBoolText(v); }},
      {"--assume-consolidated", BoolCheck(),
       [](R& r, std::string_view v) { r.sim.assume_consolidated = ParseBoolText(v); }},
      {"--skip-unfit", BoolCheck(), [](R& r, std::string_view v) { r.sim.skip_unfit = ParseBoolText(v); }},
      {"--goodput-delay", NumberAtLeastCheck(0), [](R& r, std::string_view v) { r.sim.goodput_delay_s = Number(v); }},
      {"--goodput-interval", NumberAboveCheck(0),
       [](R& r, std::string_view v) { r.sim.goodput_interval_s = Number(v); }},
      {"--goodput-round-epochs", BoolCheck(),
       [](R& r, std::string_view v) { r.sim.goodput_round_epochs = ParseBoolText(v); }},
      {"--goodput-free-moves", BoolCheck(),
       [](R& r, std::string_view v) { r.sim.goodput_free_moves = ParseBoolText(v); }},
      {"--whole-second-completions", BoolCheck(),
       [](R& r, std::string_view v) { r.sim.whole_second_completions = ParseBoolText(v); }},
      {"--throughputs", AnyText(), [](R& r, std::string_view v) { r.sim.throughputs = v; }},
      {"--pair-throughputs", AnyText(), [](R& r, std::string_view v) { r.sim.pair_throughputs = v; }},
      {"--policy", AnyText(), [](R& r, std::string_view v) { r.methods.policy = v; }},
      {"--placer", AnyText(), [](R& r, std::string_view v) { r.methods.placer = v; }},
      {"--planner", AnyText(), [](R& r, std::string_view v) { r.methods.planner = v; }},
      {"--compat", AnyText(), [](R& r, std::string_view v) { r.compat = v; }},
      {"--round", NumberAboveCheck(0), [](R& r, std::string_view v) { r.round_s = Number(v); }},
  };
  return settings;
}

const Setting* FindSetting(std::string_view flag) {
  for (const Setting& s : Settings()) {
    if (s.flag == flag) return &s;
  }
  return nullptr;
}

// The request's settings as a compat profile's target.
class RequestTarget final : public CompatTarget {
 public:
  explicit RequestTarget(SimulateRequest* request) : request_(request) {}
  std::string_view name() const override { return "simulate"; }
  bool Has(std::string_view option) const override { return FindSetting(option) != nullptr; }
  std::optional<std::string> Given(std::string_view option) const override {
    auto it = request_->given().find(option);
    if (it == request_->given().end()) return std::nullopt;
    return it->second;
  }
  Status Set(std::string_view option, std::string_view value) override {
    return request_->SetByProfile(option, value);
  }

 private:
  SimulateRequest* request_;
};

}  // namespace

std::vector<std::string_view> SimulateRequestFlags() {
  std::vector<std::string_view> flags;
  for (const Setting& s : Settings()) flags.push_back(s.flag);
  return flags;
}

Status SimulateRequest::Set(std::string_view flag, std::string_view text) {
  const Setting* s = FindSetting(flag);
  if (s == nullptr) return Status::InvalidArgument(std::string(flag) + ": not a setting of a simulation");
  if (std::string bad = s->check.check(text); !bad.empty()) {
    return Status::InvalidArgument(std::string(flag) + ": " + bad);
  }
  s->set(*this, text);
  given_.insert_or_assign(std::string(flag), std::string(text));
  return Status::Ok();
}

bool IsSimulateRequestFlag(std::string_view flag) { return FindSetting(flag) != nullptr; }

Status SimulateRequest::SetByProfile(std::string_view flag, std::string_view text) {
  const Setting* s = FindSetting(flag);
  if (s == nullptr) return Status::InvalidArgument(std::string(flag) + ": not a setting of a simulation");
  if (std::string bad = s->check.check(text); !bad.empty()) return Status::InvalidArgument(bad);
  s->set(*this, text);
  return Status::Ok();
}

Status SimulateRequest::CheckRelations() const {
  for (const Setting& s : Settings()) {
    if (!given_.contains(s.flag)) continue;
    if (!s.needs.empty() && !given_.contains(s.needs)) {
      return Status::InvalidArgument(fmt::format("{} requires {}", s.flag, s.needs));
    }
    if (!s.excludes.empty() && given_.contains(s.excludes)) {
      return Status::InvalidArgument(fmt::format("{} excludes {}", s.flag, s.excludes));
    }
  }
  return Status::Ok();
}

Status SimulateRequest::Prepare(std::string* compat_report) {
  HETSCHED_RETURN_IF_ERROR(CheckRelations());
  HETSCHED_ASSIGN_OR_RETURN(CompatApplier profile, CompatApplier::Find(compat));
  RequestTarget target(this);
  HETSCHED_RETURN_IF_ERROR(profile.ApplyToTarget(target, {methods.policy}));
  profile.ApplyToChoice(methods, methods.policy);
  *compat_report = profile.Report();
  return FoldRoundIntoPolicy(round_s, &methods);
}

Status FoldRoundIntoPolicy(double round_s, MethodChoice* choice) {
  if (round_s <= 0) return Status::Ok();
  if (choice->policy_options.Has("round")) {
    return Status::InvalidArgument("--round and --policy-opt round=... both given: choose one");
  }
  choice->policy_options.Set("round", fmt::format("{}", round_s));
  return Status::Ok();
}

std::string DescribeMethods(const MethodChoice& choice) {
  return fmt::format("policy  : {}  {}\nplacer  : {}  {}\nplanner : {}  {}\n", choice.policy,
                     ProvenanceOf<JobScheduler>(choice.policy), choice.placer, ProvenanceOf<Placer>(choice.placer),
                     choice.planner, ProvenanceOf<Planner>(choice.planner));
}

std::string DescribeSimulation(const std::vector<RunRecord>& runs, const Summary& summary) {
  const RunRecord& run = runs.front();
  std::string out = "\n" + ComparisonTable(runs, {summary});
  if (run.truth_reported()) {
    out += fmt::format("truth   : {} job(s) at measured throughputs, {} mixed (a GPU count the table lacks), {} at "
                       "their trace's run time, {} at the performance model\n",
                       run.jobs_truth_measured, run.jobs_truth_mixed, run.jobs_truth_runtime, run.jobs_truth_model);
    if (run.jobs_truth_goodput > 0) {
      out += fmt::format("          {} goodput job(s) at their application's measured profile (docs/goodput.md)\n",
                         run.jobs_truth_goodput);
    }
  }
  if (run.jobs_rejected > 0) out += fmt::format("{} job(s) could never fit and were skipped\n", run.jobs_rejected);
  if (run.jobs_dropped > 0) {
    out += fmt::format("{} job(s) dropped unfinished by the policy (not counted as finished; docs/gavel.md)\n",
                       run.jobs_dropped);
  }
  return out;
}

}  // namespace hetsched
