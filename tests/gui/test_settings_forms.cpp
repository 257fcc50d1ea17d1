// The GUI's generation and inversion settings forms take every field's range, default, label,
// choices and tooltip from the core's declarations (core/analysis/sampling_fields.h,
// inversion_fields.h) through the app's bridges: for every field a form shows, its editor (object
// name = the key) has the declared bounds, default, label and help, and the form's starting values
// convert to the core structs' defaults; a changed spec changes the form; the panels start from
// the declared defaults (the generation panel on its Greedy preset). The CLI's side is
// tests/core/test_settings_fields.cpp.
#include <QtTest/QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "app/gui/generation/generation_panel.h"
#include "app/gui/generation/generation_settings_bridge.h"
#include "app/gui/inversion/inversion_panel.h"
#include "app/gui/inversion/inversion_settings_bridge.h"
#include "core/analysis/inversion_fields.h"
#include "core/analysis/sampling_fields.h"
#include "widgets/forms/inversion_settings_form.h"
#include "widgets/forms/sampling_presets.h"
#include "widgets/forms/sampling_settings_form.h"

using namespace mixerlab;

namespace {

const QStringList kInversionFormKeys = {"iterations", "learning_rate", "init", "objective",
                                        "reference",  "top_k",         "seed"};

QString q(const std::string& s) { return QString::fromStdString(s); }

int clampedToInt(double v) {
  return static_cast<int>(
      std::clamp(v, double(std::numeric_limits<int>::min()), double(std::numeric_limits<int>::max())));
}

bool hasLabel(const QWidget* form, const QString& text) {
  const auto labels = form->findChildren<QLabel*>();
  return std::any_of(labels.begin(), labels.end(), [&](const QLabel* label) { return label->text() == text; });
}

// `editor` is a Box (QSpinBox or QDoubleSpinBox) with this range and value.
template <typename Box, typename Value>
void checkSpinBox(QWidget* editor, Value min, Value max, Value value) {
  auto* box = qobject_cast<Box*>(editor);
  QVERIFY(box);
  QCOMPARE(box->minimum(), min);
  QCOMPARE(box->maximum(), max);
  QCOMPARE(box->value(), value);
}

// The editor of `spec` in `form` shows what the spec declares.
void checkEditor(const QWidget* form, const widgets::FieldSpec& spec) {
  QWidget* editor = form->findChild<QWidget*>(spec.key);
  QVERIFY2(editor, qPrintable("no editor named " + spec.key));
  QVERIFY2(editor->toolTip().compare(spec.help, Qt::CaseInsensitive) == 0,
           qPrintable(spec.key + ": tooltip " + editor->toolTip() + " != " + spec.help));
  if (spec.type != widgets::FieldSpec::Boolean) QVERIFY2(hasLabel(form, spec.label), qPrintable(spec.label));
  switch (spec.type) {
    case widgets::FieldSpec::Integer:
      checkSpinBox<QSpinBox>(editor, clampedToInt(spec.min), clampedToInt(spec.max),
                             clampedToInt(spec.default_value.toDouble()));
      break;
    case widgets::FieldSpec::Number:
      checkSpinBox<QDoubleSpinBox>(editor, spec.min, spec.max, spec.default_value.toDouble());
      break;
    case widgets::FieldSpec::Choice: {
      auto* box = qobject_cast<QComboBox*>(editor);
      QVERIFY(box);
      QCOMPARE(box->count(), int(spec.choices.size()));
      for (int i = 0; i < box->count(); ++i) {
        QCOMPARE(box->itemData(i).toString(), spec.choices[i]);
        QCOMPARE(box->itemText(i), spec.choice_labels.isEmpty() ? spec.choices[i] : spec.choice_labels[i]);
      }
      QCOMPARE(box->currentData().toString(), spec.default_value.toString());
      break;
    }
    case widgets::FieldSpec::Boolean: {
      auto* box = qobject_cast<QCheckBox*>(editor);
      QVERIFY(box);
      QCOMPARE(box->text(), spec.label);
      QCOMPARE(box->isChecked(), spec.default_value.toBool());
      break;
    }
    case widgets::FieldSpec::Text: {
      auto* edit = qobject_cast<QLineEdit*>(editor);
      QVERIFY(edit);
      QCOMPARE(edit->text(), spec.default_value.toString());
      break;
    }
  }
}

// Every declared default equals the value at its key in `written`.
void checkDefaults(const std::vector<FieldSpec>& specs, const nlohmann::json& written) {
  for (const auto& spec : specs) {
    QVERIFY2(written.at(spec.key) == spec.default_value,
             qPrintable(q(spec.key) + ": " + q(written.at(spec.key).dump()) + " != " + q(spec.default_value.dump())));
  }
}

}  // namespace

