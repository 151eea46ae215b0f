#include "hetsched/run/compare_request.h"

#include <fmt/core.h>

#include <thread>

#include "hetsched/report/html_report.h"
#include "hetsched/report/plot.h"
#include "hetsched/report/run_dirs.h"
#include "hetsched/report/run_record_json.h"
#include "hetsched/report/writers.h"
#include "hetsched/run/value_checks.h"
#include "hetsched/sim/runner.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched {

std::vector<std::pair<std::string, std::string>> ComparePairs(const std::vector<std::string>& policies,
                                                              const std::vector<std::string>& placers,
                                                              const std::vector<std::string>& runs) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!runs.empty()) {
    for (const std::string& r : runs) {
      const size_t plus = r.find('+');
      pairs.emplace_back(r.substr(0, plus), plus == std::string::npos ? "pack" : r.substr(plus + 1));
    }
    return pairs;
  }
  for (const std::string& p : policies) {
    for (const std::string& pl : placers) pairs.emplace_back(p, pl);
  }
  return pairs;
}

Result<std::vector<CompareSpec>> ParseCompareSpecs(const std::vector<std::pair<std::string, std::string>>& pairs,
                                                   const std::string& policy_flag, const std::string& placer_flag) {
  std::vector<CompareSpec> specs;
  for (const auto& [p, pl] : pairs) {
    auto policy = ParseMethodSpec(p);
    if (!policy.ok()) return policy.status().WithContext(policy_flag);
    auto placer = ParseMethodSpec(pl);
    if (!placer.ok()) return placer.status().WithContext(placer_flag);
    specs.push_back(CompareSpec{policy->first, placer->first, std::move(policy->second), std::move(placer->second),
                                p + "+" + pl});
  }
  return specs;
}

std::vector<std::string> PolicyNames(const std::vector<CompareSpec>& specs) {
  std::vector<std::string> names;
  for (const CompareSpec& s : specs) names.push_back(s.policy);
  return names;
}

std::vector<MethodChoice> CompareChoices(const std::vector<CompareSpec>& specs, const std::string& planner,
                                         double round_s, CompatApplier& compat) {
  std::vector<MethodChoice> choices;
  for (const CompareSpec& spec : specs) {
    MethodChoice c;
    c.policy = spec.policy;
    c.policy_options = spec.policy_options;
    c.placer = spec.placer;
    c.placer_options = spec.placer_options;
    c.planner = planner;
    // A round-based policy reads it; the others ignore it (like --seed).
    if (round_s > 0 && !c.policy_options.Has("round")) c.policy_options.SetDefault("round", fmt::format("{}", round_s));
    compat.ApplyToChoice(c, spec.label);
    choices.push_back(std::move(c));
  }
  return choices;
}

Result<CompareOutcome> RunCompare(const SimInputs& inputs, std::vector<Methods> methods,
                                  const std::vector<std::string>& labels, int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto results = RunMany(inputs.cluster, ModelZoo::BuiltIn(), inputs.workload, std::move(methods), inputs.options,
                         threads);
  CompareOutcome outcome;
  outcome.labels = labels;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) return results[i].status().WithContext(labels[i]);
    outcome.runs.push_back(std::move(results[i]).value());
    outcome.runs.back().policy = labels[i];
    outcome.summaries.push_back(Summarize(outcome.runs.back()));
  }
  return outcome;
}

Status AddRealRuns(const std::vector<std::string>& dirs, CompareOutcome* outcome) {
  for (const std::string& dir : dirs) {
    const std::string path = dir + "/run.json";
    HETSCHED_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
    HETSCHED_ASSIGN_OR_RETURN(RunRecord real, ParseRunRecordJson(text, path));
    outcome->labels.push_back("real:" + real.policy + "+" + real.placer);
    real.policy = outcome->labels.back();
    outcome->summaries.push_back(Summarize(real));
    outcome->runs.push_back(std::move(real));
  }
  return Status::Ok();
}

