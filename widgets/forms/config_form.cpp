// ConfigForm (see config_form.h): group boxes of labelled editors in two columns, an error label
// under every editor, and at the bottom the preview panel beside the list of every problem.
#include "widgets/forms/config_form.h"
#include "widgets/forms/wheel_guard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>
#include <cmath>

namespace mixerlab::widgets {

namespace {
const char* kErrorStyle = "background-color: #ffe4e4; border: 1px solid #d02020;";
const char* kCheckErrorStyle = "color: #d02020;";
}  // namespace

ConfigForm::ConfigForm(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  columns_host_ = new QVBoxLayout;
  layout->addLayout(columns_host_);
  // The summary: the cost preview beside the list of every problem, both always there (the list
  // empty when there is none) and of a fixed height, so problems coming and going and the preview
  // changing never move the fields; activating a problem focuses its field.
  summary_ = new QWidget(this);
  auto* bottom = new QHBoxLayout(summary_);
  bottom->setContentsMargins(0, 0, 0, 0);
  preview_box_ = new QGroupBox(tr("Cost preview"), summary_);
  auto* preview_layout = new QVBoxLayout(preview_box_);
  preview_ = new QLabel(preview_box_);
  preview_->setObjectName("cost_preview");
  preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  preview_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  preview_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  preview_->setFixedHeight(kPreviewLines * QFontMetrics(preview_->font()).lineSpacing());
  preview_layout->addWidget(preview_);
  bottom->addWidget(preview_box_, 3);
  problems_box_ = new QGroupBox(tr("Problems: none"), summary_);
  auto* problems_layout = new QVBoxLayout(problems_box_);
  problems_ = new QListWidget(problems_box_);
  problems_->setObjectName("problems");
  problems_->setWordWrap(true);
  problems_->setStyleSheet("color: #d02020;");
  problems_->setFixedHeight(preview_->height());
  problems_layout->addWidget(problems_);
  connect(problems_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    if (QWidget* w = editor(item->data(Qt::UserRole).toString())) w->setFocus(Qt::OtherFocusReason);
  });
  bottom->addWidget(problems_box_, 2);
  summary_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  layout->addWidget(summary_);
  layout->addStretch(1);
}

QWidget* ConfigForm::makeEditor(const FieldSpec& spec) {
  QString tip = spec.help;
  if ((spec.type == FieldSpec::Integer || spec.type == FieldSpec::Number) && spec.max > spec.min) {
    tip += QString("%1(%2 to %3)").arg(tip.isEmpty() ? "" : " ").arg(spec.min, 0, 'g', 12).arg(spec.max, 0, 'g', 12);
  }
  QWidget* w = nullptr;
  switch (spec.type) {
    case FieldSpec::Boolean: {
      auto* box = new QCheckBox;
      connect(box, &QCheckBox::toggled, this, [this] { onEdited(); });
      w = box;
      break;
    }
    case FieldSpec::Choice: {
      auto* combo = new QComboBox;
      combo->addItems(spec.choices);
      guardWheel(combo);  // the form scrolls under the wheel; only a focused combo changes
      connect(combo, &QComboBox::currentTextChanged, this, [this] { onEdited(); });
      w = combo;
      break;
    }
    default: {  // numbers are typed freely so that invalid text reaches the validator and shows red
      auto* edit = new QLineEdit;
      if (spec.type != FieldSpec::Text) edit->setAlignment(Qt::AlignRight);
      connect(edit, &QLineEdit::textChanged, this, [this] { onEdited(); });
      w = edit;
    }
  }
  w->setObjectName(spec.key);
  w->setToolTip(tip);
  return w;
}

