// Reads a checkpoint's first eval-split documents (checkpointEvalDocuments: the run's corpus, split
// as training split it) off the GUI thread, so a large corpus never stalls it, and reports them on
// the GUI thread: the generation panel cuts its eval prompts from them, the inversion inspector
// offers them as inputs. Built on a LatestRequestLoader: when the first column changes during a
// read, only the newest checkpoint's documents are reported. The destructor waits for a read.
#pragma once
#include <QObject>
#include <QString>
#include <string>
#include <vector>

namespace mixerlab::gui {

class LatestRequestLoader;

class EvalSplitLoader : public QObject {
  Q_OBJECT
 public:
  explicit EvalSplitLoader(int documents, QObject* parent = nullptr);

  // Reads the documents of `checkpoint_dir` unless it is the checkpoint requested last.
  void request(const QString& checkpoint_dir);

 Q_SIGNALS:
  // On the GUI thread; `error` (documents empty) when the corpus could not be read.
  void loaded(const QString& checkpoint_dir, const std::vector<std::string>& documents, const QString& error);

 private:
  int documents_;
  LatestRequestLoader* loader_ = nullptr;
  QString requested_;
};

}  // namespace mixerlab::gui
