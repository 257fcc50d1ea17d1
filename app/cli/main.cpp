// mixerlab: the headless command-line tool (train, eval, info, score, export, bench, ...).
#include "app/cli/cli_commands.h"
#include "core/util/openmp_wait.h"

int main(int argc, char** argv) {
  mixerlab::ensurePassiveOpenMpWait(argv);
  return mixerlab::cli::runCli(argc, argv);
}
