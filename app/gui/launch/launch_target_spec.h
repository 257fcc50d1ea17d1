// What a launch target is, as a value: its kind (this machine, its CPU ranks, one of its GPUs, all
// of its GPUs, a saved SSH host) and its one number or host. The selector, the queue, the probe
// and the main window pass this value; the words a user reads (display name, help) are derived
// from it and never parsed back.
#pragma once
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>

namespace mixerlab::gui {

// A saved remote host: where `mixerlab remote` trains over SSH (core/runs/remote_run.h). The remote
// folder must hold the project under the same file name.
struct RemoteHostSettings {
  QString host, user, identity, folder, program = "mixerlab";
  int port = 22, nproc = 1;
  QString targetName() const;  // "ssh: user@host"
  QVariantMap toMap() const;
  static RemoteHostSettings fromMap(const QVariantMap& map);
};

enum class LaunchTargetKind {
  kLocal,       // one process on the project's device (train.device)
  kLocalRanks,  // data parallel on this machine's CPU, `count` ranks (Gloo)
  kLocalGpu,    // one process on GPU `count`
  kLocalGpus,   // data parallel, one rank per GPU, `count` GPUs (NCCL)
  kRemoteHost,  // a saved SSH host, `host`
};

struct LaunchTargetSpec {
  LaunchTargetKind kind = LaunchTargetKind::kLocal;
  int count = 0;            // the GPU index (kLocalGpu) or the ranks (kLocalRanks, kLocalGpus)
  RemoteHostSettings host;  // kRemoteHost only

  static LaunchTargetSpec local() { return {}; }
  static LaunchTargetSpec localRanks(int ranks) { return {LaunchTargetKind::kLocalRanks, ranks, {}}; }
  static LaunchTargetSpec localGpu(int gpu) { return {LaunchTargetKind::kLocalGpu, gpu, {}}; }
  static LaunchTargetSpec localGpus(int gpus) { return {LaunchTargetKind::kLocalGpus, gpus, {}}; }
  static LaunchTargetSpec remote(RemoteHostSettings host) {
    return {LaunchTargetKind::kRemoteHost, 0, std::move(host)};
  }

  bool isLocal() const { return kind != LaunchTargetKind::kRemoteHost; }
  // "local", "local, 2 ranks", "local, GPU 3", "local, 4 GPUs", "ssh: user@host".
  QString displayName() const;
  // One sentence on what the target does with a run (the selector's tooltip).
  QString help() const;
  // What the target's hardware is probed and cached under: every local target is this one machine
  // ("local"); a remote host is its own.
  QString hardwareKey() const;
  // The CLI arguments that report the target's hardware: {"probe", "--json"} here, with the host's
  // --host/--port/--program/--folder/--user/--identity for a remote host.
  QStringList probeArguments() const;
  // The same target: kind and number, or for a remote host the same "user@host" (saving a host
  // again under that name replaces its settings, see saveRemoteHost).
  bool operator==(const LaunchTargetSpec& other) const;
  bool operator!=(const LaunchTargetSpec& other) const { return !(*this == other); }
};

// Every target a machine offers, in the selector's order: local, 2 CPU ranks, then with GPUs each
// GPU and (two or more) one rank per GPU, then every saved remote host (AppSettings::remoteHosts).
// `gpu_count` < 0: the GPUs LibTorch sees.
QList<LaunchTargetSpec> launchTargets(int gpu_count = -1);

}  // namespace mixerlab::gui
