// Launch targets as values (see launch_target_spec.h).
#include "app/gui/launch/launch_target_spec.h"

#include <algorithm>
#include <iterator>

#include "app/gui/common/app_settings.h"
#include "core/train/device.h"

namespace mixerlab::gui {

QString RemoteHostSettings::targetName() const { return "ssh: " + (user.isEmpty() ? host : user + "@" + host); }

QVariantMap RemoteHostSettings::toMap() const {
  return {{"host", host},     {"user", user},       {"port", port},  {"identity", identity},
          {"folder", folder}, {"program", program}, {"nproc", nproc}};
}

RemoteHostSettings RemoteHostSettings::fromMap(const QVariantMap& map) {
  RemoteHostSettings h;
  h.host = map.value("host").toString();
  h.user = map.value("user").toString();
  h.port = map.value("port", 22).toInt();
  h.identity = map.value("identity").toString();
  h.folder = map.value("folder").toString();
  h.program = map.value("program", "mixerlab").toString();
  h.nproc = std::max(1, map.value("nproc", 1).toInt());
  return h;
}

QString LaunchTargetSpec::displayName() const {
  switch (kind) {
    case LaunchTargetKind::kLocal:
      return "local";
    case LaunchTargetKind::kLocalRanks:
      return "local, " + QString::number(count) + " ranks";
    case LaunchTargetKind::kLocalGpu:
      return "local, GPU " + QString::number(count);
    case LaunchTargetKind::kLocalGpus:
      return "local, " + QString::number(count) + " GPUs";
    case LaunchTargetKind::kRemoteHost:
      return host.targetName();
  }
  return {};
}

QString LaunchTargetSpec::help() const {
  // One sentence per LaunchTargetKind, in the enum's order.
  static const char* const kHelp[] = {
      "One process on this machine, on the project's device (train.device).",
      "Data parallel on this machine's CPU: the ranks share the cores and the global batch (Gloo).",
      "One process on this GPU.",
      "Data parallel, one rank per GPU of this machine (NCCL when the build has it).",
      "A saved remote host: trains there over SSH and mirrors the run here.",
  };
  static_assert(std::size(kHelp) == static_cast<size_t>(LaunchTargetKind::kRemoteHost) + 1, "one sentence per kind");
  return kHelp[static_cast<int>(kind)];
}

QString LaunchTargetSpec::hardwareKey() const { return isLocal() ? QString("local") : host.targetName(); }

QStringList LaunchTargetSpec::probeArguments() const {
  if (isLocal()) return {"probe", "--json"};
  QStringList args{"probe",     "--json",     "--host",       host.host,          "--port", QString::number(host.port),
                   "--program", host.program, "--ssh-option", "ConnectTimeout=10"};
  if (!host.folder.isEmpty()) args << "--folder" << host.folder;
  if (!host.user.isEmpty()) args << "--user" << host.user;
  if (!host.identity.isEmpty()) args << "--identity" << host.identity;
  return args;
}

bool LaunchTargetSpec::operator==(const LaunchTargetSpec& other) const {
  if (kind != other.kind || count != other.count) return false;
  return kind != LaunchTargetKind::kRemoteHost || host.targetName() == other.host.targetName();
}

QList<LaunchTargetSpec> launchTargets(int gpu_count) {
  if (gpu_count < 0) gpu_count = static_cast<int>(cudaDeviceCount());
  QList<LaunchTargetSpec> targets{LaunchTargetSpec::local(), LaunchTargetSpec::localRanks(2)};
  for (int k = 0; k < gpu_count; ++k) targets << LaunchTargetSpec::localGpu(k);
  if (gpu_count >= 2) targets << LaunchTargetSpec::localGpus(gpu_count);
  for (const QVariantMap& host : AppSettings().remoteHosts())
    targets << LaunchTargetSpec::remote(RemoteHostSettings::fromMap(host));
  return targets;
}

}  // namespace mixerlab::gui
