// `hetsched validate`: check a cluster spec or a trace file and say what is wrong, or what it holds.
#include <fmt/core.h>

#include <map>

#include "cli_common.h"
#include "commands.h"

namespace hetsched::cli {

namespace {
struct ValidateArgs {
  std::string cluster;
  std::string trace;
  std::string format = "auto";
  std::string on_bad_row = "stop";
};

int RunValidate(const ValidateArgs& a) {
  if (a.cluster.empty() && a.trace.empty()) {
    PrintErrorLine("validate needs --cluster FILE and/or --trace FILE");
    return kExitUsage;
  }
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  if (!a.cluster.empty()) {
    auto cluster = LoadClusterSpec(a.cluster, devices, LinkCatalog::BuiltIn());
    if (!cluster.ok()) return ReportError(cluster.status());
    fmt::print("{}: ok: {} racks, {}\n", a.cluster, cluster->racks().size(), cluster->Summary());
  }
  if (!a.trace.empty()) {
    TraceReadOptions opts;
    opts.on_bad_row = a.on_bad_row == "skip" ? BadRowPolicy::kSkip : BadRowPolicy::kStop;
    auto workload = ReadTrace(a.trace, a.format, opts, devices, ModelZoo::BuiltIn());
    if (!workload.ok()) return ReportError(workload.status());
    std::map<int, long long> sizes;
    for (const Job& j : workload->jobs) ++sizes[j.spec.num_gpus];
    std::string mix;
    for (const auto& [g, n] : sizes) mix += fmt::format("{}{}x{}GPU", mix.empty() ? "" : ", ", n, g);
    fmt::print("{}: ok: {} jobs ({}), {} rows read, {} skipped\n", a.trace, workload->jobs.size(), mix,
               workload->rows_read, workload->rows_skipped);
    for (const std::string& reason : workload->skipped_reasons) fmt::print("  skipped: {}\n", reason);
  }
  return kExitOk;
}
}  // namespace

void AddValidateCommand(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("validate", "Check a cluster spec and/or a trace file");
  auto a = std::make_shared<ValidateArgs>();
  cmd->add_option("--cluster", a->cluster, "Cluster spec file");
  cmd->add_option("--trace", a->trace, "Trace file");
  cmd->add_option("--format", a->format, "Trace format (default auto)");
  cmd->add_option("--on-bad-row", a->on_bad_row, "stop or skip")->check(OneOf({"stop", "skip"}));
  cmd->callback([a, action] { *action = [a] { return RunValidate(*a); }; });
}

}  // namespace hetsched::cli
