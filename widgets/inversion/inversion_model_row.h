// One model in the inversion inspector's list: its name and colour (the same as in the chart),
// details (architecture, folder), a progress bar with the live layer / step / loss while it is
// inverted and its final status, plus buttons to add its untrained twin (one click) and to remove
// it. Plain text in; the panel feeds the live progress.
#pragma once
#include <QColor>
#include <QFrame>
#include <QString>

class QLabel;
class QProgressBar;
class QToolButton;

namespace mixerlab::widgets {

class InversionModelRow : public QFrame {
  Q_OBJECT
 public:
  explicit InversionModelRow(QWidget* parent = nullptr);

  void setTitle(const QString& title, const QColor& colour, const QString& tooltip = {});
  void setDetails(const QString& details);
  void setTwinAvailable(bool available);  // a trained checkpoint has an untrained twin to add
  void setEditable(bool editable);        // the buttons, off while a run goes on
  // Progress: `done` of `total` steps over all its layers, with a one-line text.
  void setProgress(qint64 done, qint64 total, const QString& text);
  void setStatus(const QString& status);  // hides the bar

  QString title() const;
  QString status() const;
  int progressPercent() const;  // -1 while the bar is hidden

 Q_SIGNALS:
  void twinRequested();
  void removeRequested();

 private:
  QLabel* swatch_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* details_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* bar_ = nullptr;
  QToolButton* twin_ = nullptr;
  QToolButton* remove_ = nullptr;
};

}  // namespace mixerlab::widgets
