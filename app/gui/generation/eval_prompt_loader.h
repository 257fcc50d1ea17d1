// Reads a checkpoint's eval-split prompts (evalSplitPrompts, which reads the run's corpus file) on
// a thread of its own, so a large corpus never stalls the GUI, and reports them on the GUI thread.
// One read at a time: a request during a read waits for it, and only the newest request is read
// next. The destructor waits for a read in progress.
#pragma once
#include <QObject>
#include <QString>
#include <vector>

#include "core/analysis/generation.h"

class QThread;

namespace mixerlab::gui {

class EvalPromptLoader : public QObject {
  Q_OBJECT
 public:
  EvalPromptLoader(int count, int prompt_words, QObject* parent = nullptr);
  ~EvalPromptLoader() override;

  // Reads the prompts of `checkpoint_dir` unless they are the last ones reported.
  void request(const QString& checkpoint_dir);

 Q_SIGNALS:
  // On the GUI thread; `error` (prompts empty) when the corpus could not be read.
  void loaded(const QString& checkpoint_dir, const std::vector<mixerlab::EvalPrompt>& prompts, const QString& error);

 private:
  void start(const QString& checkpoint_dir);
  void onRead(const QString& checkpoint_dir, const std::vector<EvalPrompt>& prompts, const QString& error);

  int count_, prompt_words_;
  QThread* thread_ = nullptr;
  QString reported_;  // the checkpoint whose prompts were reported last
  QString next_;      // requested during a read
};

}  // namespace mixerlab::gui
