#include "hetsched/sched/methods.h"

#include <vector>

#include "hetsched/util/text.h"

namespace hetsched {

Result<Methods> CreateMethods(const MethodChoice& choice, unsigned long long seed, const MethodLabels& labels,
                              bool* bad_choice, Methods built) {
  bool bad = false;
  auto seeded = [seed](Options o) {
    o.SetDefault("seed", std::to_string(seed));
    return o;
  };
  Methods methods = std::move(built);
  auto made = [&]() -> Status {
    if (!methods.scheduler) {
      HETSCHED_ASSIGN_OR_RETURN(methods.scheduler,
                                CreateNamed<JobScheduler>(choice.policy, seeded(choice.policy_options), labels.policy,
                                                        labels.policy_options, &bad));
    }
    if (!methods.placer) {
      HETSCHED_ASSIGN_OR_RETURN(methods.placer, CreateNamed<Placer>(choice.placer, seeded(choice.placer_options),
                                                                  labels.placer, labels.placer_options, &bad));
    }
    if (!methods.planner) {
      HETSCHED_ASSIGN_OR_RETURN(methods.planner, CreateNamed<Planner>(choice.planner, seeded(choice.planner_options),
                                                                    labels.planner, labels.planner_options, &bad));
    }
    return Status::Ok();
  }();
  if (bad_choice != nullptr) *bad_choice = bad;
  if (!made.ok()) return made;
  return methods;
}

Result<std::pair<std::string, Options>> ParseMethodSpec(const std::string& spec) {
  auto parts = Split(spec, ':');
  const std::string name(Trim(parts[0]));
  if (name.empty()) return Status::InvalidArgument("method '" + spec + "': empty name");
  std::vector<std::string> items;
  for (size_t i = 1; i < parts.size(); ++i) items.emplace_back(parts[i]);
  auto options = Options::Parse(items);
  if (!options.ok()) return options.status().WithContext("method '" + spec + "'");
  return std::make_pair(name, std::move(options).value());
}

}  // namespace hetsched
