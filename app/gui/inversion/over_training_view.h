// The inspector's "Over training" page: choose a run (its checkpoints are the columns, its
// untrained twin first) and the inputs (the first N eval documents, or the panel's input text),
// start (the panel runs the job with its settings), and see the layer x step heatmap of the mean
// Hamming distance (top-k or exact). Clicking a cell shows that checkpoint and layer's token diff
// below, for the input chosen there. The page only shows; InversionPanel owns the worker.
#pragma once
#include <QString>
#include <QWidget>
#include <string>
#include <vector>

#include "core/analysis/inversion_over_training.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace mixerlab::widgets {
class RefreshingComboBox;
class InversionDiffView;
class InversionHeatmap;
}  // namespace mixerlab::widgets

namespace mixerlab::gui {

class OverTrainingView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kDefaultEvalDocuments = 4;
  explicit OverTrainingView(QWidget* parent = nullptr);

  void setRunsDirectory(const QString& runs_directory);  // offers its runs with checkpoints
  QString setRun(const QString& run_dir);                // a run folder; error message, empty on success
  QString runDirectory() const;                          // the chosen run folder, empty for none
  int evalDocuments() const;                             // 0: the panel's input text
  void setEvalDocuments(int count);
  void setRunning(bool running);
  void setProgress(const QString& text, int permille);
  void showMessage(const QString& text);

  void setGrid(const InversionOverTraining& grid, const std::vector<std::string>& texts, int top_k);
  bool hasGrid() const { return has_grid_; }
  const InversionOverTraining& grid() const { return grid_; }
  const std::vector<std::string>& texts() const { return texts_; }
  // Shows the token diff of heatmap cell (row = layer index, column = checkpoint) for input
  // `input` (the input box's when -1). False when the cell has no result.
  bool showCell(int row, int column, int input = -1);
  QString cellTitle() const;
  widgets::InversionHeatmap* heatmap() const { return heatmap_; }
  widgets::InversionDiffView* diffView() const { return diff_; }

  // Lists the runs folder's runs that have checkpoints, as they are now; also done whenever the page
  // is shown and whenever the run list opens, so runs trained since then appear.
  void refreshRuns();
  int runCount() const;

 Q_SIGNALS:
  void startRequested();
  void runChanged();  // another run chosen (its depth may differ)

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void redrawHeatmap();

  QString runs_directory_;
  widgets::RefreshingComboBox* run_box_ = nullptr;
  QPushButton* folder_ = nullptr;
  QSpinBox* inputs_ = nullptr;
  QComboBox* metric_ = nullptr;
  QPushButton* start_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  widgets::InversionHeatmap* heatmap_ = nullptr;
  QLabel* cell_title_ = nullptr;
  QComboBox* input_box_ = nullptr;
  widgets::InversionDiffView* diff_ = nullptr;

  InversionOverTraining grid_;
  std::vector<std::string> texts_;
  int top_k_ = 5;
  bool has_grid_ = false;
  int row_ = -1, column_ = -1;
};

}  // namespace mixerlab::gui
