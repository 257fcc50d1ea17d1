// The toolbar's launch-target selector: a combo box of launchTargets() and, beside it, what the
// chosen target has ("4x Tesla V100-SXM2-32GB (32 GiB each), NCCL, 40 cores, 376 GiB memory"),
// so a user sees the hardware before launching. Each target is probed in the background when it
// is chosen (TargetProbe); the last answer is kept in AppSettings and shown until a fresh one
// arrives, and every item's tooltip carries its target's description.
#pragma once
#include <QList>
#include <QWidget>

#include "app/gui/launch/launch_target_spec.h"

class QComboBox;
class QLabel;

namespace mixerlab::gui {

class TargetProbe;

class LaunchTargetSelector : public QWidget {
  Q_OBJECT
 public:
  // `gpu_count` < 0: the GPUs LibTorch sees (tests pass a count).
  explicit LaunchTargetSelector(QString cli_path, QWidget* parent = nullptr, int gpu_count = -1);

  LaunchTargetSpec currentTarget() const;
  // Chooses `target` when it is listed; returns false (and changes nothing) otherwise.
  bool setCurrentTarget(const LaunchTargetSpec& target);
  // Adds a target (a newly saved remote host), or takes a listed one's new settings (a host saved
  // again under the same name).
  void addTarget(const LaunchTargetSpec& target);
  QList<LaunchTargetSpec> targets() const { return targets_; }
  // The description shown for a target (cached or fresh; "not probed yet" before any answer).
  QString hardwareOf(const LaunchTargetSpec& target) const;
  QString hardwareLabelText() const;
  TargetProbe* probe() const { return probe_; }

 Q_SIGNALS:
  void targetChanged(const mixerlab::gui::LaunchTargetSpec& target);

 private:
  void onProbed(const QString& key, const QString& description);
  void onProbeFailed(const QString& key, const QString& error);
  void showHardwareOf(const LaunchTargetSpec& target);

  QComboBox* box_ = nullptr;
  QLabel* hardware_ = nullptr;
  TargetProbe* probe_ = nullptr;
  QList<LaunchTargetSpec> targets_;  // the combo box's items, in order
};

}  // namespace mixerlab::gui
