// The side-by-side generation panel (the main window's "Generate" tab): up to four checkpoints of
// any family as columns (a project run's latest checkpoint or any checkpoint folder), one prompt
// (typed, or picked from the first column's eval split, whose true continuation then shows as a
// further column), one set of sampling settings with presets, a number of samples per column (one
// decoder batch, seeds seed..seed+N-1, picked per column), and Generate: every column streams
// its stories at once from its own worker thread (a BackgroundJob per column), tokens coloured by probability
// with the top-5 alternatives on hover, live tokens/s and the finish reason in each header. Cancel
// stops a round; the last round saves as JSON and Markdown. Loaded models stay cached while the
// panel lives.
#pragma once
#include <QString>
#include <QVector>
#include <QWidget>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/common/checkpoint_choice.h"
#include "app/gui/common/checkpoint_picker.h"
#include "core/analysis/generation_comparison.h"
#include "widgets/generation/token_view.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTimer;

namespace mixerlab::widgets {
class GenerationColumnView;
class SamplingSettingsForm;
}  // namespace mixerlab::widgets

namespace mixerlab::gui {

class BackgroundJob;
class EvalSplitLoader;
class GeneratorCache;

class GenerationPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxColumns = 4;
  static constexpr int kEvalPrompts = 20;      // prompts offered from the eval split
  static constexpr int kEvalPromptWords = 16;  // words of each eval document given as the prompt
  static constexpr int kMaxSamples = 8;        // stories per column in one round

  explicit GenerationPanel(QWidget* parent = nullptr);
  ~GenerationPanel() override;  // stops and joins every worker thread

  // Where "Add run" looks for runs with checkpoints (the open project's runs folder). Another
  // folder than before (another project was opened) stops the panel and removes its columns.
  void setRunsDirectory(const QString& runs_directory);
  // Adds a column for a run folder (its latest checkpoint, pinned now), a checkpoints/ folder or a
  // checkpoint folder. Returns an error message, empty on success.
  QString addCheckpoint(const QString& path);
  // "Add run" / "Add checkpoint folder...": up to kMaxColumns trained checkpoints, each once.
  CheckpointPicker* checkpointPicker() const { return picker_; }
  void removeColumn(int index);
  int columnCount() const { return static_cast<int>(columns_.size()); }
  widgets::GenerationColumnView* column(int index) const { return columns_[index].view; }
  widgets::GenerationColumnView* truthColumn() const { return truth_view_; }  // shown for an eval prompt
  widgets::SamplingSettingsForm* settingsForm() const { return form_; }

  // Stories per column of the next round (1..kMaxSamples): sample i uses seed + i, so a round of
  // N samples and "new seed each round" move the seed on by N.
  void setSamplesPerColumn(int samples);
  int samplesPerColumn() const;

  void setPrompt(const QString& prompt);
  QString prompt() const;
  // The first column's eval-split prompts, read on a background thread once it is added (and again
  // when another checkpoint becomes the first column).
  int evalPromptCount() const { return static_cast<int>(eval_prompts_.size()); }
  // Sets the prompt to eval prompt `index` and shows its true continuation; false if out of range.
  bool chooseEvalPrompt(int index);

  // Starts every column at once. Returns an error message (no column, a bad setting, already
  // running), empty when the round started.
  QString generate();
  void cancel();  // every column of the round ends with finish reason "cancelled"
  void stop();    // cancel and join the workers (the window is closing)
  bool isGenerating() const;
  QString finishReason(int column, int sample = 0) const;  // empty until the sample's story has ended
  bool hasResults() const;                                 // a round has finished since the columns last changed
  // The last round: its prompt, settings, columns and their results.
  GenerationComparison comparison() const;
  // Writes the comparison to `json_path` and a Markdown file beside it (same name, .md). Returns
  // an error message, empty on success.
  QString saveComparison(const QString& json_path);
  GeneratorCache& generatorCache();
  QString statusText() const;

 Q_SIGNALS:
  void roundFinished();
  void evalPromptsLoaded();

 private:
  struct Column {
    CheckpointChoice choice;
    widgets::GenerationColumnView* view = nullptr;
    std::vector<GenerationResult> results;  // one per sample once the round ended; none: failed
    QString error, decoder;
    int tokens = 0;                                // every sample's, so far
    QVector<QVector<widgets::TokenView>> stories;  // the round's tokens per sample
    int shown_tokens = 0;  // tokens of the shown sample already in the view (the rest wait for a flush)
    double live_tokens_per_s = 0;
  };
  QWidget* buildControls();
  void onLoaded(int column, const QString& architecture, const QString& decoder);
  void onToken(int column, int sample, const GeneratedToken& token, double tokens_per_s);
  void onFinished(int column, const std::vector<GenerationResult>& results);
  void showSample(Column& column);          // refills the view with its chosen sample's story
  void showFinishedSample(Column& column);  // the chosen sample's end: its cut, context and status
  void onFailed(int column, const QString& error);
  void onRoundFinished();
  void flushTokens();  // shows the tokens that arrived since the last flush
  void onPromptEdited();
  void onEvalPromptPicked(int combo_index);
  void loadEvalPrompts();
  void onEvalDocumentsRead(const QString& checkpoint_dir, const std::vector<std::string>& documents,
                           const QString& error);
  QString addColumn(const ColumnRequest& request);  // the picker's add function
  void onSave();
  void showTruth(bool shown);
  void updateControls();
  void showStatus(const QString& text);

  // One job per column of a round, all running at once, each with its share of the cores; the
  // models they load stay in the cache while the panel lives.
  std::vector<BackgroundJob*> column_jobs_;
  std::shared_ptr<GeneratorCache> cache_;
  // Tokens arrive one queued signal each, up to thousands a second per column; they are shown in
  // batches (one layout and paint per column per flush) so the event loop stays free.
  QTimer* flush_timer_ = nullptr;
  static constexpr int kFlushIntervalMs = 30;
  std::vector<Column> columns_;
  QString runs_directory_;
  CheckpointPicker* picker_ = nullptr;
  QComboBox* eval_box_ = nullptr;
  QPlainTextEdit* prompt_edit_ = nullptr;
  widgets::SamplingSettingsForm* form_ = nullptr;
  QPushButton* generate_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* save_ = nullptr;
  QSpinBox* samples_ = nullptr;
  QCheckBox* new_seed_ = nullptr;  // each round after the first takes the seed after the last one used
  int rounds_started_ = 0;
  QLabel* status_ = nullptr;
  QSplitter* splitter_ = nullptr;
  QLabel* placeholder_ = nullptr;
  widgets::GenerationColumnView* truth_view_ = nullptr;

  EvalSplitLoader* eval_loader_ = nullptr;  // the first column's eval documents, for eval_prompts_
  std::vector<EvalPrompt> eval_prompts_;
  QString eval_run_;      // the run the eval prompts came from
  int eval_chosen_ = -1;  // the eval prompt the prompt box holds, -1 for a typed prompt

  // The last round, as started.
  std::string round_prompt_;
  GenerationSettings round_settings_;
  int round_samples_ = 1;
  std::optional<std::string> round_truth_;
  bool has_results_ = false;
};

}  // namespace mixerlab::gui
