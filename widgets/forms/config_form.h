// ConfigForm: a generic settings form built from a plain schema (FieldSpec list). It edits a run
// object {"name", "model": {...}, "train": {...}} addressed by dotted keys, reports every edit as it
// is typed, shows per-field error messages (red) plus a list of every problem beside a free-text
// preview, in room kept for them so that no message moves a field. No core types here.
#pragma once
#include <QJsonObject>
#include <QMap>
#include <QStringList>
#include <QVariant>
#include <QVector>
#include <QWidget>

#include "widgets/forms/form_field_spec.h"

class QGroupBox;
class QLabel;
class QListWidget;
class QVBoxLayout;

namespace mixerlab::widgets {

class ConfigForm : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigForm(QWidget* parent = nullptr);

  void setSchema(const QVector<FieldSpec>& schema);
  // Fields missing from `run` show their default; keys the schema does not know are kept as they are.
  void setValues(const QJsonObject& run);
  // The run object: the kept keys plus every visible field; fields hidden for the current arch are removed.
  QJsonObject values() const;
  // Per-field messages (key -> message), each also listed in the problems list (objectName
  // "problems"; activating an entry focuses its field); keys that are not visible fields (or "") are
  // listed only there, as "key: message".
  void setFieldErrors(const QMap<QString, QString>& errors_by_key);
  void setPreviewText(const QString& text);
  // The preview's title (default "Cost preview") and its height in lines (default kPreviewLines;
  // the problems list takes the same height).
  void setPreviewTitle(const QString& title, int lines);
  static constexpr int kPreviewLines = 12;
  // The preview and problems panel (at the form's bottom), taken out of the form for the caller to
  // place outside a scroll area; the form keeps filling it. The caller owns it.
  QWidget* releaseSummaryPanel();

  QWidget* editor(const QString& key) const;  // also findable by objectName == key
  bool isFieldVisible(const QString& key) const;
  bool hasFieldError(const QString& key) const;
  QString fieldError(const QString& key) const;
  QString generalError() const;  // the listed problems without a shown field, one per line
  QString previewText() const;

  static QJsonValue valueAt(const QJsonObject& object, const QString& dotted_key);
  static void setValueAt(QJsonObject& object, const QString& dotted_key, const QJsonValue& value);
  static void removeValueAt(QJsonObject& object, const QString& dotted_key);

 Q_SIGNALS:
  void valuesChanged(const QJsonObject& run);

 private:
  struct Field {
    FieldSpec spec;
    QWidget* editor = nullptr;
    QWidget* row = nullptr;  // editor + error label
    QLabel* label = nullptr;
    QLabel* error = nullptr;
    QWidget* group_box = nullptr;
  };
  QWidget* makeEditor(const FieldSpec& spec);
  QString currentArch() const;
  static bool shownFor(const Field& f, const QString& arch);
  const Field* fieldFor(const QString& key) const;
  void applyArchDefaults(const QString& from_arch, const QString& to_arch);
  QJsonValue editorValue(const Field& f) const;
  void setEditorValue(Field& f, const QJsonValue& v);
  void updateVisibility();
  void onEdited();

  QVector<Field> fields_;
  QJsonObject base_;
  QVBoxLayout* columns_host_ = nullptr;
  QWidget* fields_host_ = nullptr;
  QStringList general_errors_;
  QWidget* summary_ = nullptr;
  QGroupBox* problems_box_ = nullptr;
  QListWidget* problems_ = nullptr;
  QLabel* preview_ = nullptr;
  QGroupBox* preview_box_ = nullptr;
  bool loading_ = false;
  QString shown_arch_;  // the architecture the editors' defaults were set for
};

}  // namespace mixerlab::widgets
