// EvalPromptLoader (see eval_prompt_loader.h).
#include "app/gui/generation/eval_prompt_loader.h"

#include <QThread>

namespace mixerlab::gui {

EvalPromptLoader::EvalPromptLoader(int count, int prompt_words, QObject* parent)
    : QObject(parent), count_(count), prompt_words_(prompt_words) {}

EvalPromptLoader::~EvalPromptLoader() {
  if (thread_) {
    thread_->wait();
    delete thread_;
  }
}

void EvalPromptLoader::request(const QString& checkpoint_dir) {
  if (thread_) {
    next_ = checkpoint_dir;  // read when the current read ends
    return;
  }
  if (checkpoint_dir != reported_) start(checkpoint_dir);
}

void EvalPromptLoader::start(const QString& checkpoint_dir) {
  const int count = count_, words = prompt_words_;
  thread_ = QThread::create([this, checkpoint_dir, count, words]() {
    std::vector<EvalPrompt> prompts;
    QString error;
    try {
      prompts = evalSplitPrompts(checkpoint_dir.toStdString(), count, words);
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    // The destructor joins this thread first, so `this` is alive; the queued call is dropped if
    // the loader is destroyed before it runs.
    QMetaObject::invokeMethod(
        this, [this, checkpoint_dir, prompts, error]() { onRead(checkpoint_dir, prompts, error); },
        Qt::QueuedConnection);
  });
  thread_->setObjectName("eval-prompts");
  thread_->start();
}

void EvalPromptLoader::onRead(const QString& checkpoint_dir, const std::vector<EvalPrompt>& prompts,
                              const QString& error) {
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
  reported_ = checkpoint_dir;
  Q_EMIT loaded(checkpoint_dir, prompts, error);
  const QString next = next_;
  next_.clear();
  if (!next.isEmpty() && next != reported_) start(next);
}

}  // namespace mixerlab::gui
