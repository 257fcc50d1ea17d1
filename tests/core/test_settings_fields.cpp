// The inversion and generation settings are declared once (core/analysis/inversion_fields.h,
// sampling_fields.h). For every declared field: the structs' defaults are the declared ones, the
// real CLI's `invert --help` / `generate --help` shows the declared option name, help, default and
// range, the CLI's effective defaults (its --json settings) are the declared ones, each option sets
// its field, and a value outside the declared bounds is refused naming the option. A changed
// declaration changes the help the CLI prints (fieldOptionName / fieldOptionHelp are functions of
// the declaration). The GUI forms' side is tests/gui/test_settings_forms.cpp.
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "core/analysis/generation_json.h"
#include "core/analysis/inversion_fields.h"
#include "core/analysis/inversion_json.h"
#include "core/analysis/sampling_fields.h"
#include "core/util/field_options.h"
#include "tests/cli_process.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
using testing::runCli;

QString q(const std::string& s) { return QString::fromStdString(s); }

// The help lines of one option: its own line and the description lines under it, up to the next option.
QString optionBlock(const QString& help, const QString& option) {
  const QStringList lines = help.split('\n');
  for (int i = 0; i < lines.size(); ++i) {
    const QString line = lines[i].trimmed();
    if (line != option && !line.startsWith(option + " ")) continue;
    QString block = line;
    for (int j = i + 1; j < lines.size() && !lines[j].trimmed().startsWith("-"); ++j) block += " " + lines[j].trimmed();
    return block;
  }
  return {};
}

// A value just outside the declared bounds, below (or above) them.
QString outside(const FieldSpec& spec, bool below) {
  if (spec.type == FieldType::Integer) {
    return QString::number(static_cast<long long>(below ? spec.min - 1 : spec.max + 1));
  }
  const double step = below ? (spec.min > 0 ? spec.min / 2 : 1.0) : (spec.max > 0 ? spec.max : 1.0);
  return QString::number(below ? spec.min - step : spec.max + step, 'g', 12);
}

// A value inside the declared bounds that is not the default.
QString otherValue(const FieldSpec& spec) {
  switch (spec.type) {
    case FieldType::Integer: {
      const int64_t value = spec.default_value.get<int64_t>() == static_cast<int64_t>(spec.min)
                                ? static_cast<int64_t>(spec.min) + 1
                                : static_cast<int64_t>(spec.min);
      return QString::number(static_cast<long long>(value));
    }
    case FieldType::Number:
      return QString::number(spec.default_value.get<double>() == spec.min ? spec.max : spec.min, 'g', 12);
    case FieldType::Choice:
      return q(spec.choices.back() == spec.default_value.get<std::string>() ? spec.choices.front()
                                                                            : spec.choices.back());
    case FieldType::Text:
      return "other";
    case FieldType::Boolean:
      break;
  }
  return {};
}

nlohmann::json parsedValue(const FieldSpec& spec, const QString& text) {
  if (spec.type == FieldType::Integer) return text.toLongLong();
  if (spec.type == FieldType::Number) return text.toDouble();
  if (spec.type == FieldType::Boolean) return !spec.default_value.get<bool>();
  return text.toStdString();
}

FieldSpec specOf(const std::vector<FieldSpec>& specs, const std::string& key) {  // a copy: specs may be a temporary
  for (const auto& spec : specs) {
    if (spec.key == key) return spec;
  }
  throw std::runtime_error("no field " + key);
}

// The entries of `settings` (a JSON object of settings) whose value is not the default `specs`
// declare for their key, as "key: value"; empty when every one is.
QStringList nonDefaultSettings(const nlohmann::json& settings, const std::vector<FieldSpec>& specs) {
  QStringList out;
  for (const auto& [key, value] : settings.items()) {
    if (value != specOf(specs, key).default_value) out << q(key) + ": " + q(value.dump());
  }
  return out;
}

}  // namespace

class TestSettingsFields : public QObject {
  Q_OBJECT
  fs::path dir_, project_, run_dir_;

  std::vector<FieldSpec> inversionSpecs() const { return inversionFields().specs(); }

  // Every declared option in the command's help, with its help text, default and range.
  void checkHelp(const QString& command, const std::vector<FieldSpec>& specs) {
    const auto result = runCli({command, "--help"});
    QCOMPARE(result.exit_code, 0);
    for (const auto& spec : specs) {
      const QString option = q(fieldOptionName(spec));
      const QString block = optionBlock(result.out, option);
      QVERIFY2(!block.isEmpty(), qPrintable(command + ": no " + option + " in\n" + result.out));
      QVERIFY2(block.contains(q(fieldOptionHelp(spec))), qPrintable(block + "\nlacks: " + q(fieldOptionHelp(spec))));
      if (spec.hasBounds()) QVERIFY2(block.contains(q(spec.rangeForDocs())), qPrintable(block));
      if (spec.type == FieldType::Choice) {
        QStringList choices;
        for (const auto& c : spec.choices) choices << q(c);
        QVERIFY2(block.contains("{" + choices.join(',') + "}"), qPrintable(block));
      }
    }
  }