void ConfigForm::setSchema(const QVector<FieldSpec>& schema) {
  if (fields_host_) delete fields_host_;
  fields_.clear();
  fields_host_ = new QWidget(this);
  auto* row = new QHBoxLayout(fields_host_);
  row->setContentsMargins(0, 0, 0, 0);
  QVBoxLayout* columns[2] = {new QVBoxLayout, new QVBoxLayout};
  for (auto* c : columns) row->addLayout(c, 1);
  QMap<QString, QGroupBox*> boxes;
  QStringList order;
  for (const auto& s : schema) {
    if (!boxes.contains(s.group)) {
      boxes[s.group] = new QGroupBox(s.group.isEmpty() ? tr("Settings") : s.group);
      new QFormLayout(boxes[s.group]);
      order << s.group;
    }
  }
  // Groups in order fill the first column until it holds half the fields shown for the current
  // architecture; the rest go to the second column.
  QString arch = valueAt(base_, "model.arch").toString();
  for (const auto& s : schema) {
    if (s.key == "model.arch" && arch.isEmpty()) arch = s.default_value.toString();
  }
  QMap<QString, int> weight;
  int total = 0;
  for (const auto& s : schema) {
    const int w = s.visible_for_arch.isEmpty() || s.visible_for_arch.contains(arch) ? 1 : 0;
    weight[s.group] += w;
    total += w;
  }
  int first_column = 0;
  for (const auto& group : order) {
    const int c = first_column * 2 < total ? 0 : 1;
    columns[c]->addWidget(boxes[group]);
    if (c == 0) first_column += weight[group];
  }
  for (auto* c : columns) c->addStretch(1);
  for (const auto& s : schema) {
    Field f;
    f.spec = s;
    f.editor = makeEditor(s);
    // The red error style must not change the row height (a styled frame sizes differently).
    if (qobject_cast<QLineEdit*>(f.editor)) f.editor->setFixedHeight(f.editor->sizeHint().height());
    f.group_box = boxes[s.group];
    f.row = new QWidget;
    auto* v = new QVBoxLayout(f.row);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    v->addWidget(f.editor);
    f.error = new QLabel;
    f.error->setObjectName(s.key + ".error");
    f.error->setWordWrap(true);
    f.error->setStyleSheet("color: #d02020; font-size: small;");
    // Two lines kept for the message whether or not it is shown, so an error appearing never
    // shifts the fields below (a longer message is in the tooltip).
    QSizePolicy keep_room = f.error->sizePolicy();
    keep_room.setRetainSizeWhenHidden(true);
    f.error->setSizePolicy(keep_room);
    f.error->setFixedHeight(2 * f.error->fontMetrics().lineSpacing() + 2);
    f.error->hide();
    v->addWidget(f.error);
    f.label = new QLabel(s.label);
    f.label->setToolTip(f.editor->toolTip());
    static_cast<QFormLayout*>(boxes[s.group]->layout())->addRow(f.label, f.row);
    fields_.push_back(f);
  }
  columns_host_->addWidget(fields_host_);
  setValues(base_);
}

QJsonValue ConfigForm::valueAt(const QJsonObject& object, const QString& dotted_key) {
  const QStringList parts = dotted_key.split('.');
  QJsonObject o = object;
  for (int i = 0; i + 1 < parts.size(); ++i) o = o.value(parts[i]).toObject();
  return o.value(parts.last());
}

void ConfigForm::setValueAt(QJsonObject& object, const QString& dotted_key, const QJsonValue& value) {
  const int dot = dotted_key.indexOf('.');
  if (dot < 0) {
    object.insert(dotted_key, value);
    return;
  }
  const QString head = dotted_key.left(dot);
  QJsonObject child = object.value(head).toObject();
  setValueAt(child, dotted_key.mid(dot + 1), value);
  object.insert(head, child);
}

void ConfigForm::removeValueAt(QJsonObject& object, const QString& dotted_key) {
  const int dot = dotted_key.indexOf('.');
  if (dot < 0) {
    object.remove(dotted_key);
    return;
  }
  const QString head = dotted_key.left(dot);
  if (!object.value(head).isObject()) return;
  QJsonObject child = object.value(head).toObject();
  removeValueAt(child, dotted_key.mid(dot + 1));
  object.insert(head, child);
}

