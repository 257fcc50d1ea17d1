// The mixerlab command-line interface: one registration function per subcommand group, so the
// program file stays a thin main and tests can drive commands in-process.
#pragma once
#include <functional>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace mixerlab::cli {

// Exit codes: 0 success (or a stopped run), 1 error, 2 usage error, 3 training failed (e.g. NaN).
int runCli(int argc, char** argv);

// Each adds its subcommands; the callback stored in `action` runs the chosen one and returns the exit code.
using Action = std::function<int()>;
void addTrainCommands(CLI::App& app, Action& action);
void addInspectCommands(CLI::App& app, Action& action);  // info, eval, score, export, runs
void addTokenizerCommands(CLI::App& app, Action& action);
void addDataCommands(CLI::App& app, Action& action);  // data prepare|list|prune
void addBenchCommands(CLI::App& app, Action& action);
void addConfigCommands(CLI::App& app, Action& action);     // config schema
void addGenerateCommand(CLI::App& app, Action& action);    // generate
void addInvertCommand(CLI::App& app, Action& action);      // invert
void addRetrievalCommands(CLI::App& app, Action& action);  // retrieval build|train|eval|query
void addLaunchCommand(CLI::App& app, Action& action);      // launch (data-parallel ranks)
void addRemoteCommand(CLI::App& app, Action& action);      // remote (train over SSH, mirrored)
void addProbeCommand(CLI::App& app, Action& action);       // probe (a machine's cores, memory, GPUs)
void addReproduceCommand(CLI::App& app, Action& action);   // reproduce (the paper's claims, with a report)
void addSlurmCommands(CLI::App& app, Action& action);      // slurm submit|status|stop (a run as a batch job)
// `bench generate`, added under the bench command by addBenchCommands.
void addGenerateBench(CLI::App& bench, Action& action);
// `bench kernels` (kernel_bench.cpp), added under the bench command by addBenchCommands.
void addKernelBench(CLI::App& bench, Action& action);
// `bench data` (data_bench.cpp), added under the bench command by addBenchCommands.
void addDataBench(CLI::App& bench, Action& action);

}  // namespace mixerlab::cli
