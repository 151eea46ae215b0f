// Each subcommand registers itself on the app and, when chosen, sets `action` to its runner.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

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

}  // namespace hetsched::cli
