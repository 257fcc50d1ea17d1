// `mixerlab launch --nproc N [--nnodes M --node-rank R --master HOST:PORT] -- train ...`: starts N
// data-parallel ranks of this program on this node (core/distributed/rank_launcher.h). A job started
// by torchrun or srun with the same variables needs no launcher: `mixerlab train` joins it directly.
// The ranks die with the launcher; a rank that makes no progress for --stall-timeout-s fails the job;
// a failed job's message and the run's status.json name the rank (core/train/launch_outcome.h).
#include <cstdio>
#include <memory>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "core/distributed/rank_launcher.h"
#include "core/train/launch_outcome.h"
#include "core/util/error.h"

namespace mixerlab::cli {

namespace {
struct LaunchOptions {
  int nproc = 1, nnodes = 1, node_rank = 0;
  std::string master;
  double grace_s = 5;
  double stall_timeout_s = kDefaultStallTimeoutS;
  std::string backend = "auto";
  std::vector<std::string> command;
};

std::string thisProgram() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw MixerLabError("launch: cannot find this program's path (/proc/self/exe)");
  return std::string(path, static_cast<size_t>(n));
}
}  // namespace

void addLaunchCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<LaunchOptions>();
  auto* launch = app.add_subcommand(
      "launch", "Run a command (train ...) as N data-parallel ranks on this node: Gloo on CPU, NCCL on GPUs");
  launch->add_option("--nproc", o->nproc, "Ranks on this node (GPUs, or CPU processes)")->check(positiveNumber());
  launch->add_option("--nnodes", o->nnodes, "Nodes in the job")->check(positiveNumber());
  launch->add_option("--node-rank", o->node_rank, "This node's index, 0 .. nnodes-1")->check(nonNegativeNumber());
  launch->add_option("--master", o->master, "HOST:PORT of the rendezvous (node 0); default 127.0.0.1 and a free port");
  launch->add_option("--grace", o->grace_s, "Seconds a rank may take to stop after another failed")
      ->check(nonNegativeNumber());
  launch
      ->add_option("--stall-timeout-s", o->stall_timeout_s,
                   "Fail the job when a rank reaches no new training step for this many seconds (default " +
                       std::to_string(static_cast<int>(kDefaultStallTimeoutS)) +
                       "; 0: never; at least 3), watched from each rank's first step")
      ->check(nonNegativeNumber());
  launch
      ->add_option("--backend", o->backend,
                   "Process-group backend: auto (NCCL when every rank has a GPU), gloo or nccl")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))
      ->capture_default_str();
  launch->add_option("command", o->command, "The mixerlab command every rank runs, after --")->required();
  launch->footer("Example: mixerlab launch --nproc 2 -- train projects/demo/project.json --run mixer");
  launch->callback([&action, o] {
    action = [o]() -> int {
      LaunchPlan plan;
      plan.program = thisProgram();
      plan.args = o->command;
      plan.nproc = o->nproc;
      plan.nnodes = o->nnodes;
      plan.node_rank = o->node_rank;
      plan.grace_s = o->grace_s;
      plan.stall_timeout_s = o->stall_timeout_s;
      plan.backend = o->backend;
      if (!o->master.empty()) {
        const size_t colon = o->master.rfind(':');
        if (colon == std::string::npos) throw MixerLabError("--master " + o->master + " is not HOST:PORT");
        plan.master_addr = o->master.substr(0, colon);
        try {
          plan.master_port = std::stoi(o->master.substr(colon + 1));
        } catch (const std::exception&) {
          throw MixerLabError("--master " + o->master + ": the port is not a number");
        }
      }
      const LaunchResult result = launchRanks(plan);
      if (result.exit_code != 0) std::fprintf(stderr, "error: %s\n", recordLaunchOutcome(result).c_str());
      return result.exit_code;
    };
  });
}

}  // namespace mixerlab::cli