  // Each value outside a numeric field's bounds is refused before anything runs, naming the option.
  void checkBounds(const QStringList& command, const std::vector<FieldSpec>& specs) {
    for (const auto& spec : specs) {
      if (!spec.hasBounds()) continue;
      for (bool below : {true, false}) {
        if (!below && spec.max >= 9.2e18) continue;  // no upper bound
        const QString value = outside(spec, below);
        const auto result = runCli(QStringList(command) << q(fieldOptionName(spec)) << value);
        QVERIFY2(result.exit_code != 0, qPrintable(q(spec.key) + " accepted " + value));
        QVERIFY2(result.err.contains(q(fieldOptionName(spec))) && result.err.contains(q(spec.rangeForDocs())),
                 qPrintable(result.err));
      }
    }
  }

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("settings-fields");
    project_ = testing::writeTinyProject(dir_);  // 12 steps of a tiny mixer: a real checkpoint in about a second
    const auto train = runCli({"train", q(project_.string()), "--run", "mixer"});
    QVERIFY2(train.exit_code == 0, qPrintable(train.err));
    run_dir_ = dir_ / "runs" / "mixer";
  }

  // The declared defaults are the structs' (FieldSet takes them from the member initialisers), and
  // the JSON the core writes elsewhere (`invert --json`, `generate --json`) agrees with them.
  void structDefaultsAreTheDeclaredOnes() {
    const nlohmann::json inversion = inversionFields().write(InversionSettings{});
    for (const auto& spec : inversionSpecs()) QCOMPARE(q(spec.default_value.dump()), q(inversion.at(spec.key).dump()));
    QCOMPARE(nonDefaultSettings(inversionSettingsJson(InversionSettings{}), inversionSpecs()), QStringList());
    const nlohmann::json generation = writeGenerationSettings(GenerationSettings{});
    const auto specs = generationFieldSpecs();
    QCOMPARE(generation.size(), specs.size());  // keys unique across the two lists
    for (const auto& spec : specs) QCOMPARE(q(spec.default_value.dump()), q(generation.at(spec.key).dump()));
    QCOMPARE(nonDefaultSettings(generationSettingsJson(GenerationSettings{}), specs), QStringList());
    // Every choice reads back as itself, spelled as the core's JSON spells the enums.
    for (const auto& spec : inversionSpecs()) {
      for (const auto& choice : spec.choices) {
        const InversionSettings s = inversionFields().read({{spec.key, choice}}, "test", "");
        QCOMPARE(q(inversionFields().write(s).at(spec.key).get<std::string>()), q(choice));
        if (spec.key == "init") QCOMPARE(q(inversionInitName(s.init)), q(choice));
        if (spec.key == "objective") QCOMPARE(q(inversionObjectiveName(s.objective)), q(choice));
        if (spec.key == "reference") QCOMPARE(q(inversionReferenceName(s.reference)), q(choice));
      }
    }
    const FieldSpec decoder = specOf(specs, "decoder"), placement = specOf(specs, "placement");
    for (const auto& choice : decoder.choices) {
      QCOMPARE(q(decoderChoiceName(readGenerationSettings({{"decoder", choice}}, "test").decoder)), q(choice));
    }
    for (const auto& choice : placement.choices) {
      QCOMPARE(q(promptPlacementName(readGenerationSettings({{"placement", choice}}, "test").placement)), q(choice));
    }
  }

  void cliHelpShowsEveryDeclaredField() {
    checkHelp("invert", inversionSpecs());
    checkHelp("generate", generationFieldSpecs());
  }

  // The help is made from the declaration: change a field's default, unit, help or flag and the
  // option's help and name change with it.
  void aChangedDeclarationChangesTheHelp() {
    FieldSpec spec = specOf(inversionSpecs(), "iterations");
    QCOMPARE(q(fieldOptionName(spec)), QString("--iterations"));
    QCOMPARE(q(fieldOptionHelp(spec)), QString("Gradient-descent steps N on the input embedding (default 500 steps)"));
    spec.default_value = 123;
    spec.unit = "passes";
    spec.help = "a changed help";
    spec.flag = "--passes";
    QCOMPARE(q(fieldOptionName(spec)), QString("--passes"));
    QCOMPARE(q(fieldOptionHelp(spec)), QString("A changed help (default 123 passes)"));

    FieldSpec eos = specOf(generationFieldSpecs(), "stop_at_eos");
    QCOMPARE(q(fieldOptionName(eos)), QString("--no-eos-stop"));
    eos.flag.clear();
    QCOMPARE(q(fieldOptionName(eos)), QString("--no-stop-at-eos"));  // on by default: the flag turns it off
    eos.default_value = false;
    QCOMPARE(q(fieldOptionName(eos)), QString("--stop-at-eos"));
    QCOMPARE(q(fieldOptionHelp(eos)), QString("Stop when the model picks the end-of-text token"));

    FieldSpec stop = specOf(generationFieldSpecs(), "stop_string");
    QVERIFY(q(fieldOptionHelp(stop)).endsWith("(default none)"));
    stop.default_value = "The end";
    QVERIFY(q(fieldOptionHelp(stop)).endsWith("(default The end)"));
  }

  // With no settings option, the settings the CLI ran with are the declared defaults.
  void cliDefaultsAreTheDeclaredOnes() {
    const auto inv = runCli({"invert", "--checkpoint", q(run_dir_.string()), "--text", "a cat", "--json"});
    QVERIFY2(inv.exit_code == 0, qPrintable(inv.err));
    const auto j = nlohmann::json::parse(inv.out.toStdString());
    QVERIFY(!j.at("settings").empty());
    QCOMPARE(nonDefaultSettings(j.at("settings"), inversionSpecs()), QStringList());
    QVERIFY(j.at("results")[0].at("top_k") == specOf(inversionSpecs(), "top_k").default_value);

    const auto gen = runCli({"generate", "--checkpoint", q(run_dir_.string()), "--prompt", "Once", "--json"});
    QVERIFY2(gen.exit_code == 0, qPrintable(gen.err));
    const auto g = nlohmann::json::parse(gen.out.toStdString());
    QVERIFY(!g.at("settings").empty());
    QCOMPARE(nonDefaultSettings(g.at("settings"), generationFieldSpecs()), QStringList());
  }

  // Each option sets its own field to the value given (a flag: the opposite of the default).
  void everyOptionSetsItsField() {
    QStringList args = {"generate", "--checkpoint", q(run_dir_.string()), "--prompt", "Once", "--json"};
    nlohmann::json expected = nlohmann::json::object();
    for (const auto& spec : generationFieldSpecs()) {
      args << q(fieldOptionName(spec));
      if (spec.type != FieldType::Boolean) args << otherValue(spec);
      expected[spec.key] = parsedValue(spec, spec.type == FieldType::Boolean ? QString() : otherValue(spec));
    }
    const auto gen = runCli(args);
    QVERIFY2(gen.exit_code == 0, qPrintable(gen.err));
    const auto written = nlohmann::json::parse(gen.out.toStdString());
    for (const auto& [key, value] : written.at("settings").items()) {
      QVERIFY2(value == expected.at(key),
               qPrintable(q(key) + ": " + q(value.dump()) + " != " + q(expected.at(key).dump())));
    }

    args = QStringList{"invert", "--checkpoint", q(run_dir_.string()), "--text", "a cat", "--json"};
    expected = nlohmann::json::object();
    for (const auto& spec : inversionSpecs()) {
      if (spec.key == "device") continue;  // "other" is no device
      QString value = spec.type == FieldType::Boolean ? QString() : otherValue(spec);
      if (spec.key == "iterations") value = "3";  // short
      args << q(fieldOptionName(spec));
      if (spec.type != FieldType::Boolean) args << value;
      expected[spec.key] = parsedValue(spec, value);
    }
    const auto inv = runCli(args);
    QVERIFY2(inv.exit_code == 0, qPrintable(inv.err));
    const auto j = nlohmann::json::parse(inv.out.toStdString());
    for (const auto& [key, value] : j.at("settings").items()) {
      QVERIFY2(value == expected.at(key),
               qPrintable(q(key) + ": " + q(value.dump()) + " != " + q(expected.at(key).dump())));
    }
    QVERIFY(j.at("results")[0].at("top_k") == expected.at("top_k"));
  }

  void cliRefusesValuesOutsideTheDeclaredBounds() {
    checkBounds({"invert", "--checkpoint", q(run_dir_.string()), "--text", "a"}, inversionSpecs());
    checkBounds({"generate", "--checkpoint", q(run_dir_.string()), "--prompt", "a"}, generationFieldSpecs());
  }
};

QTEST_GUILESS_MAIN(TestSettingsFields)
#include "test_settings_fields.moc"
