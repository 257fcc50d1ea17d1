// The launch-target selector with each target's hardware (see launch_target_selector.h).
#include "app/gui/launch/launch_target_selector.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>

#include "app/gui/common/app_settings.h"
#include "app/gui/launch/target_probe.h"

namespace mixerlab::gui {

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
  for (const LaunchTargetSpec& target : launchTargets(gpu_count)) addTarget(target);
  connect(box_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index < 0 || index >= targets_.size()) return;
    const LaunchTargetSpec target = targets_.at(index);
    probe_->probe(target);  // first, so the label says "probing..."
    showHardwareOf(target);
    Q_EMIT targetChanged(target);
  });
  probe_->probe(currentTarget());
  showHardwareOf(currentTarget());
}

LaunchTargetSpec LaunchTargetSelector::currentTarget() const {
  return targets_.value(box_->currentIndex(), LaunchTargetSpec::local());
}

bool LaunchTargetSelector::setCurrentTarget(const LaunchTargetSpec& target) {
  const qsizetype index = targets_.indexOf(target);
  if (index < 0) return false;
  box_->setCurrentIndex(static_cast<int>(index));
  return true;
}

void LaunchTargetSelector::addTarget(const LaunchTargetSpec& target) {
  if (const qsizetype listed = targets_.indexOf(target); listed >= 0) {
    targets_[listed] = target;
    return;
  }
  targets_ << target;
  box_->addItem(target.displayName());
  box_->setItemData(box_->count() - 1, target.help() + "\n" + hardwareOf(target), Qt::ToolTipRole);
}

QString LaunchTargetSelector::hardwareOf(const LaunchTargetSpec& target) const {
  const QString cached = AppSettings().targetHardware(target.hardwareKey());
  if (cached.isEmpty()) return "hardware: not probed yet";
  return cached;
}

QString LaunchTargetSelector::hardwareLabelText() const { return hardware_->text(); }

void LaunchTargetSelector::showHardwareOf(const LaunchTargetSpec& target) {
  QString text = hardwareOf(target);
  const QString when = AppSettings().targetHardwareTime(target.hardwareKey());
  if (probe_->isProbing(target.hardwareKey())) text += "  (probing...)";
  hardware_->setText(" " + text);
  hardware_->setToolTip(when.isEmpty() ? target.help() : target.help() + "\nprobed " + when);
}

// `key` is a hardwareKey(): "local" answers for every local target.
void LaunchTargetSelector::onProbed(const QString& key, const QString& description) {
  AppSettings().setTargetHardware(key, description, QDateTime::currentDateTime().toString(Qt::ISODate));
  for (int i = 0; i < targets_.size(); ++i) {
    const LaunchTargetSpec& item = targets_.at(i);
    if (item.hardwareKey() == key) box_->setItemData(i, item.help() + "\n" + description, Qt::ToolTipRole);
  }
  if (currentTarget().hardwareKey() == key) showHardwareOf(currentTarget());
}

void LaunchTargetSelector::onProbeFailed(const QString& key, const QString& error) {
  if (currentTarget().hardwareKey() != key) return;
  const QString cached = AppSettings().targetHardware(key);
  hardware_->setText(" " + (cached.isEmpty() ? QString("hardware unknown") : cached + "  (last known)") +
                     ": probe failed");
  hardware_->setToolTip(error);
}

}  // namespace mixerlab::gui
