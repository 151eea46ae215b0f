// hetsched: heterogeneity-aware scheduling for deep-learning clusters. The CLI is thin: parse,
// call the library, print (cli_main.cc).
#include "cli_common.h"
#include "hetsched/util/memory.h"

int main(int argc, char** argv) {
  hetsched::KeepFreedHeapMemory();
  return hetsched::cli::RunCli(argc, argv);
}
