// ConfigDiffView: two run configs side by side as a table of dotted key | left | right, the rows
// whose values differ highlighted, with a switch to hide the equal rows. Plain QJson in, no core.
#pragma once
#include <QJsonObject>
#include <QMap>
#include <QStringList>
#include <QWidget>

class QCheckBox;
class QTableWidget;

namespace mixerlab::widgets {

class ConfigDiffView : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigDiffView(QWidget* parent = nullptr);

  void setConfigs(const QJsonObject& left, const QJsonObject& right, const QString& left_title = "left",
                  const QString& right_title = "right");
  void setHideEqual(bool hide);
  // Keys of how a run ran (device, threads): a different value there is no config difference; the
  // row says "ran with" and is not highlighted.
  void setExecutionKeys(const QStringList& keys);
  bool hideEqual() const;

  QStringList differingKeys() const { return differing_; }  // sorted dotted keys
  QTableWidget* table() const { return table_; }
  bool isRowHighlighted(const QString& key) const;

  // {"model": {"d_model": 256}} -> {"model.d_model": "256"}; arrays and scalars as compact JSON text.
  static QMap<QString, QString> flatten(const QJsonObject& object);

 private:
  void rebuild();

  QJsonObject left_, right_;
  QStringList execution_keys_;
  QStringList differing_;
  QTableWidget* table_ = nullptr;
  QCheckBox* hide_equal_ = nullptr;
};

}  // namespace mixerlab::widgets
