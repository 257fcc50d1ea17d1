// EvalSplitLoader (see eval_split_loader.h).
#include "app/gui/common/eval_split_loader.h"

#include <algorithm>
#include <exception>

#include "app/gui/common/latest_request_loader.h"
#include "core/analysis/eval_documents.h"

namespace mixerlab::gui {

EvalSplitLoader::EvalSplitLoader(int documents, QObject* parent)
    : QObject(parent), documents_(documents), loader_(new LatestRequestLoader("eval-documents", this)) {}

void EvalSplitLoader::request(const QString& checkpoint_dir) {
  if (checkpoint_dir == requested_) return;
  requested_ = checkpoint_dir;
  const auto count = static_cast<size_t>(std::max(0, documents_));
  loader_->request([this, checkpoint_dir, count]() -> std::function<void()> {
    std::vector<std::string> documents;
    QString error;
    try {
      documents = checkpointEvalDocuments(checkpoint_dir.toStdString(), count);
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    return [this, checkpoint_dir, documents = std::move(documents), error]() {
      Q_EMIT loaded(checkpoint_dir, documents, error);
    };
  });
}

}  // namespace mixerlab::gui
