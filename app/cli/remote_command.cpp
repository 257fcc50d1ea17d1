// `mixerlab remote --host H --folder DIR [--user U --port P --identity F --program P --nproc N]
//  --local-run-dir DIR -- train PROJECT --run RUN ...`: runs the training on a remote host over SSH
// and mirrors it into a local run directory (core/runs/remote_run.h). The workbench's SSH targets
// start this; it also works from a shell.
#include <csignal>
#include <memory>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "core/runs/remote_run.h"
#include "core/util/error.h"

namespace mixerlab::cli {

namespace {
std::atomic<bool> g_remote_stop{false};
void onRemoteStop(int) { g_remote_stop.store(true); }

struct RemoteOptions {
  RemoteHost host;
  std::string local_run_dir;
  double poll_s = 1.0;
  std::vector<std::string> command;
};

// The run folder name of a train command: --run-id, else --run.
std::string runIdOf(const std::vector<std::string>& train) {
  std::string run, run_id;
  for (size_t i = 0; i + 1 < train.size(); ++i) {
    if (train[i] == "--run") run = train[i + 1];
    if (train[i] == "--run-id") run_id = train[i + 1];
  }
  return run_id.empty() ? run : run_id;
}
}  // namespace

void addRemoteCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<RemoteOptions>();
  auto* remote = app.add_subcommand("remote", "Train on a remote host over SSH, mirrored into a local run directory");
  remote->add_option("--host", o->host.host, "Remote host name or address")->required();
  remote->add_option("--user", o->host.user, "Remote user (default: ssh's)");
  remote->add_option("--port", o->host.port, "SSH port")->check(CLI::Range(1, 65535));
  remote->add_option("--identity", o->host.identity_file, "SSH private key file (key-based login)");
  remote->add_option("--ssh-option", o->host.ssh_options, "Extra ssh -o option (repeatable)");
  remote->add_option("--folder", o->host.folder, "Remote working folder holding the project")->required();
  remote->add_option("--program", o->host.program, "The remote mixerlab executable");
  remote->add_option("--nproc", o->host.nproc, "Data-parallel ranks on the remote host")->check(positiveNumber());
  remote->add_option("--local-run-dir", o->local_run_dir, "Local folder the run is mirrored into")->required();
  remote->add_option("--poll", o->poll_s, "Seconds between fetches of the remote run's files")->check(positiveNumber());
  remote->add_option("command", o->command, "The train command to run remotely, after --")->required();
  remote->callback([&action, o] {
    action = [o]() -> int {
      if (o->command.empty() || o->command.front() != "train") {
        throw MixerLabError("remote runs a train command: mixerlab remote ... -- train PROJECT --run RUN");
      }
      RemoteRunRequest request;
      request.host = o->host;
      request.train_arguments = o->command;
      request.run_id = runIdOf(o->command);
      request.local_run_dir = o->local_run_dir;
      request.poll_s = o->poll_s;
      request.stop_requested = &g_remote_stop;
      std::signal(SIGINT, onRemoteStop);
      std::signal(SIGTERM, onRemoteStop);
      return runRemoteTraining(request);
    };
  });
}

}  // namespace mixerlab::cli
