#include "cli_inputs.h"

#include <fmt/core.h>

#include "hetsched/sched/job_scheduler.h"
#include "hetsched/sched/placer.h"
#include "hetsched/sched/planner.h"
#include "hetsched/sched/registry.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"
#include "cli_report.h"
#include "cli_validate.h"

namespace hetsched::cli {

void ClusterArgs::Add(CLI::App& app) {
  CLI::Option* cluster = app.add_option("--cluster", file, "Cluster spec file (YAML or JSON; see docs/formats.md)")
                             ->check(DataFile());
  CLI::Option* shorthand =
      app.add_option("--gpus", gpus, "Cluster shorthand instead of a file: TYPE=COUNT,... e.g. v100=36,p100=36,k80=36")
          ->excludes(cluster)
          ->check(DeviceCounts());
  app.add_option("--gpus-per-server", gpus_per_server, "Devices per server for --gpus")
      ->check(WholeAtLeast(1))
      ->needs(shorthand);
}

void WorkloadArgs::Add(CLI::App& app) {
  app.add_option("--trace", trace, "Trace file (default: the built-in Gavel/Philly demo trace)");
  app.add_option("--format", format, "Trace format (auto: by the file's extension and header): " + [] {
    std::string s;
    for (const auto& f : TraceFormats()) s += (s.empty() ? "" : ", ") + f;
    return s;
  }());
  CLI::Option* trace_opt = app.get_option("--trace");
  CLI::Option* synthetic_opt =
      app.add_option("--synthetic", synthetic, "Generate N synthetic jobs instead of reading a trace")
          ->check(WholeAtLeast(1))
          ->excludes(trace_opt);
  app.add_option("--arrival-rate", arrival_rate_per_hour, "Synthetic: job arrivals per hour (Poisson)")
      ->check(NumberAbove(0))
      ->needs(synthetic_opt);
  app.add_option("--max-jobs", max_jobs, "Read at most N jobs of the trace")->check(WholeAtLeast(1))->excludes(synthetic_opt);
  app.add_option("--on-bad-row", on_bad_row, "What a malformed trace row does: stop (error) or skip (count it)")
      ->check(OneOf({"stop", "skip"}));
  app.add_option("--reference-device", reference_device,
                 "Device type on which runtime-only traces were measured (to convert runtimes to iterations)");
  app.add_option("--profiles", profiles,
                 "Goodput applications' profiles, DIR/<application>/ (Pollux's and Sia's traces/ layout; default: "
                 "Pollux's, built in): the truth of a Pollux or Sia workload's jobs (docs/goodput.md)")
      ->excludes(synthetic_opt);
  app.add_option("--profile-types", profile_types,
                 "The profiles' GPU types, SUFFIX=TYPE,...: placements-SUFFIX.csv was measured on device type TYPE "
                 "(Sia's: aws=t4,dgx-ext=a100-40gb,rtx=rtx-2080ti); a bare TYPE names the unsuffixed files "
                 "(default: t4, Pollux's). A goodput job may run on these types, each at its own measured speed")
      ->check(ProfileTypes())
      ->excludes(synthetic_opt);
  app.add_option("--profile-settings", profile_settings,
                 "Whose settings the applications get beside their files: pollux (yolov3's local batch 8, ncf on one "
                 "GPU at batch 32768) or sia (deepspeech2's local batch 57 on rtx; Sia's re-allocation delays, calibration "
                 "slowdowns and local batch per placement: docs/goodput.md)")
      ->check(OneOf({"pollux", "sia"}))
      ->excludes(synthetic_opt);
  app.add_option("--seed", seed, "Seed for every random choice (same seed, same output)")->check(SeedValue());
}

void SimArgs::Add(CLI::App& app) {
  app.add_option("--restart-cost", restart_cost_s, "Seconds a preempted job loses when it restarts (checkpoint reload)")
      ->check(NumberAtLeast(0));
  app.add_option("--resize-rendezvous", resize_rendezvous_s,
                 "Seconds an elastic job (trace column 'elastic') loses re-forming its ring when a policy resizes it, "
                 "before the state broadcast (docs/elastic.md)")
      ->check(NumberAtLeast(0));
  app.add_option("--max-time", max_time_s, "Stop the simulation at this simulated time (seconds)")->check(NumberAbove(0));
  app.add_flag("--no-contention", no_contention, "Do not share NIC bandwidth between cross-node jobs");
  app.add_flag("--assume-consolidated", assume_consolidated,
               "Measured jobs run at their consolidated measured speed wherever their devices are (as Gavel's simulator)");
  app.add_flag("--skip-unfit", skip_unfit, "Skip (and count) jobs that can never fit the cluster instead of failing");
  app.add_option("--goodput-delay", goodput_delay_s,
                 "Seconds a goodput job (Pollux's or Sia's workloads) holds its GPUs without progress after each "
                 "placement, its first too (default: its application's own under --profile-settings sia, else 30; "
                 "docs/goodput.md)")
      ->check(NumberAtLeast(0));
  app.add_option("--goodput-interval", goodput_interval_s,
                 "Seconds between an adaptive goodput job's measurements of itself and batch re-picks")
      ->check(NumberAbove(0));
  app.add_flag("--goodput-free-moves", goodput_free_moves,
               "A goodput job moved at once to GPUs of the same type, as many per node, continues without delay or "
               "restart, as Sia's simulator lets it (docs/compat.md, \"Sia\")");
  app.add_flag("--goodput-round-epochs", goodput_round_epochs,
               "A goodput job's epoch ends on a whole second after its last boundary, as Pollux's simulator rounds it");
  app.add_flag("--whole-second-completions", whole_second_completions,
               "A job's completion within 1e-4 s of a whole second is that second, as on a peer whose clock counts "
               "whole seconds (Tiresias's; set by --compat tiresias)");
  app.add_flag("-q,--quiet", quiet, "No progress bar");
  app.add_option("--throughputs", throughputs,
                 "Measured throughputs (Gavel CSV) used as the simulator's truth for the trace jobs they cover: "
                 "a path, 'auto' (Gavel's measured table, data/real/gavel/throughputs.csv, built in) or 'none'");
  app.add_option("--pair-throughputs", pair_throughputs,
                 "Measured co-location throughputs (Gavel's pairs, space sharing) added to --throughputs' table: a path, "
                 "'auto' (data/real/gavel/pair_throughputs.csv, built in, where --throughputs is 'auto') or 'none'");
}


void MethodArgs::Add(CLI::App& app) {
  app.add_option("--policy", policy, "Job scheduler (see `hetsched catalog policies`)");
  app.add_option("--policy-opt", policy_opts, "Policy option KEY=VALUE (repeatable)");
  app.add_option("--placer", placer, "Placer (see `hetsched catalog placers`)");
  app.add_option("--placer-opt", placer_opts, "Placer option KEY=VALUE (repeatable)");
  app.add_option("--planner", planner, "Planner (see `hetsched catalog planners`)");
  app.add_option("--planner-opt", planner_opts, "Planner option KEY=VALUE (repeatable)");
}

Result<MethodChoice> MethodArgs::ToChoice() const {
  MethodChoice choice;
  choice.policy = policy;
  choice.placer = placer;
  choice.planner = planner;
  for (auto [items, target, flag] : {std::tuple{&policy_opts, &choice.policy_options, "--policy-opt"},
                                     std::tuple{&placer_opts, &choice.placer_options, "--placer-opt"},
                                     std::tuple{&planner_opts, &choice.planner_options, "--planner-opt"}}) {
    auto parsed = Options::Parse(*items);
    if (!parsed.ok()) return parsed.status().WithContext(flag);
    *target = std::move(parsed).value();
  }
  return choice;
}

Result<std::vector<std::pair<std::string, int>>> ParsePool(const std::string& text) {
  return ParseTypeCounts(text, "--pool", /*count_optional=*/true);
}

Status SetCostPool(const std::string& pool_text, const std::string& network, PlanningProblem* problem) {
  const DeviceCatalog& catalog = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  problem->objective = PlanObjective::kCostUnderThroughput;
  problem->catalog = &catalog;
  auto net = links.Lookup(network);
  if (!net.ok()) return net.status().WithContext("--network");
  problem->network = &links.link(*net);
  HETSCHED_ASSIGN_OR_RETURN(const auto pool, ParsePool(pool_text));
  problem->pool.clear();
  for (const auto& [name, cap] : pool) {
    auto type = catalog.Lookup(name);
    if (!type.ok()) return type.status().WithContext("--pool");
    problem->pool.push_back({*type, cap});
  }
  return Status::Ok();
}

}  // namespace hetsched::cli
