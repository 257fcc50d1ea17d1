// mixerlab: the headless command-line tool (train, eval, info, score, export, bench, ...).
#include "app/cli/cli_commands.h"
#include "app/cli/openmp_env.h"

int main(int argc, char** argv) {
  mixerlab::cli::ensurePassiveOpenMpWait(argc, argv);
  return mixerlab::cli::runCli(argc, argv);
}
