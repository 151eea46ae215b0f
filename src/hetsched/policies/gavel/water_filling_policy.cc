// gavel-water-filling and gavel-water-filling-agnostic: Gavel's hierarchical max-min fairness by
// water filling (max_min_fairness_water_filling_perf and max_min_fairness_water_filling,
// OSDI 2020 section 4.3), with job weights from the trace (Gavel's priority_weight, hetsched's
// `priority`) and optional entities with weights. Options and input files: docs/policies.md,
// "gavel-water-filling"; the solve: water_filling.h.
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "hetsched/policies/gavel/packed.h"
#include "hetsched/policies/gavel/packed_columns.h"
#include "hetsched/policies/gavel/policy.h"
#include "hetsched/policies/gavel/water_filling.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/file_io.h"
#include "hetsched/util/text.h"

namespace hetsched::gavel {
namespace {

// Where each job's entity comes from (option `entities`, `entity_file`).
enum class EntitySource { kNone, kUser, kFile };

struct EntityConfig {
  EntitySource source = EntitySource::kNone;
  std::map<JobId, std::string> file_entity;  // entity_file: job id -> entity
  std::map<std::string, Entity> declared;    // entity_weights / entity.NAME: name -> weight
  Reweighting default_reweighting = Reweighting::kFairness;
};

Result<Reweighting> ParseReweighting(std::string_view text, const std::string& where) {
  const std::string v = ToLower(Trim(text));
  if (v == "fairness") return Reweighting::kFairness;
  if (v == "fifo") return Reweighting::kFifo;
  return Status::InvalidArgument(where + ": reweighting must be 'fairness' or 'fifo', got '" +
                                 std::string(Trim(text)) + "'");
}

Result<double> ParseEntityWeight(std::string_view text, const std::string& where) {
  Result<double> w = ParseDouble(Trim(text), where);
  if (!w.ok()) return Status::InvalidArgument(w.status().message());
  if (!(*w > 0) || !std::isfinite(*w)) {
    return Status::InvalidArgument(where + ": must be a positive number, got '" + std::string(Trim(text)) +
                                   "'");
  }
  return *w;
}

// The data lines of a small CSV file: (line number, fields), skipping blank lines, '#' comments
// and a header whose first field is `header`. Errors are kInvalidArgument naming path and line:
// a wrong option input, refused like a wrong option (exit 2).
Result<std::vector<std::pair<int, std::vector<std::string>>>> CsvLines(const std::string& path,
                                                                       const std::string& header,
                                                                       size_t min_fields, size_t max_fields) {
  Result<std::string> text = ReadFileOrEmbedded(path);
  if (!text.ok()) return Status::InvalidArgument(text.status().message());
  std::vector<std::pair<int, std::vector<std::string>>> out;
  int number = 0;
  bool first = true;
  for (std::string_view line : Split(*text, '\n')) {
    ++number;
    line = Trim(line);
    if (line.empty() || line.front() == '#') continue;
    Result<std::vector<std::string>> fields = SplitCsvLine(line);
    const std::string where = path + ":" + std::to_string(number);
    if (!fields.ok()) return Status::InvalidArgument(where + ": " + fields.status().message());
    if (first && !fields->empty() && Trim((*fields)[0]) == header) {
      first = false;
      continue;
    }
    first = false;
    if (fields->size() < min_fields || fields->size() > max_fields) {
      return Status::InvalidArgument(
          where + ": expected " + std::to_string(min_fields) +
          (max_fields > min_fields ? " to " + std::to_string(max_fields) : std::string()) +
          " comma-separated fields, got " + std::to_string(fields->size()));
    }
    out.emplace_back(number, std::move(fields).value());
  }
  return out;
}

// entity_file: "job_id,entity" per line (header optional).
Status ReadEntityFile(const std::string& path, EntityConfig* config) {
  HETSCHED_ASSIGN_OR_RETURN(const auto lines, CsvLines(path, "job_id", 2, 2));
  for (const auto& [number, f] : lines) {
    const std::string where = path + ":" + std::to_string(number);
    Result<long long> id = ParseInt(Trim(f[0]), where + ": field 'job_id'");
    if (!id.ok() || *id < 0)
      return Status::InvalidArgument(where + ": field 'job_id': expected a job id >= 0, got '" + f[0] + "'");
    const std::string entity(Trim(f[1]));
    if (entity.empty()) return Status::InvalidArgument(where + ": field 'entity': empty");
    if (!config->file_entity.emplace(static_cast<JobId>(*id), entity).second) {
      return Status::InvalidArgument(where + ": field 'job_id': job " + f[0] + " is listed twice");
    }
  }
  return Status::Ok();
}

// entity_weights: "entity,weight[,reweighting]" per line (header optional).
Status ReadEntityWeights(const std::string& path, EntityConfig* config) {
  HETSCHED_ASSIGN_OR_RETURN(const auto lines, CsvLines(path, "entity", 2, 3));
  for (const auto& [number, f] : lines) {
    const std::string where = path + ":" + std::to_string(number);
    Entity e;
    e.name = std::string(Trim(f[0]));
    if (e.name.empty()) return Status::InvalidArgument(where + ": field 'entity': empty");
    HETSCHED_ASSIGN_OR_RETURN(e.weight, ParseEntityWeight(f[1], where + ": field 'weight'"));
    e.reweighting = config->default_reweighting;
    if (f.size() == 3) {
      HETSCHED_ASSIGN_OR_RETURN(e.reweighting, ParseReweighting(f[2], where + ": field 'reweighting'"));
    }
    if (!config->declared.emplace(e.name, e).second) {
      return Status::InvalidArgument(where + ": field 'entity': '" + e.name + "' is listed twice");
    }
  }
  return Status::Ok();
}

Result<EntityConfig> EntityOptions(const Options& options) {
  EntityConfig config;
  const std::string source = options.GetString("entities", "none");
  const std::string file = options.GetString("entity_file", "");
  if (source != "none" && source != "user") {
    return Status::InvalidArgument("option 'entities' must be 'none' or 'user', got '" + source + "'");
  }
  if (!file.empty() && source == "user") {
    return Status::InvalidArgument("options 'entities=user' and 'entity_file' exclude each other");
  }
  config.source = !file.empty()      ? EntitySource::kFile
                  : source == "user" ? EntitySource::kUser
                                     : EntitySource::kNone;
  HETSCHED_ASSIGN_OR_RETURN(
      config.default_reweighting,
      ParseReweighting(options.GetString("reweighting", "fairness"), "option 'reweighting'"));
  if (!file.empty()) HETSCHED_RETURN_IF_ERROR(ReadEntityFile(file, &config));
  const std::string weights = options.GetString("entity_weights", "");
  if (!weights.empty()) HETSCHED_RETURN_IF_ERROR(ReadEntityWeights(weights, &config));
  // entity.NAME=W: one entity's weight on the command line (over the file's).
  for (const auto& [key, value] : options.values()) {
    if (key.rfind("entity.", 0) != 0) continue;
    const std::string name = key.substr(7);
    if (name.empty()) return Status::InvalidArgument("option '" + key + "': no entity name after 'entity.'");
    (void)options.GetString(key, "");  // marks it used
    Entity e{name, 1, config.default_reweighting};
    if (auto it = config.declared.find(name); it != config.declared.end())
      e.reweighting = it->second.reweighting;
    HETSCHED_ASSIGN_OR_RETURN(e.weight, ParseEntityWeight(value, "option '" + key + "'"));
    config.declared[name] = e;
  }
  if (config.source == EntitySource::kNone && !config.declared.empty()) {
    return Status::InvalidArgument(
        "entity weights given without entities: set 'entities=user' or 'entity_file'");
  }
  return config;
}

class WaterFillingPolicy final : public RoundPolicy {
 public:
  // `packed`: Gavel's max_min_fairness_water_filling_packed (space sharing, SolveWaterFillingPacked).
  WaterFillingPolicy(std::string name, double round_s, bool blind, WaterFillingOptions options,
                     EntityConfig entities, bool packed = false)
      : RoundPolicy(std::move(name), round_s, blind),
        options_(options),
        entities_(std::move(entities)),
        packed_(packed),
        solver_(packed ? lp::WarmStartMatch::kName : lp::WarmStartMatch::kShape) {}

