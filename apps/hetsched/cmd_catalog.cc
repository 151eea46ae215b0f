// `hetsched catalog`: what hetsched knows: device types, links, models, and the registered
// policies, placers and planners with where each comes from.
#include <fmt/core.h>

#include "cli_common.h"
#include "hetsched/compat/compat.h"
#include "commands.h"
#include "hetsched/experiments/experiment.h"
#include "hetsched/planners/hetero_problem.h"
#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"

namespace hetsched::cli {

namespace {
void PrintMethods(const char* title, const std::vector<MethodInfo>& list) {
  fmt::print("{}\n", title);
  for (const MethodInfo& m : list) {
    fmt::print("  {:<18} {}\n  {:<18} {}\n", m.name, m.summary, "", m.provenance);
    const std::string peers = CompatProfiles::Instance().Reproduces(m.name);
    if (!peers.empty()) fmt::print("  {:<18} reproduces {}\n", "", peers);
  }
  fmt::print("\n");
}

void PrintCompatProfiles() {
  fmt::print("Compatibility profiles (--compat NAME; docs/compat.md)\n");
  for (const CompatProfile* p : CompatProfiles::Instance().List()) {
    fmt::print("  {:<18} {}\n  {:<18} {}\n", p->name, p->summary, "", p->peer);
    for (const CompatSetting& s : p->settings) {
      std::string only;
      for (const std::string& pol : s.policies) only += (only.empty() ? " [" : ", ") + pol;
      if (!only.empty()) only += "]";
      fmt::print("  {:<18}   {} {}{}  ({})\n", "", s.option, s.value, only, s.source);
    }
  }
  fmt::print("\n");
}

int RunCatalog(const std::string& what) {
  const bool all = what == "all";
  if (all || what == "devices") {
    fmt::print("Device types (data/devices.json)\n  {:<12} {:>8} {:>9} {:>7} {:>7} {:>8}  {}\n", "name", "FP32 TF",
               "tensor TF", "mem GiB", "TDP W", "$/hour", "price source");
    for (const DeviceType& d : DeviceCatalog::BuiltIn().types()) {
      fmt::print("  {:<12} {:>8.1f} {:>9.1f} {:>7.0f} {:>7.0f} {:>8.3f}  {}\n", d.name, d.fp32_flops / 1e12,
                 d.tensor_flops / 1e12, d.memory_bytes / (1024.0 * 1024 * 1024), d.tdp_watts, d.price_per_hour,
                 d.price_source);
    }
    fmt::print("\n");
  }
  if (all || what == "links") {
    fmt::print("Links (data/links.json)\n  {:<10} {:>10} {:>10}  {}\n", "name", "GB/s", "latency us", "description");
    for (const LinkClass& l : LinkCatalog::BuiltIn().links()) {
      fmt::print("  {:<10} {:>10.2f} {:>10.1f}  {}\n", l.name, l.bandwidth_Bps / 1e9, l.latency_s * 1e6, l.display_name);
    }
    fmt::print("\n");
  }
  if (all || what == "models") {
    fmt::print("Models (per-layer profiles, docs/models.md)\n  {:<20} {:>7} {:>10} {:>12} {:>6}  {}\n", "name", "layers",
               "params M", "GFLOP/sample", "batch", "description");
    for (const ModelProfile& m : ModelZoo::BuiltIn().models()) {
      fmt::print("  {:<20} {:>7} {:>10.1f} {:>12.2f} {:>6}  {}\n", m.name, m.layers.size(),
                 m.total_param_bytes() / 4e6, (m.total_fwd_flops_per_sample() + m.total_bwd_flops_per_sample()) / 1e9,
                 m.default_batch_size, m.display_name);
    }
    fmt::print("\n");
  }
  if (all || what == "policies") PrintMethods("Job schedulers (--policy)", Registry<JobScheduler>::Instance().List());
  if (all || what == "placers") PrintMethods("Placers (--placer)", Registry<Placer>::Instance().List());
  if (all || what == "planners") {
    PrintMethods("Planners (--planner)", Registry<Planner>::Instance().List());
    PrintMethods("Heterogeneous planners (hetsched plan --planner)", Registry<HeteroPlanner>::Instance().List());
  }
  if (all || what == "experiments") {
    PrintMethods("Experiments (hetsched experiment NAME)", Registry<Experiment>::Instance().List());
  }
  if (all || what == "compat") PrintCompatProfiles();
  return kExitOk;
}
}  // namespace

void AddCatalogCommand(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("catalog", "List device types, links, models, policies, placers and planners");
  auto what = std::make_shared<std::string>("all");
  cmd->add_option("what", *what, "all, devices, links, models, policies, placers, planners, experiments or compat")
      ->check(OneOf({"all", "devices", "links", "models", "policies", "placers", "planners", "experiments", "compat"}));
  cmd->callback([what, action] { *action = [what] { return RunCatalog(*what); }; });
}

}  // namespace hetsched::cli
