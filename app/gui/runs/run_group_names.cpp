// Run group names (see run_group_names.h).
#include "app/gui/runs/run_group_names.h"

#include "core/runs/seed_groups.h"

namespace mixerlab::gui {

QString seedGroupName(const QString& run) { return QString::fromStdString(withoutSeedSuffix(run.toStdString())); }

QString settingGroupName(const QString& setting, const QVariant& value) { return setting + " = " + value.toString(); }

}  // namespace mixerlab::gui