  void OnJobSubmitted(const JobStatus& job, SchedContext& ctx) override {
    if (entities_.source == EntitySource::kUser && !job.spec->user.empty())
      user_.emplace(job.spec->id, job.spec->user);
    RoundPolicy::OnJobSubmitted(job, ctx);
  }
  void OnJobFinished(const JobStatus& job, SchedContext& ctx) override {
    user_.erase(job.spec->id);
    RoundPolicy::OnJobFinished(job, ctx);
  }

 protected:
  Result<Allocation> ComputeAllocation(const AllocationProblem& problem) override {
    if (packed_) {
      return SolveWaterFillingPacked(problem, AssignmentFor(problem), WaterFillingPackedOptions{options_}, solver_,
                                     nullptr, &memory_);
    }
    return SolveWaterFilling(problem, AssignmentFor(problem), options_, solver_);
  }

 private:
  // The entities of this problem's jobs, in name order; weights as declared (1 where not).
  EntityAssignment AssignmentFor(const AllocationProblem& problem) const {
    EntityAssignment out;
    if (entities_.source == EntitySource::kNone) return out;
    std::map<JobId, std::string> named;
    std::set<std::string> names;
    for (const AllocationJob& job : problem.jobs) {
      const auto& source = entities_.source == EntitySource::kUser ? user_ : entities_.file_entity;
      auto it = source.find(job.id);
      if (it == source.end()) continue;
      named.emplace(job.id, it->second);
      names.insert(it->second);
    }
    std::map<std::string, int> index;
    for (const std::string& name : names) {
      auto it = entities_.declared.find(name);
      index[name] = static_cast<int>(out.entities.size());
      out.entities.push_back(it != entities_.declared.end() ? it->second
                                                            : Entity{name, 1, entities_.default_reweighting});
    }
    for (const auto& [id, name] : named) out.entity_of[id] = index[name];
    return out;
  }

