// QueuePanel: the run queue made visible (the "Queue" dock). One row per waiting run, next first:
// the run, what it will do (train, resume, fork), its estimated duration on this machine and when
// it should start (the running run's remaining time plus the runs ahead of it), from
// run_time_estimate.h. Up, Down and Remove act on the selected row; the queue saves itself, so the
// panel shows the same queue after a restart.
#pragma once
#include <QPointer>
#include <QWidget>

class QTableWidget;
class QPushButton;
class QLabel;

namespace mixerlab::gui {

class RunQueue;
class RunListModel;
class ProjectDocument;

class QueuePanel : public QWidget {
  Q_OBJECT
 public:
  QueuePanel(RunListModel* runs, ProjectDocument* document, QWidget* parent = nullptr);
  void setQueue(RunQueue* queue);  // the open project's queue (recreated per project)
  QTableWidget* table() const { return table_; }
  void refresh();  // re-reads the queue and the estimates (also every few seconds)

 private:
  QString selectedRunId() const;
  void moveSelected(int delta);
  QPointer<RunQueue> queue_;
  RunListModel* runs_;
  ProjectDocument* document_;
  QTableWidget* table_;
  QPushButton *up_, *down_, *remove_;
  QLabel* summary_;
};

}  // namespace mixerlab::gui
