// The command line (hetsched's main): every command registered, parsed, run. Also what the
// Python module calls in-process (python/), so that both read flags and write outputs the same way.
#include <CLI/CLI.hpp>
#include <functional>
#include <sstream>

#include "cli_common.h"
#include "commands.h"

namespace hetsched::cli {

int RunCli(int argc, char** argv) {
  CLI::App app{
      "hetsched: schedule deep-learning training jobs on heterogeneous GPU clusters, and prove\n"
      "the decisions in a deterministic trace-driven simulator.\n\n"
      "Exit codes: 0 ok, 1 bad input or failed run, 2 bad command line, 3 internal error (a bug)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hetsched 0.1.0");
  std::function<int()> action;
  AddSimulateCommand(app, &action);
  AddCompareCommand(app, &action);
  AddValidateCommand(app, &action);
  AddCatalogCommand(app, &action);
  AddExperimentCommand(app, &action);
  AddPlanCommand(app, &action);
  AddForecastCommand(app, &action);
  AddAgentCommand(app, &action);
  AddSweepCommand(app, &action);
  AddReportCommand(app, &action);
  RequireFiniteNumbers(app);  // no NaN or infinity in any number (issue 20)
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    std::fputs(out.str().c_str(), stdout);
    std::string message = err.str();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    if (!message.empty()) {
      if (code != 0) {
        PrintErrorText(message);
      } else {
        std::fputs((message + "\n").c_str(), stderr);
      }
    }
    return code == 0 ? 0 : kExitUsage;
  }
  return action ? action() : kExitUsage;
}

}  // namespace hetsched::cli