  WaterFillingOptions options_;
  EntityConfig entities_;
  bool packed_;
  std::map<JobId, std::string> user_;  // entities=user: the active jobs' users
  // Packed: by key, so that each reset's first level LP starts from the last reset's first level
  // (the jobs that stayed keep their basis; water_filling.cc) where after every arrival or finish
  // the shape differs: on g1s6c71a0 at 36:36:36, 1,205 pivots over 135 first levels against
  // 103,720 cold. The non-packed policy keeps matching by shape.
  lp::WarmStartLpSolver solver_;
  PairColumnMemory memory_;  // packed: the pair columns of the last allocation, posed from the start
};

Result<std::unique_ptr<JobScheduler>> MakeWaterFilling(const Options& options, const std::string& name,
                                                       bool blind, bool packed = false) {
  WaterFillingOptions wf;
  HETSCHED_ASSIGN_OR_RETURN(wf.point, PointOption(options));
  if (wf.point == SharePoint::kCentre) {
    return Status::InvalidArgument("option 'point' of " + name + " must be 'vertex' or 'cvxopt'");
  }
  HETSCHED_ASSIGN_OR_RETURN(wf.tight_milp, options.GetBool("tight_milp", wf.tight_milp));
  HETSCHED_ASSIGN_OR_RETURN(wf.decide_without_solve,
                            options.GetBool("decide_without_solve", wf.decide_without_solve));
  HETSCHED_ASSIGN_OR_RETURN(wf.slack, options.GetDouble("slack", wf.slack));
  HETSCHED_ASSIGN_OR_RETURN(wf.epsilon, options.GetDouble("epsilon", wf.epsilon));
  if (!(wf.slack >= 1) || !std::isfinite(wf.slack))
    return Status::InvalidArgument("option 'slack' must be >= 1");
  if (!(wf.epsilon >= 0) || !std::isfinite(wf.epsilon))
    return Status::InvalidArgument("option 'epsilon' must be >= 0");
  HETSCHED_ASSIGN_OR_RETURN(EntityConfig entities, EntityOptions(options));
  HETSCHED_ASSIGN_OR_RETURN(const double round_s, RoundOption(options));
  HETSCHED_ASSIGN_OR_RETURN(GavelMechanismOptions mechanism, MechanismOption(options, packed ? "gavel" : "hetsched"));
  if (packed && !mechanism.enabled) {
    return Status::InvalidArgument("policy '" + name + "' runs only under Gavel's mechanism (mechanism=gavel): "
                                   "the one that runs pairs of jobs");
  }
  if (packed && wf.point != SharePoint::kVertex) {
    return Status::InvalidArgument("option 'point' of " + name + " must be 'vertex' (pairs have no other point)");
  }
  if (packed) {
    HETSCHED_RETURN_IF_ERROR(PairFinishOption(options, mechanism));
    HETSCHED_ASSIGN_OR_RETURN(const PairColumns columns, PairColumnsOption(options, PairColumns::kPriced));
    wf.generate_pair_columns = columns == PairColumns::kPriced;
    HETSCHED_ASSIGN_OR_RETURN(wf.remember_pair_columns, options.GetBool("column_memory", wf.remember_pair_columns));
  }
  // Gavel shuffles the types for a policy without "Perf" or "Packing" in its name (scheduler.py:879-881).
  mechanism.shuffle_types = blind && !packed;
  auto policy = std::make_unique<WaterFillingPolicy>(name, round_s, blind, wf, std::move(entities), packed);
  HETSCHED_RETURN_IF_ERROR(ProfileOption(options, *policy));
  HETSCHED_RETURN_IF_ERROR(PairProfileOption(options, *policy));
  policy->SetGavelMechanism(mechanism);
  policy->SetPacking(packed);
  return std::unique_ptr<JobScheduler>(std::move(policy));
}

}  // namespace

HETSCHED_REGISTER_IMPL(
    JobScheduler, kGavelWaterFillingRegistered,
    (MethodInfo{"gavel-water-filling",
                "Gavel hierarchical max-min fairness by water filling (job and entity weights), rounds",
                "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 4.3, max_min_fairness_water_filling_perf; "
                "entity input (user column, files, entity.NAME) [REC]"}),
    [](const Options& o) { return MakeWaterFilling(o, "gavel-water-filling", false); })
HETSCHED_REGISTER_IMPL(
    JobScheduler, kGavelWaterFillingAgnosticRegistered,
    (MethodInfo{"gavel-water-filling-agnostic",
                "Gavel water filling with every throughput = 1 (heterogeneity-blind), rounds",
                "[SRC] Gavel (Narayanan et al., OSDI 2020) max_min_fairness_water_filling "
                "(heterogeneity-agnostic)"}),
    [](const Options& o) { return MakeWaterFilling(o, "gavel-water-filling-agnostic", true); })
HETSCHED_REGISTER_IMPL(
    JobScheduler, kGavelWaterFillingPackedRegistered,
    (MethodInfo{"gavel-water-filling-packed",
                "Gavel hierarchical max-min fairness by water filling with space sharing, Gavel's rounds",
                "[SRC] Gavel (Narayanan et al., OSDI 2020) sec. 3.1/4.3, max_min_fairness_water_filling_packed; "
                "entity input [REC]"}),
    [](const Options& o) { return MakeWaterFilling(o, "gavel-water-filling-packed", false, true); })

}  // namespace hetsched::gavel
