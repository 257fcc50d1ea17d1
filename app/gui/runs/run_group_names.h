// The names run groups go by, one rule for every tab: the Curves panels' "Mean of seeds" and
// "Mean by <setting>" groups and the Scaling tab's groups use them as their colour keys, so a group
// of the same runs has the same colour in both (widgets/plots/series_colours.h).
#pragma once
#include <QString>
#include <QVariant>

namespace mixerlab::gui {

// Runs named <name>-seed<N> / _seed<N> / -s<N> group as <name> (core/runs/seed_groups.h).
QString seedGroupName(const QString& run);

// Runs with the same value of one setting: "model.arch = llama".
QString settingGroupName(const QString& setting, const QVariant& value);

}  // namespace mixerlab::gui