void ConfigForm::setEditorValue(Field& f, const QJsonValue& v) {
  if (auto* box = qobject_cast<QCheckBox*>(f.editor)) {
    box->setChecked(v.toBool());
  } else if (auto* combo = qobject_cast<QComboBox*>(f.editor)) {
    const QString text = v.toString();
    if (combo->findText(text) < 0) combo->addItem(text);  // keep an unknown value visible (the validator reports it)
    combo->setCurrentText(text);
  } else if (auto* edit = qobject_cast<QLineEdit*>(f.editor)) {
    QString text = v.toString();
    if (v.isDouble()) {
      const double d = v.toDouble();
      text = (f.spec.type == FieldSpec::Integer && std::floor(d) == d && std::fabs(d) < 9e15)
                 ? QString::number(static_cast<qint64>(d))
                 : QString::number(d, 'g', 12);
    } else if (v.isBool()) {
      text = v.toBool() ? "true" : "false";
    }
    edit->setText(text);
  }
}

QJsonValue ConfigForm::editorValue(const Field& f) const {
  if (auto* box = qobject_cast<QCheckBox*>(f.editor)) return box->isChecked();
  if (auto* combo = qobject_cast<QComboBox*>(f.editor)) return combo->currentText();
  const QString text = static_cast<QLineEdit*>(f.editor)->text().trimmed();
  // A field without a fixed default (it follows another setting) is left out while empty.
  if (text.isEmpty() && !f.spec.default_value.isValid()) return QJsonValue(QJsonValue::Undefined);
  bool ok = false;
  if (f.spec.type == FieldSpec::Integer) {
    const qint64 i = text.toLongLong(&ok);
    if (ok) return QJsonValue(i);
  }
  if (f.spec.type == FieldSpec::Integer || f.spec.type == FieldSpec::Number) {
    const double d = text.toDouble(&ok);
    if (ok) return d;
  }
  return text;  // not a number: sent as text so the validator names the problem
}

void ConfigForm::setValues(const QJsonObject& run) {
  loading_ = true;
  base_ = run;
  QString arch = valueAt(run, "model.arch").toString();
  for (const auto& f : fields_) {
    if (f.spec.key == "model.arch" && arch.isEmpty()) arch = f.spec.default_value.toString();
  }
  for (auto& f : fields_) {
    const QJsonValue v = valueAt(run, f.spec.key);
    setEditorValue(f, v.isUndefined() || v.isNull() ? QJsonValue::fromVariant(f.spec.defaultFor(arch)) : v);
  }
  shown_arch_ = arch;
  loading_ = false;
  updateVisibility();
}

QString ConfigForm::currentArch() const {
  QString arch = valueAt(base_, "model.arch").toString();
  for (const auto& f : fields_) {
    if (f.spec.key == "model.arch") arch = editorValue(f).toString();
  }
  return arch;
}

bool ConfigForm::shownFor(const Field& f, const QString& arch) {
  return f.spec.visible_for_arch.isEmpty() || f.spec.visible_for_arch.contains(arch);
}

const ConfigForm::Field* ConfigForm::fieldFor(const QString& key) const {
  for (const auto& f : fields_) {
    if (f.spec.key == key) return &f;
  }
  return nullptr;
}

void ConfigForm::applyArchDefaults(const QString& from_arch, const QString& to_arch) {
  const bool was_loading = loading_;
  loading_ = true;
  for (auto& f : fields_) {
    if (f.spec.default_for_arch.isEmpty()) continue;
    if (editorValue(f) == QJsonValue::fromVariant(f.spec.defaultFor(from_arch))) {
      setEditorValue(f, QJsonValue::fromVariant(f.spec.defaultFor(to_arch)));
    }
  }
  loading_ = was_loading;
}

bool ConfigForm::isFieldVisible(const QString& key) const {
  const Field* f = fieldFor(key);
  return f && shownFor(*f, currentArch());
}

