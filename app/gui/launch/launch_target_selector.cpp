// The launch-target selector with each target's hardware (see launch_target_selector.h).
#include "app/gui/launch/launch_target_selector.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>

#include "app/gui/common/app_settings.h"
#include "app/gui/launch/run_launcher.h"
#include "app/gui/launch/target_probe.h"

namespace mixerlab::gui {

namespace {
QString targetHelp(const QString& name) {
  if (name == "local") return "One process on this machine, on the project's device (train.device).";
  if (name.endsWith(" ranks"))
    return "Data parallel on this machine's CPU: the ranks share the cores and the global batch (Gloo).";
  if (name.endsWith(" GPUs")) return "Data parallel, one rank per GPU of this machine (NCCL when the build has it).";
  if (name.startsWith("local, GPU")) return "One process on this GPU.";
  return "A saved remote host: trains there over SSH and mirrors the run here.";
}

// What a target's hardware is cached and probed under: every local target is this one machine, so
// switching between them neither probes it again nor caches it twice.
QString hardwareKey(const QString& name) { return name.startsWith("local") ? QString("local") : name; }
}  // namespace

LaunchTargetSelector::LaunchTargetSelector(QString cli_path, QWidget* parent, int gpu_count) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  box_ = new QComboBox(this);
  box_->setObjectName("launch_target");
  hardware_ = new QLabel(this);
  hardware_->setObjectName("target_hardware");
  hardware_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(box_);
  layout->addWidget(hardware_);
  probe_ = new TargetProbe(std::move(cli_path), this);
  connect(probe_, &TargetProbe::probed, this, &LaunchTargetSelector::onProbed);
  connect(probe_, &TargetProbe::failed, this, &LaunchTargetSelector::onProbeFailed);
  for (const QString& name : launchTargetNames(gpu_count)) addTarget(name);
  connect(box_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    probe_->probe(hardwareKey(name));  // first, so the label says "probing..."
    showHardwareOf(name);
    Q_EMIT targetChanged(name);
  });
  probe_->probe(hardwareKey(currentTarget()));
  showHardwareOf(currentTarget());
}

QString LaunchTargetSelector::currentTarget() const { return box_->currentText(); }
void LaunchTargetSelector::setCurrentTarget(const QString& name) { box_->setCurrentText(name); }

QStringList LaunchTargetSelector::targets() const {
  QStringList names;
  for (int i = 0; i < box_->count(); ++i) names << box_->itemText(i);
  return names;
}

void LaunchTargetSelector::addTarget(const QString& name) {
  if (box_->findText(name) >= 0) return;
  box_->addItem(name);
  box_->setItemData(box_->count() - 1, targetHelp(name) + "\n" + hardwareOf(name), Qt::ToolTipRole);
}

QString LaunchTargetSelector::hardwareOf(const QString& name) const {
  const QString cached = AppSettings().targetHardware(hardwareKey(name));
  if (cached.isEmpty()) return "hardware: not probed yet";
  return cached;
}

QString LaunchTargetSelector::hardwareLabelText() const { return hardware_->text(); }

void LaunchTargetSelector::showHardwareOf(const QString& name) {
  QString text = hardwareOf(name);
  const QString when = AppSettings().targetHardwareTime(hardwareKey(name));
  if (probe_->isProbing(hardwareKey(name))) text += "  (probing...)";
  hardware_->setText(" " + text);
  hardware_->setToolTip(when.isEmpty() ? targetHelp(name) : targetHelp(name) + "\nprobed " + when);
}

// `key` is a hardwareKey(): "local" answers for every local target.
void LaunchTargetSelector::onProbed(const QString& key, const QString& description) {
  AppSettings().setTargetHardware(key, description, QDateTime::currentDateTime().toString(Qt::ISODate));
  for (int i = 0; i < box_->count(); ++i) {
    const QString item = box_->itemText(i);
    if (hardwareKey(item) == key) box_->setItemData(i, targetHelp(item) + "\n" + description, Qt::ToolTipRole);
  }
  if (hardwareKey(currentTarget()) == key) showHardwareOf(currentTarget());
}

void LaunchTargetSelector::onProbeFailed(const QString& key, const QString& error) {
  if (hardwareKey(currentTarget()) != key) return;
  const QString cached = AppSettings().targetHardware(key);
  hardware_->setText(" " + (cached.isEmpty() ? QString("hardware unknown") : cached + "  (last known)") +
                     ": probe failed");
  hardware_->setToolTip(error);
}

}  // namespace mixerlab::gui
