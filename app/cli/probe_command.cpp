// `mixerlab probe [--json] [--host H --user U --port P --identity F --folder DIR --program P]`: what
// a machine can train on (cores, memory, GPUs, NCCL; core/train/hardware_report.h). Without --host
// it reports this machine; with --host it asks the remote mixerlab over SSH. The workbench runs it
// (asynchronously) to show each launch target's hardware before a launch.
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "core/train/hardware_report.h"

namespace mixerlab::cli {

namespace {
struct ProbeOptions {
  RemoteHost host;
  bool json = false;
};
}  // namespace

void addProbeCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<ProbeOptions>();
  auto* probe = app.add_subcommand("probe", "What this machine (or a remote host, over SSH) can train on");
  probe->add_flag("--json", o->json, "Print the report as JSON (after a marker line)");
  probe->add_option("--host", o->host.host, "Probe this remote host over SSH instead of this machine");
  probe->add_option("--user", o->host.user, "Remote user (default: ssh's)");
  probe->add_option("--port", o->host.port, "SSH port")->check(CLI::Range(1, 65535));
  probe->add_option("--identity", o->host.identity_file, "SSH private key file (key-based login)");
  probe->add_option("--ssh-option", o->host.ssh_options, "Extra ssh -o option (repeatable)");
  probe->add_option("--folder", o->host.folder, "Remote working folder (where the remote mixerlab runs)");
  probe->add_option("--program", o->host.program, "The remote mixerlab executable");
  probe->callback([&action, o] {
    action = [o]() -> int {
      const HardwareReport report = o->host.host.empty() ? probeThisMachine() : probeRemoteMachine(o->host);
      if (o->json) {
        std::printf("%s\n%s\n", kHardwareReportMarker, hardwareReportToJson(report).dump().c_str());
      } else {
        std::printf("%s\n", describeHardware(report).c_str());
      }
      return 0;
    };
  });
}

}  // namespace mixerlab::cli
