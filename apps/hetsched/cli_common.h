// Shared plumbing of the CLI's subcommands, in three parts: option checks (cli_validate.h), the
// options that choose inputs and methods (cli_inputs.h), errors and progress (cli_report.h).
#pragma once

#include "cli_inputs.h"
#include "cli_report.h"
#include "cli_validate.h"
#include "hetsched/sched/registry.h"
#include "hetsched/sim/runner.h"

namespace hetsched::cli {

// The whole command line as `hetsched` runs it (main() is this): returns the exit code.
int RunCli(int argc, char** argv);

}  // namespace hetsched::cli