class TestSettingsForms : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void samplingFormFollowsTheDeclarations() {
    const auto fields = gui::samplingFormFields();
    QCOMPARE(int(fields.size()), int(generationFieldSpecs().size()));
    widgets::SamplingSettingsForm form(fields);
    for (const auto& spec : fields) checkEditor(&form, spec);
    // The form's starting values are the core's defaults, field by field.
    checkDefaults(generationFieldSpecs(), writeGenerationSettings(gui::toGenerationSettings(form.values())));
    checkDefaults(generationFieldSpecs(), writeGenerationSettings(gui::toGenerationSettings(form.defaults())));
  }

  void inversionFormFollowsTheDeclarations() {
    const auto fields = gui::inversionFormFields();
    QCOMPARE(int(fields.size()), int(inversionFields().specs().size()));
    widgets::InversionSettingsForm form(fields);
    for (const auto& spec : fields) {
      if (kInversionFormKeys.contains(spec.key)) checkEditor(&form, spec);
    }
    checkDefaults(inversionFields().specs(), inversionFields().write(gui::toInversionSettings(form.values())));
    checkDefaults(inversionFields().specs(), inversionFields().write(gui::toInversionSettings(form.defaults())));
  }

  // The forms repeat none of it: changed specs give changed editors.
  void aChangedSpecChangesTheForms() {
    auto inversion = gui::inversionFormFields();
    for (auto& spec : inversion) {
      if (spec.key == "iterations") {
        spec.default_value = 123;
        spec.max = 456;
        spec.label = "Descent steps";
        spec.help = "a changed help";
      } else if (spec.key == "init") {
        spec.default_value = "paper";
        spec.choice_labels = {"from N(0, 1)", "from N(1/2, 1/20)"};
      }
    }
    widgets::InversionSettingsForm inversion_form(inversion);
    for (const auto& spec : inversion) {
      if (kInversionFormKeys.contains(spec.key)) checkEditor(&inversion_form, spec);
    }
    QCOMPARE(inversion_form.values().iterations, 123);
    QVERIFY(inversion_form.values().paper_init);

    auto sampling = gui::samplingFormFields();
    for (auto& spec : sampling) {
      if (spec.key == "temperature") {
        spec.default_value = 0.7;
        spec.min = 0.5;
        spec.label = "T";
      } else if (spec.key == "placement") {
        spec.default_value = "window_start";
      } else if (spec.key == "stop_at_eos") {
        spec.default_value = false;
        spec.label = "Halt at the end";
      }
    }
    widgets::SamplingSettingsForm sampling_form(sampling);
    for (const auto& spec : sampling) checkEditor(&sampling_form, spec);
    QCOMPARE(sampling_form.values().temperature, 0.7);
    QCOMPARE(sampling_form.values().placement, QString("window_start"));
    QVERIFY(!sampling_form.values().stop_at_eos);
  }

  // The panels start from the declared defaults; the generation panel opens on its Greedy preset.
  void panelsStartFromTheDeclaredDefaults() {
    gui::InversionPanel inversion;
    checkDefaults(inversionFields().specs(),
                  inversionFields().write(gui::toInversionSettings(inversion.settingsForm()->values())));
    QVERIFY(inversion.settingsForm()->values().all_layers);

    gui::GenerationPanel generation;
    QCOMPARE(generation.settingsForm()->presetText(), QString("Greedy"));
    widgets::SamplingValues expected = generation.settingsForm()->defaults();
    QCOMPARE(widgets::samplingPresets().front().name, QString("Greedy"));
    widgets::applyPreset(widgets::samplingPresets().front(), expected);  // the token choice; the rest as declared
    QCOMPARE(q(writeGenerationSettings(gui::toGenerationSettings(generation.settingsForm()->values())).dump()),
             q(writeGenerationSettings(gui::toGenerationSettings(expected)).dump()));
    checkDefaults(generationFieldSpecs(),
                  writeGenerationSettings(gui::toGenerationSettings(generation.settingsForm()->defaults())));
  }
};

QTEST_MAIN(TestSettingsForms)
#include "test_settings_forms.moc"
