// Builds the CLI11 application and maps errors to clear messages and exit codes.
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "core/runs/run_directory.h"
#include "core/util/error.h"
#include "core/util/stack_frames.h"
#include "kernels/environment/compute_paths.h"

namespace mixerlab::cli {
namespace {

// The process's compute paths, parsed once here: the environment's, then the flags' on top, which
// are also exported so the processes this one starts (runs, ranks, bench cells) take the same paths.
// A mistyped value stops the program before any work, naming the variable or flag.
void startComputePaths(const std::vector<std::string>& flags) {
  kernels::ComputePaths paths = kernels::computePathsFromEnvironment();
  for (const std::string& flag : flags) kernels::applyComputePath(paths, flag);
  for (const kernels::ComputePathSetting& setting : kernels::computePathSettings()) {
    const std::string value = setting.get(paths);
    if (value != setting.get(kernels::ComputePaths{})) {
      kernels::setEnvironmentValue(setting.variable, value);
    } else {
      kernels::clearEnvironmentValue(setting.variable);
    }
  }
  kernels::setActiveComputePaths(paths);
}

}  // namespace

int runCli(int argc, char** argv) {
  CLI::App app{"mixerlab: train, inspect and benchmark masked mixers and transformers (headless)"};
  app.set_version_flag("--version",
                       "mixerlab " + toolVersion() + (gitCommit().empty() ? "" : " (" + gitCommit() + ")"));
  app.require_subcommand(1);
  app.fallthrough();  // --compute-path may follow the subcommand
  std::vector<std::string> compute_path_flags;
  app.add_option(
         "--compute-path", compute_path_flags,
         "KEY=VALUE: force one compute path for this process and every process it starts (docs/compute-paths.md)")
      ->type_name("KEY=VALUE");
  Action action;
  addTrainCommands(app, action);
  addInspectCommands(app, action);
  addTokenizerCommands(app, action);
  addDataCommands(app, action);
  addBenchCommands(app, action);
  addConfigCommands(app, action);
  addGenerateCommand(app, action);
  addInvertCommand(app, action);
  addRetrievalCommands(app, action);
  addLaunchCommand(app, action);
  addRemoteCommand(app, action);
  addSlurmCommands(app, action);
  addProbeCommand(app, action);
  addReproduceCommand(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    startComputePaths(compute_path_flags);
    return action ? action() : 0;
  } catch (const MixerLabError& e) {  // it may quote a LibTorch error, frames and all
    std::cerr << "error: " << withoutStackFrames(e.problem()) << "\n";
    if (!e.fix().empty()) std::cerr << "fix: " << e.fix() << "\n";
    return 1;
  } catch (const std::exception& e) {  // c10::Error among them: its message, never its C++ stack
    std::cerr << "error: " << withoutStackFrames(e.what()) << "\n";
    return 1;
  }
}

}  // namespace mixerlab::cli