Status WriteCompareOutputs(const std::string& dir, const CompareOutcome& o) {
  HETSCHED_RETURN_IF_ERROR(MakeDirs(dir));
  for (size_t i = 0; i < o.runs.size(); ++i) {
    // With the whole record (run.json), so that `hetsched report DIR` can rebuild the report.
    HETSCHED_RETURN_IF_ERROR(WriteRunDir(dir + "/" + RunDirName(o.labels[i]), o.runs[i], o.summaries[i]));
  }
  for (const auto& [name, text] :
       std::vector<std::pair<std::string, std::string>>{{"compare.txt", ComparisonTable(o.runs, o.summaries)},
                                                        {"compare.csv", ComparisonCsv(o.runs, o.summaries)},
                                                        {"utilisation.svg", UtilisationSvg(o.runs)},
                                                        {"jct_cdf.svg", JctCdfSvg(o.runs)},
                                                        {"report.html", ComparisonHtml(o.runs, o.summaries)}}) {
    HETSCHED_RETURN_IF_ERROR(WriteFileAtomic(dir + "/" + name, text));
  }
  return Status::Ok();
}

namespace {

// A comma-separated list, as CLI11 splits the command line's (empty items dropped).
std::vector<std::string> CommaList(std::string_view text) {
  std::vector<std::string> items;
  for (std::string_view item : Split(text, ',')) {
    if (!item.empty()) items.emplace_back(item);
  }
  return items;
}

// A compare request's settings as a compat profile's target: a profile's --placer is the
// request's placers.
class CompareTarget final : public CompatTarget {
 public:
  explicit CompareTarget(CompareRequest* request) : request_(request) {}
  std::string_view name() const override { return "compare"; }
  bool Has(std::string_view option) const override {
    return option == "--placer" || (option != "--policy" && IsSimulateRequestFlag(option));
  }
  std::optional<std::string> Given(std::string_view option) const override {
    const auto& given = request_->base.given();
    auto it = given.find(option == "--placer" ? "--placers" : option);
    if (it == given.end()) return std::nullopt;
    return it->second;
  }
  Status Set(std::string_view option, std::string_view value) override {
    if (option == "--placer") {
      request_->placers = CommaList(value);
      return Status::Ok();
    }
    return request_->base.SetByProfile(option, value);
  }

 private:
  CompareRequest* request_;
};

}  // namespace

Status CompareRequest::Set(std::string_view flag, std::string_view text) {
  if (flag == "--policies" || flag == "--placers" || flag == "--runs") {
    std::vector<std::string>& list = flag == "--policies" ? policies : flag == "--placers" ? placers : runs;
    list = CommaList(text);
  } else if (flag == "--real-run") {
    real_runs.emplace_back(text);
  } else if (flag == "--threads") {
    const ValueCheck check = WholeInRangeCheck(1, 1024);
    if (std::string bad = check.check(text); !bad.empty()) return Status::InvalidArgument("--threads: " + bad);
    threads = static_cast<int>(ParseInt(Trim(text), "value").value());
  } else if (flag == "--policy" || flag == "--placer") {
    return Status::InvalidArgument(std::string(flag) + ": not a setting of a comparison (it takes " + std::string(flag) +
                                   (flag == "--policy" ? "--policies" : "--placers") + ")");
  } else {
    return base.Set(flag, text);
  }
  base.NoteGiven(flag, text);
  return Status::Ok();
}

Status CompareRequest::Prepare(std::vector<CompareSpec>* specs, std::vector<MethodChoice>* choices,
                               std::string* compat_report) {
  HETSCHED_RETURN_IF_ERROR(base.CheckRelations());
  const bool by_runs = !runs.empty();
  if (by_runs && (base.given().contains("--policies") || base.given().contains("--placers"))) {
    return Status::InvalidArgument("--runs excludes --policies and --placers");
  }
  const char* policy_flag = by_runs ? "--runs" : "--policies";
  const char* placer_flag = by_runs ? "--runs" : "--placers";
  HETSCHED_ASSIGN_OR_RETURN(*specs, ParseCompareSpecs(ComparePairs(policies, placers, runs), policy_flag, placer_flag));
  HETSCHED_ASSIGN_OR_RETURN(CompatApplier profile, CompatApplier::Find(base.compat));
  CompareTarget target(this);
  HETSCHED_RETURN_IF_ERROR(profile.ApplyToTarget(target, PolicyNames(*specs)));
  // The profile may have set the placers (its --placer): the runs are those of the lists now.
  HETSCHED_ASSIGN_OR_RETURN(*specs, ParseCompareSpecs(ComparePairs(policies, placers, runs), policy_flag, placer_flag));
  *choices = CompareChoices(*specs, base.methods.planner, base.round_s, profile);
  *compat_report = profile.Report();
  return Status::Ok();
}

}  // namespace hetsched
