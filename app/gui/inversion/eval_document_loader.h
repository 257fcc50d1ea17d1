// Reads a checkpoint's first eval-split documents (evalSplitDocuments of the run's project, as
// `mixerlab invert --eval-texts` does) on a thread of its own, so a large corpus never stalls the
// GUI, and reports them on the GUI thread: the inversion inspector offers them as inputs. One read
// at a time: a request during a read waits for it, and only the newest request is read next. The
// destructor waits for a read in progress.
#pragma once
#include <QObject>
#include <QString>
#include <string>
#include <vector>

class QThread;

namespace mixerlab::gui {

class EvalDocumentLoader : public QObject {
  Q_OBJECT
 public:
  explicit EvalDocumentLoader(int count, QObject* parent = nullptr);
  ~EvalDocumentLoader() override;

  // Reads the documents of `checkpoint_dir` unless they are the last ones reported.
  void request(const QString& checkpoint_dir);

 Q_SIGNALS:
  // On the GUI thread; `error` (documents empty) when the corpus could not be read.
  void loaded(const QString& checkpoint_dir, const std::vector<std::string>& documents, const QString& error);

 private:
  void start(const QString& checkpoint_dir);
  void onRead(const QString& checkpoint_dir, const std::vector<std::string>& documents, const QString& error);

  int count_;
  QThread* thread_ = nullptr;
  QString reported_;
  QString next_;
};

}  // namespace mixerlab::gui
