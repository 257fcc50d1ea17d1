// The toolbar's launch-target selector: a combo box of launchTargetNames() and, beside it, what the
// chosen target has ("4x Tesla V100-SXM2-32GB (32 GiB each), NCCL, 40 cores, 376 GiB memory"),
// so a user sees the hardware before launching. Each target is probed in the background when it
// is chosen (TargetProbe); the last answer is kept in AppSettings and shown until a fresh one
// arrives, and every item's tooltip carries its target's description.
#pragma once
#include <QWidget>

class QComboBox;
class QLabel;

namespace mixerlab::gui {

class TargetProbe;

class LaunchTargetSelector : public QWidget {
  Q_OBJECT
 public:
  // `gpu_count` < 0: the GPUs LibTorch sees (tests pass a count).
  explicit LaunchTargetSelector(QString cli_path, QWidget* parent = nullptr, int gpu_count = -1);

  QString currentTarget() const;
  void setCurrentTarget(const QString& name);
  // Adds a target (a newly saved remote host) when it is not listed yet.
  void addTarget(const QString& name);
  QStringList targets() const;
  // The description shown for a target (cached or fresh; "not probed yet" before any answer).
  QString hardwareOf(const QString& name) const;
  QString hardwareLabelText() const;
  TargetProbe* probe() const { return probe_; }

 Q_SIGNALS:
  void targetChanged(const QString& name);

 private:
  void onProbed(const QString& key, const QString& description);
  void onProbeFailed(const QString& key, const QString& error);
  void showHardwareOf(const QString& name);

  QComboBox* box_ = nullptr;
  QLabel* hardware_ = nullptr;
  TargetProbe* probe_ = nullptr;
};

}  // namespace mixerlab::gui