void ConfigForm::updateVisibility() {
  QMap<QWidget*, bool> any_visible;
  const QString arch = currentArch();
  for (auto& f : fields_) {
    const bool visible = shownFor(f, arch);
    auto* form = static_cast<QFormLayout*>(f.group_box->layout());
    form->setRowVisible(f.row, visible);
    any_visible[f.group_box] = any_visible.value(f.group_box) || visible;
  }
  for (auto it = any_visible.begin(); it != any_visible.end(); ++it) it.key()->setVisible(it.value());
}

QJsonObject ConfigForm::values() const {
  QJsonObject out = base_;
  const QString arch = currentArch();
  for (const auto& f : fields_) {
    const QJsonValue v = shownFor(f, arch) ? editorValue(f) : QJsonValue(QJsonValue::Undefined);
    if (v.isUndefined()) {
      removeValueAt(out, f.spec.key);
    } else {
      setValueAt(out, f.spec.key, v);
    }
  }
  return out;
}

void ConfigForm::onEdited() {
  if (loading_) return;
  const QString arch = currentArch();
  if (arch != shown_arch_) {
    applyArchDefaults(shown_arch_, arch);
    shown_arch_ = arch;
  }
  updateVisibility();
  Q_EMIT valuesChanged(values());
}

void ConfigForm::setFieldErrors(const QMap<QString, QString>& errors_by_key) {
  problems_->clear();
  general_errors_.clear();
  auto list = [this](const QString& text, const QString& key) {
    auto* item = new QListWidgetItem(text, problems_);
    item->setData(Qt::UserRole, key);
    item->setToolTip(text);
  };
  const QString arch = currentArch();
  for (auto& f : fields_) {  // in the form's order
    const QString message = shownFor(f, arch) ? errors_by_key.value(f.spec.key) : QString();
    f.error->setText(message);
    f.error->setToolTip(message);
    f.error->setVisible(!message.isEmpty());
    const bool is_check = qobject_cast<QCheckBox*>(f.editor) != nullptr;
    f.editor->setStyleSheet(message.isEmpty() ? QString() : QString(is_check ? kCheckErrorStyle : kErrorStyle));
    if (!message.isEmpty()) list(f.spec.label + ": " + message, f.spec.key);
  }
  for (auto it = errors_by_key.begin(); it != errors_by_key.end(); ++it) {
    const Field* f = fieldFor(it.key());
    if (f && shownFor(*f, arch)) continue;
    general_errors_ << (it.key().isEmpty() ? it.value() : it.key() + ": " + it.value());
    list(general_errors_.last(), QString());
  }
  problems_box_->setTitle(problems_->count() == 0 ? tr("Problems: none") : tr("Problems (%1)").arg(problems_->count()));
}

void ConfigForm::setPreviewText(const QString& text) { preview_->setText(text); }

void ConfigForm::setPreviewTitle(const QString& title, int lines) {
  preview_box_->setTitle(title);
  preview_->setFixedHeight(lines * QFontMetrics(preview_->font()).lineSpacing());
  problems_->setFixedHeight(preview_->height());
}

QWidget* ConfigForm::releaseSummaryPanel() {
  layout()->removeWidget(summary_);
  summary_->setParent(nullptr);
  return summary_;
}

QWidget* ConfigForm::editor(const QString& key) const {
  const Field* f = fieldFor(key);
  return f ? f->editor : nullptr;
}

bool ConfigForm::hasFieldError(const QString& key) const { return !fieldError(key).isEmpty(); }

QString ConfigForm::fieldError(const QString& key) const {
  const Field* f = fieldFor(key);
  return !f || f->error->isHidden() ? QString() : f->error->text();
}

QString ConfigForm::generalError() const { return general_errors_.join('\n'); }
QString ConfigForm::previewText() const { return preview_->text(); }

}  // namespace mixerlab::widgets
