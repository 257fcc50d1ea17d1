// The representation-inversion inspector (the main window's "Inspect" tab): up to four models
// (a project run's latest checkpoint, any checkpoint folder, and each one's untrained twin in one
// click), one input (typed, or one of the first model's eval-split documents), the layers and the
// descent's options; Invert runs the models one after the other on a worker thread with live
// progress per model and Cancel. Results: the Hamming distance per layer as a chart (one colour per
// model, top-k solid, exact dashed), the descent's loss at the chosen layer, and the token diff of
// the chosen layer (click the chart or pick the layer): every model's recovered tokens under the
// input's, mismatches highlighted, the true token's rank on hover. The "Over training" page shows a
// run's layer x step heatmap and a cell's diff. Everything saves as one JSON file.
#pragma once
#include <QString>
#include <QWidget>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/common/checkpoint_column.h"
#include "app/gui/common/checkpoint_picker.h"
#include "core/analysis/inversion.h"
#include "core/analysis/inversion_report.h"

class QComboBox;
class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QVBoxLayout;

namespace mixerlab::widgets {
class InversionDiffView;
class InversionLayerChart;
class InversionLossPlot;
class InversionModelRow;
class InversionSettingsForm;
}  // namespace mixerlab::widgets

namespace mixerlab::gui {

class BackgroundJob;
class EvalSplitLoader;
class OverTrainingView;

class InversionPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxModels = 4;
  static constexpr int kEvalDocuments = 20;  // eval-split documents offered as inputs

  enum class ModelState { kReady, kWaiting, kRunning, kDone, kCancelled, kFailed, kSkipped };

  explicit InversionPanel(QWidget* parent = nullptr);
  ~InversionPanel() override;  // stops and joins the worker thread

  // The open project's runs folder; another folder than before (another project) stops the panel
  // and removes its models and results.
  void setRunsDirectory(const QString& runs_directory);
  // Adds a model: a run folder (its latest checkpoint, pinned now), a checkpoints/ folder or a
  // checkpoint folder, or with `untrained` its untrained twin. Returns an error message, empty on
  // success.
  QString addModel(const QString& path, bool untrained = false);
  QString addUntrainedTwin(int index);  // of model `index`
  // "Add run" / "Folder...": up to kMaxModels checkpoints or untrained twins, each once.
  CheckpointPicker* checkpointPicker() const { return picker_; }
  void removeModel(int index);
  int modelCount() const { return static_cast<int>(models_.size()); }
  QString modelLabel(int index) const { return models_[index].choice.label(); }
  widgets::InversionModelRow* modelRow(int index) const { return models_[index].row; }
  ModelState modelState(int index) const { return models_[index].state; }

  void setText(const QString& text);
  QString text() const;
  int evalDocumentCount() const { return static_cast<int>(eval_documents_.size()); }
  bool chooseEvalDocument(int index);  // false if out of range

  widgets::InversionSettingsForm* settingsForm() const { return form_; }
  widgets::InversionLayerChart* chart() const { return chart_; }
  widgets::InversionLossPlot* lossPlot() const { return loss_plot_; }
  widgets::InversionDiffView* diffView() const { return diff_; }
  OverTrainingView* overTraining() const { return over_training_; }
  void showOverTrainingPage();

  // Starts the models one after the other. Returns an error message (no model, no input, a bad
  // setting, already running), empty when the run started.
  QString invert();
  // Starts the over-training page's run with the form's settings; its inputs are the page's eval
  // documents or, with 0, the input text. Returns an error message, empty when it started.
  QString invertOverTraining();
  void cancel();
  void stop();  // cancel and join the worker (the window is closing)
  bool isRunning() const;
  bool hasResults() const { return has_results_; }
  // Model `index`'s results of the last run: one per (layer, input), layers in order.
  const std::vector<InversionResult>& results(int index) const { return models_[index].results; }
  QString modelError(int index) const { return models_[index].error; }

  void showLayer(int layer);  // the diff and the loss plot show this layer
  int shownLayer() const { return shown_layer_; }
  QString layerSummary() const;  // the line above the diff
  QString statusText() const;

  InversionReport report() const;
  QString saveResults(const QString& json_path);  // error message, empty on success

 Q_SIGNALS:
  void runFinished();
  void overTrainingFinished();
  void evalDocumentsLoaded();

 private:
  struct Model {
    CheckpointColumn choice;
    widgets::InversionModelRow* row = nullptr;
    ModelState state = ModelState::kReady;
    std::vector<int64_t> layers;  // requested in the last run
    std::vector<InversionResult> results;
    QString error;
  };
  enum class Job { kNone, kInspect, kOverTraining };

  QWidget* buildControls();  // models, input, settings
  QWidget* buildActions();   // invert, cancel, save, status
  QWidget* buildResults();
  void onEvalDocumentsRead(const QString& checkpoint_dir, const std::vector<std::string>& documents,
                           const QString& error);
  void onInputPicked(int combo_index);
  void onTextEdited();
  void refreshDepth();
  void refreshModelRows();
  void onModelStarted(int model);
  void onProgress(int model, const InversionProgress& progress);
  void onFinished(int model, const std::vector<InversionResult>& results);
  void onFailed(int model, const QString& error);
  void onSkipped(int model);
  void onOverTrainingProgress(int column, int columns, const InversionProgress& progress);
  void onOverTrainingFinished(const InversionOverTraining& grid, const std::vector<std::string>& texts);
  void onOverTrainingFailed(const QString& error);
  void onJobFinished();
  void showResults();  // the chart, then the chosen layer's diff and loss
  void refreshLayerBox();
  void onSave();
  void updateControls();
  void showStatus(const QString& text);

  BackgroundJob* background_ = nullptr;  // runs the job (an InversionWorker or an OverTrainingWorker)
  Job job_ = Job::kNone;
  std::vector<Model> models_;
  QString runs_directory_;
  QVBoxLayout* model_list_ = nullptr;
  QLabel* no_models_ = nullptr;
  CheckpointPicker* picker_ = nullptr;
  QComboBox* input_box_ = nullptr;
  QPlainTextEdit* text_edit_ = nullptr;
  widgets::InversionSettingsForm* form_ = nullptr;
  QPushButton* invert_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* save_ = nullptr;
  QLabel* status_ = nullptr;
  QTabWidget* pages_ = nullptr;
  widgets::InversionLayerChart* chart_ = nullptr;
  widgets::InversionLossPlot* loss_plot_ = nullptr;
  QComboBox* layer_box_ = nullptr;
  QCheckBox* show_padding_ = nullptr;
  QLabel* layer_summary_ = nullptr;
  widgets::InversionDiffView* diff_ = nullptr;
  OverTrainingView* over_training_ = nullptr;

  EvalSplitLoader* eval_loader_ = nullptr;
  std::vector<std::string> eval_documents_;
  int eval_chosen_ = -1;

  // The last run, as started.
  std::vector<std::string> run_texts_;
  InversionSettings run_settings_;
  bool has_results_ = false;
  int shown_layer_ = -1;
  std::optional<InversionSettings> over_training_settings_;
  QString over_training_run_;
};

}  // namespace mixerlab::gui
