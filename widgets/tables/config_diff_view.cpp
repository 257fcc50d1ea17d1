// ConfigDiffView (see config_diff_view.h).
#include "widgets/tables/config_diff_view.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTableWidget>
#include <QVBoxLayout>

namespace mixerlab::widgets {

namespace {
const QColor kDifferent(255, 226, 160);
const char* kAbsent = "(absent)";

QString scalarText(const QJsonValue& v) {
  if (v.isString()) return v.toString();
  if (v.isDouble()) return QString::number(v.toDouble(), 'g', 15);
  if (v.isBool()) return v.toBool() ? "true" : "false";
  if (v.isArray()) return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
  return "null";
}

void flattenTextInto(const QJsonObject& o, const QString& prefix, QMap<QString, QString>& out) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    const QString key = prefix.isEmpty() ? it.key() : prefix + "." + it.key();
    if (it.value().isObject() && !it.value().toObject().isEmpty()) {
      flattenTextInto(it.value().toObject(), key, out);
    } else if (it.value().isObject()) {
      out[key] = "{}";
    } else {
      out[key] = scalarText(it.value());
    }
  }
}
}  // namespace

QMap<QString, QString> ConfigDiffView::flatten(const QJsonObject& object) {
  QMap<QString, QString> out;
  flattenTextInto(object, QString(), out);
  return out;
}

ConfigDiffView::ConfigDiffView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  hide_equal_ = new QCheckBox(tr("Hide equal rows"), this);
  hide_equal_->setObjectName("hide_equal");
  table_ = new QTableWidget(0, 3, this);
  table_->setObjectName("diff_table");
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  layout->addWidget(hide_equal_);
  layout->addWidget(table_);
  connect(hide_equal_, &QCheckBox::toggled, this, [this] { rebuild(); });
  setConfigs({}, {});
}

void ConfigDiffView::setConfigs(const QJsonObject& left, const QJsonObject& right, const QString& left_title,
                                const QString& right_title) {
  left_ = left;
  right_ = right;
  table_->setHorizontalHeaderLabels({tr("key"), left_title, right_title});
  rebuild();
}

void ConfigDiffView::setExecutionKeys(const QStringList& keys) {
  execution_keys_ = keys;
  rebuild();
}

void ConfigDiffView::setHideEqual(bool hide) { hide_equal_->setChecked(hide); }
bool ConfigDiffView::hideEqual() const { return hide_equal_->isChecked(); }

void ConfigDiffView::rebuild() {
  const auto left = flatten(left_), right = flatten(right_);
  QStringList keys = left.keys();
  for (const auto& k : right.keys()) {
    if (!left.contains(k)) keys << k;
  }
  keys.sort();
  differing_.clear();
  table_->setRowCount(0);
  for (const auto& key : keys) {
    const QString l = left.value(key, kAbsent), r = right.value(key, kAbsent);
    const bool how_it_ran = execution_keys_.contains(key);
    const bool differs = !how_it_ran && (!left.contains(key) || !right.contains(key) || l != r);
    if (differs) differing_ << key;
    if (!differs && hideEqual()) continue;
    const int row = table_->rowCount();
    table_->insertRow(row);
    const QString cells[3] = {how_it_ran ? tr("ran with: %1").arg(key) : key, l, r};
    for (int c = 0; c < 3; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (differs) {
        item->setBackground(kDifferent);
        QFont bold = item->font();
        bold.setBold(true);
        item->setFont(bold);
      }
      table_->setItem(row, c, item);
    }
  }
}

bool ConfigDiffView::isRowHighlighted(const QString& key) const {
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (table_->item(row, 0)->text() == key) return table_->item(row, 0)->background().color() == kDifferent;
  }
  return false;
}

}  // namespace mixerlab::widgets
