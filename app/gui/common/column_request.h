// How a startup option (--generate, --inspect, --retrieve) or a Run menu action names a column of
// a model-comparing tab: a run name of the open project ("mixer"), a run, checkpoints/ or
// checkpoint folder, or any of these after "untrained:" for the checkpoint's untrained twin. The
// one place that spells these rules; the CheckpointPicker turns the request into a column.
#pragma once
#include <QString>
#include <QStringList>

namespace mixerlab::gui {

struct ColumnRequest {
  QString path;            // a folder (a run name is already its run folder under the runs folder)
  bool untrained = false;  // the checkpoint's untrained twin
};

inline constexpr char kUntrainedPrefix[] = "untrained:";

// `entry` names a run of the project when it is one of `project_runs` or a folder under
// `runs_directory` (a fork) and has no '/' in it; anything else is a folder as given.
ColumnRequest parseColumnEntry(const QString& entry, const QString& runs_directory, const QStringList& project_runs);

}  // namespace mixerlab::gui
