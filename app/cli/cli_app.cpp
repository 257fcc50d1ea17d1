// Builds the CLI11 application and maps errors to clear messages and exit codes.
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "core/runs/run_directory.h"
#include "core/util/error.h"
#include "core/util/stack_frames.h"

namespace mixerlab::cli {

int runCli(int argc, char** argv) {
  CLI::App app{"mixerlab: train, inspect and benchmark masked mixers and transformers (headless)"};
  app.set_version_flag("--version",
                       "mixerlab " + toolVersion() + (gitCommit().empty() ? "" : " (" + gitCommit() + ")"));
  app.require_subcommand(1);
  Action action;
  addTrainCommands(app, action);
  addInspectCommands(app, action);
  addTokenizerCommands(app, action);
  addBenchCommands(app, action);
  addConfigCommands(app, action);
  addGenerateCommand(app, action);
  addInvertCommand(app, action);
  addRetrievalCommands(app, action);
  addLaunchCommand(app, action);
  addRemoteCommand(app, action);
  addProbeCommand(app, action);
  addReproduceCommand(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
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
