// EvalDocumentLoader (see eval_document_loader.h).
#include "app/gui/inversion/eval_document_loader.h"

#include <QThread>

#include "core/analysis/checkpoint_eval.h"
#include "core/analysis/eval_documents.h"
#include "core/train/checkpoint.h"

namespace mixerlab::gui {

EvalDocumentLoader::EvalDocumentLoader(int count, QObject* parent) : QObject(parent), count_(count) {}

EvalDocumentLoader::~EvalDocumentLoader() {
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

void EvalDocumentLoader::request(const QString& checkpoint_dir) {
  if (thread_) {
    next_ = checkpoint_dir;  // read when the current read ends
    return;
  }
  if (checkpoint_dir != reported_) start(checkpoint_dir);
}

void EvalDocumentLoader::start(const QString& checkpoint_dir) {
  const int count = count_;
  thread_ = QThread::create([this, checkpoint_dir, count]() {
    std::vector<std::string> documents;
    QString error;
    try {
      const auto dir = resolveCheckpointDir(checkpoint_dir.toStdString());
      documents = evalSplitDocuments(checkpointProject(dir, readCheckpointConfig(dir)), static_cast<size_t>(count));
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    // The destructor joins this thread first, so `this` is alive; the queued call is dropped if
    // the loader is destroyed before it runs.
    QMetaObject::invokeMethod(
        this, [this, checkpoint_dir, documents, error]() { onRead(checkpoint_dir, documents, error); },
        Qt::QueuedConnection);
  });
  thread_->setObjectName("eval-documents");
  thread_->start();
}

void EvalDocumentLoader::onRead(const QString& checkpoint_dir, const std::vector<std::string>& documents,
                                const QString& error) {
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
  reported_ = checkpoint_dir;
  Q_EMIT loaded(checkpoint_dir, documents, error);
  const QString next = next_;
  next_.clear();
  if (!next.isEmpty() && next != reported_) start(next);
}

}  // namespace mixerlab::gui
