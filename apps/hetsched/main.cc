// hetsched: heterogeneity-aware scheduling for deep-learning clusters. The CLI is thin: parse,
// call the library, print.
#include <CLI/CLI.hpp>
#include <functional>

#include "cli_common.h"
#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "hetsched: schedule deep-learning training jobs on heterogeneous GPU clusters, and prove\n"
      "the decisions in a deterministic trace-driven simulator.\n\n"
      "Exit codes: 0 ok, 1 bad input or failed run, 2 bad command line, 3 internal error (a bug)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hetsched 0.1.0");
  std::function<int()> action;
  hetsched::cli::AddSimulateCommand(app, &action);
  hetsched::cli::AddCompareCommand(app, &action);
  hetsched::cli::AddValidateCommand(app, &action);
  hetsched::cli::AddCatalogCommand(app, &action);
  hetsched::cli::AddExperimentCommand(app, &action);
  hetsched::cli::AddPlanCommand(app, &action);
  hetsched::cli::AddForecastCommand(app, &action);
  hetsched::cli::AddAgentCommand(app, &action);
  hetsched::cli::AddSweepCommand(app, &action);
  hetsched::cli::AddReportCommand(app, &action);
  hetsched::cli::RequireFiniteNumbers(app);  // no NaN or infinity in any number (issue 20)
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : hetsched::cli::kExitUsage;
  }
  return action ? action() : hetsched::cli::kExitUsage;
}
