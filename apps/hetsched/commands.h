// Each subcommand registers itself on the app and, when chosen, sets `action` to its runner.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "hetsched/util/status.h"

namespace hetsched::cli {

void AddSimulateCommand(CLI::App& app, std::function<int()>* action);
void AddCompareCommand(CLI::App& app, std::function<int()>* action);
void AddValidateCommand(CLI::App& app, std::function<int()>* action);
void AddCatalogCommand(CLI::App& app, std::function<int()>* action);
void AddExperimentCommand(CLI::App& app, std::function<int()>* action);
void AddPlanCommand(CLI::App& app, std::function<int()>* action);
void AddForecastCommand(CLI::App& app, std::function<int()>* action);
void AddAgentCommand(CLI::App& app, std::function<int()>* action);
void AddSweepCommand(CLI::App& app, std::function<int()>* action);
void AddReportCommand(CLI::App& app, std::function<int()>* action);

// Checks `hetsched simulate <args>` as the command line would (options, ranges, conflicts, the
// methods and their options) without reading any input or running: Ok, or the error (every
// error here is a bad command line). For `hetsched sweep`, before any configuration runs.
Status CheckSimulateOptions(const std::vector<std::string>& args);

}  // namespace hetsched::cli
