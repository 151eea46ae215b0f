#include "hetsched/run/sim_inputs.h"

#include <algorithm>
#include <cctype>
#include <fmt/core.h>

#include "hetsched/util/file_io.h"
#include "hetsched/util/printable.h"
#include "hetsched/util/text.h"

namespace hetsched {

Result<Cluster> ClusterSource::Load(std::string* description) const {
  const DeviceCatalog& devices = DeviceCatalog::BuiltIn();
  const LinkCatalog& links = LinkCatalog::BuiltIn();
  if (!file.empty() && !gpus.empty()) {
    return Status::InvalidArgument("--cluster and --gpus both given: choose one");
  }
  if (!file.empty()) {
    *description = file;
    return LoadClusterSpec(file, devices, links);
  }
  if (!gpus.empty()) {
    HETSCHED_ASSIGN_OR_RETURN(const auto counts, ParseTypeCounts(gpus, "--gpus"));
    *description = "--gpus " + gpus + " --gpus-per-server " + std::to_string(gpus_per_server);
    return MakeShorthandCluster(counts, gpus_per_server, devices, links);
  }
  *description = "built-in default cluster (data/default_cluster.yaml)";
  return DefaultCluster(devices, links);
}

Result<std::vector<std::pair<std::string, std::string>>> ParseProfileTypes(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string_view item : Split(text, ',')) {
    item = Trim(item);
    const size_t eq = item.find('=');
    std::string suffix(eq == std::string_view::npos ? std::string_view() : Trim(item.substr(0, eq)));
    std::string type(Trim(eq == std::string_view::npos ? item : item.substr(eq + 1)));
    if (type.empty()) return Status::InvalidArgument("entry " + Quoted(item) + ": expected SUFFIX=TYPE or TYPE");
    const bool plain = std::all_of(suffix.begin(), suffix.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
    if (!plain || suffix.find("..") != std::string::npos) {
      return Status::InvalidArgument("entry " + Quoted(item) + ": a suffix is letters, digits, '-', '_' and '.'");
    }
    out.emplace_back(std::move(suffix), std::move(type));
  }
  if (out.empty()) return Status::InvalidArgument("no type given (expected SUFFIX=TYPE,...)");
  return out;
}

Result<Workload> WorkloadSource::Load(const DeviceCatalog& devices, const ModelZoo& zoo) const {
  const int given = (synthetic > 0) + !trace.empty() + !text_origin.empty();
  if (given > 1) {
    return Status::InvalidArgument(synthetic > 0 ? "--trace and --synthetic both given: choose one"
                                                 : "a trace file and a trace in memory both given: choose one");
  }
  if (synthetic > 0) {
    SyntheticOptions opts;
    opts.num_jobs = synthetic;
    opts.arrival_rate_per_hour = arrival_rate_per_hour;
    opts.seed = seed;
    opts.reference_device = reference_device;
    return GenerateSynthetic(opts, devices, zoo);
  }
  TraceReadOptions opts;
  opts.on_bad_row = on_bad_row == "skip" ? BadRowPolicy::kSkip : BadRowPolicy::kStop;
  opts.max_jobs = max_jobs;
  opts.reference_device = reference_device;
  opts.goodput_profiles = profiles;
  if (!profile_types.empty()) {
    auto types = ParseProfileTypes(profile_types);
    if (!types.ok()) return types.status().WithContext("--profile-types");
    opts.goodput_types = std::move(types).value();
  }
  opts.goodput_settings = profile_settings;
  if (!text_origin.empty()) return ParseTrace(text, text_origin, format, opts, devices, zoo);
  if (trace.empty()) {
    const std::string demo = "data/traces/demo_gavel_msr_2869ce.trace";
    auto demo_text = ReadFileOrEmbedded(demo);
    if (!demo_text.ok()) return demo_text.status();
    return ParseTrace(*demo_text, demo, "gavel", opts, devices, zoo);
  }
  return ReadTrace(trace, format, opts, devices, zoo);
}

SimOptions SimSettings::ToOptions(unsigned long long seed) const {
  SimOptions o;
  o.seed = seed;
  o.restart_cost_s = restart_cost_s;
  o.resize_rendezvous_s = resize_rendezvous_s;
  o.max_time_s = max_time_s;
  o.contention = !no_contention;
  o.measured_always_consolidated = assume_consolidated;
  o.skip_unfit_jobs = skip_unfit;
  o.goodput_restart_delay_s = goodput_delay_s;
  o.goodput_interval_s = goodput_interval_s;
  o.goodput_round_epochs = goodput_round_epochs;
  o.goodput_free_moves = goodput_free_moves;
  o.whole_second_completions = whole_second_completions;
  return o;
}

Result<SimInputs> LoadSimInputs(const ClusterSource& cluster, const WorkloadSource& workload,
                                const SimSettings& settings, const ModelZoo& zoo) {
  SimInputs in;
  HETSCHED_ASSIGN_OR_RETURN(in.cluster, cluster.Load(&in.cluster_description));
  HETSCHED_ASSIGN_OR_RETURN(in.workload, workload.Load(in.cluster.device_catalog(), zoo));
  in.options = settings.ToOptions(workload.seed);
  std::string path = settings.throughputs;
  if (path == "none") return in;
  if (path == "auto") path = "data/real/gavel/throughputs.csv";  // built into the binary
  auto loaded = MeasuredThroughputs::Load(path, in.cluster.device_catalog());
  if (!loaded.ok()) return loaded.status().WithContext("--throughputs");
  in.measured = std::make_unique<MeasuredThroughputs>(std::move(loaded).value());
  std::string pairs = settings.pair_throughputs;
  if (pairs == "auto") pairs = settings.throughputs == "auto" ? "data/real/gavel/pair_throughputs.csv" : "none";
  if (pairs != "none") {
    HETSCHED_RETURN_IF_ERROR(in.measured->LoadPairs(pairs, in.cluster.device_catalog()).WithContext("--pair-throughputs"));
  }
  in.options.measured_throughputs = in.measured.get();
  return in;
}

std::string DescribeSimInputs(const SimInputs& inputs) {
  return fmt::format("cluster : {} ({})\nworkload: {} jobs from {}{}\n", inputs.cluster.Summary(),
                     inputs.cluster_description, inputs.workload.jobs.size(), inputs.workload.source,
                     inputs.workload.rows_skipped > 0
                         ? fmt::format(" ({} bad rows skipped)", inputs.workload.rows_skipped)
                         : "");
}

}  // namespace hetsched
