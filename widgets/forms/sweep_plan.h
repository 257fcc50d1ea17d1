// A sweep: runs made from one base run by setting config fields (dotted keys such as
// "model.d_model" or "train.learning_rate") to lists of values, either as a grid (every
// combination: 3 d_model x 2 lr = 6 runs) or as a list (the i-th value of every field together:
// all lists the same length). Each run is the base run as written plus the swept fields, named
// "<base>-<field><value>-..." so names say what differs. Pure data, no widgets.
#pragma once
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QVector>

namespace mixerlab::widgets {

struct SweepAxis {
  QString key;  // dotted config key
  QVector<QJsonValue> values;
};

enum class SweepMode { Grid, List };

// "256, 512" -> [256, 512]; "1e-3, 3e-4" -> numbers; "true" -> bool; anything else stays text.
QVector<QJsonValue> parseSweepValues(const QString& text);

// The runs of the sweep, or {} and *error (naming the field) when an axis has no key or values, a
// key repeats, or List mode is given lists of different lengths.
QVector<QJsonObject> planSweep(const QJsonObject& base_run, const QVector<SweepAxis>& axes, SweepMode mode,
                               QString* error);

// run with the dotted key set to value (objects on the way are created).
QJsonObject withField(QJsonObject run, const QString& dotted_key, const QJsonValue& value);

}  // namespace mixerlab::widgets
