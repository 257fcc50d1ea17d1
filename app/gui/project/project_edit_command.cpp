// Undoable project edits (see project_edit_command.h).
#include "app/gui/project/project_edit_command.h"

#include <utility>

namespace mixerlab::gui {

ProjectEditCommand::ProjectEditCommand(ProjectDocument* document, ProjectSnapshot before, ProjectSnapshot after,
                                       const QString& text)
    : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)) {}

void ProjectEditCommand::undo() { document_->restore(before_); }

void ProjectEditCommand::redo() {
  if (!pushed_) {  // QUndoStack::push() calls redo(): the edit is already on disk
    pushed_ = true;
    return;
  }
  document_->restore(after_);
}

}  // namespace mixerlab::gui
