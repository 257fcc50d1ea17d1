// Sweep planning (see sweep_plan.h).
#include "widgets/forms/sweep_plan.h"

#include <QSet>
#include <QStringList>
#include <cmath>

namespace mixerlab::widgets {

QVector<QJsonValue> parseSweepValues(const QString& text) {
  QVector<QJsonValue> values;
  for (QString item : text.split(',', Qt::SkipEmptyParts)) {
    item = item.trimmed();
    if (item.isEmpty()) continue;
    bool is_number = false;
    const double number = item.toDouble(&is_number);
    if (is_number && std::isfinite(number)) {
      values << (number == std::floor(number) && std::abs(number) < 9e15 && !item.contains('.') &&
                         !item.contains('e', Qt::CaseInsensitive)
                     ? QJsonValue(static_cast<qint64>(number))
                     : QJsonValue(number));
    } else if (item == "true" || item == "false") {
      values << QJsonValue(item == "true");
    } else {
      values << QJsonValue(item);
    }
  }
  return values;
}

QJsonObject withField(QJsonObject run, const QString& dotted_key, const QJsonValue& value) {
  const int dot = dotted_key.indexOf('.');
  if (dot < 0) {
    run[dotted_key] = value;
    return run;
  }
  const QString head = dotted_key.left(dot);
  run[head] = withField(run.value(head).toObject(), dotted_key.mid(dot + 1), value);
  return run;
}

namespace {
QString valueText(const QJsonValue& v) {
  if (v.isDouble()) return QString::number(v.toDouble(), 'g', 6);
  if (v.isBool()) return v.toBool() ? "true" : "false";
  return v.toString();
}

QJsonObject makeRun(const QJsonObject& base, const QVector<SweepAxis>& axes, const QVector<int>& choice) {
  QJsonObject run = base;
  QString name = base.value("name").toString();
  for (int a = 0; a < axes.size(); ++a) {
    const QJsonValue& value = axes[a].values[choice[a]];
    run = withField(run, axes[a].key, value);
    name += "-" + axes[a].key.section('.', -1) + valueText(value);
  }
  run["name"] = name;
  return run;
}
}  // namespace

QVector<QJsonObject> planSweep(const QJsonObject& base_run, const QVector<SweepAxis>& axes, SweepMode mode,
                               QString* error) {
  QSet<QString> keys;
  for (const SweepAxis& axis : axes) {
    if (axis.key.trimmed().isEmpty()) return *error = "a sweep field has no name", QVector<QJsonObject>();
    if (axis.key == "name") return *error = "the run name cannot be swept", QVector<QJsonObject>();
    if (axis.values.isEmpty()) return *error = axis.key + " has no values", QVector<QJsonObject>();
    if (keys.contains(axis.key)) return *error = axis.key + " is swept twice", QVector<QJsonObject>();
    keys.insert(axis.key);
  }
  if (axes.isEmpty()) return *error = "add a field to sweep", QVector<QJsonObject>();
  QVector<QJsonObject> runs;
  if (mode == SweepMode::List) {
    const int n = axes.front().values.size();
    for (const SweepAxis& axis : axes) {
      if (axis.values.size() != n) {
        *error = QString("a list sweep needs the same number of values per field (%1 has %2, %3 has %4)")
                     .arg(axes.front().key)
                     .arg(n)
                     .arg(axis.key)
                     .arg(axis.values.size());
        return {};
      }
    }
    for (int i = 0; i < n; ++i) runs << makeRun(base_run, axes, QVector<int>(axes.size(), i));
    return runs;
  }
  QVector<int> choice(axes.size(), 0);  // an odometer over the axes, last field fastest
  while (true) {
    runs << makeRun(base_run, axes, choice);
    int a = axes.size() - 1;
    while (a >= 0 && ++choice[a] == axes[a].values.size()) choice[a--] = 0;
    if (a < 0) break;
  }
  return runs;
}

}  // namespace mixerlab::widgets
