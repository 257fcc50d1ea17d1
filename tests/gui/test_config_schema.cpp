// Field-spec tests: every registered field and family option reaches the GUI's run form schema and
// `mixerlab config schema --json` with its default and bounds, the parser enforces exactly the
// declared bounds and choices, and the docs tables equal what the schema generates.
#include <QComboBox>
#include <QLineEdit>
#include <QtTest/QtTest>

#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "app/gui/project/run_config_schema.h"
#include "core/config/config_schema.h"
#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"
#include "widgets/forms/config_form.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

QJsonValue qtValue(const nlohmann::json& j) {
  return QJsonDocument::fromJson(QByteArray::fromStdString("[" + j.dump() + "]")).array().at(0);
}

// Every registered field once per family that declares it: (key as the form addresses it, family or "", spec).
struct Registered {
  std::string key, family;
  FieldSpec spec;
};
std::vector<Registered> registeredRunFields() {
  std::vector<Registered> out;
  for (const auto& s : runFieldSpecs()) {
    if (s.key.rfind("model.options.", 0) == 0) continue;  // taken from the registry below
    out.push_back({s.key, "", s});
  }
  for (const auto& a : architectures()) {
    for (const auto& o : a.options) out.push_back({"model.options." + o.key, a.name, o});
  }
  return out;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text between the generated-block markers of a docs page.
std::string generatedBlock(const std::string& page) {
  const std::string begin = "<!-- BEGIN GENERATED", end = "<!-- END GENERATED -->";
  const size_t b = page.find(begin), e = page.find(end);
  if (b == std::string::npos || e == std::string::npos) return "(no generated block)";
  const size_t body = page.find("-->", b) + 4;
  return page.substr(body, e - body);
}

const char* kProject = R"({
  "corpus": {"train": "train.txt"},
  "tokenizer": {"vocab_size": 512},
  "runs": [{"name": "m", "model": {"arch": "masked_mixer", "d_model": 32, "n_layers": 2, "context_length": 16},
            "train": {"max_steps": 10}}]
})";

// The parser's message for the demo project with `value` at `dotted` (under runs[0]); "" if it loads.
QString errorWith(const std::string& dotted, const nlohmann::json& value, const std::string& arch) {
  static const fs::path dir = [] {
    const fs::path d = testing::makeScratchDir("schema");
    testing::writeText(d / "train.txt", "Once upon a time.\n\nThe end.\n");
    return d;
  }();
  nlohmann::json doc = nlohmann::json::parse(kProject);
  nlohmann::json& run = doc["runs"][0];
  run["model"]["arch"] = arch;
  if (arch != "masked_mixer" && arch != "bidirectional_mixer" && arch != "mamba") run["model"]["n_heads"] = 2;
  nlohmann::json* target = &run;
  std::stringstream parts(dotted);
  std::string part, last;
  std::vector<std::string> keys;
  while (std::getline(parts, part, '.')) keys.push_back(part);
  for (size_t i = 0; i + 1 < keys.size(); ++i) target = &(*target)[keys[i]];
  (*target)[keys.back()] = value;
  try {
    parseProject(doc, dir / "project.json");
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestConfigSchema : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void everyFieldIsInTheFormSchema() {
    const QVector<widgets::FieldSpec> form = gui::runSchema();
    for (const auto& r : registeredRunFields()) {
      const QString key = QString::fromStdString(r.key);
      const widgets::FieldSpec* found = nullptr;
      for (const auto& f : form) {
        const bool family_ok = r.family.empty() ? f.visible_for_arch.isEmpty() || !r.spec.families.empty()
                                                : f.visible_for_arch.contains(QString::fromStdString(r.family));
        const QVariant form_default = f.defaultFor(QString::fromStdString(r.family));
        if (f.key == key && family_ok &&
            QJsonValue::fromVariant(form_default) ==
                (r.spec.default_value.is_null() ? QJsonValue() : qtValue(r.spec.default_value))) {
          found = &f;
          break;
        }
      }
      QVERIFY2(found, qPrintable(key + " (" + QString::fromStdString(r.family) +
                                 ") missing from the run form, or its default differs"));
      if (r.spec.hasBounds()) {
        QVERIFY2(found->min <= r.spec.min && found->max >= r.spec.max, qPrintable(key + ": bounds differ"));
        if (r.family.empty()) {
          QCOMPARE(found->min, r.spec.min);
          QCOMPARE(found->max, r.spec.max);
        }
      }
      if (key == "train.device") {  // free text in the core; in the form, what this machine has
        QVERIFY(found->choices.contains("cpu") && found->choices.contains("auto"));
      } else {
        QCOMPARE(found->choices.size(), static_cast<int>(r.spec.choices.size()));
      }
    }
    // Family-specific model keys are shown for exactly the families that read them.
    for (const auto& f : form) {
      if (f.key != "model.n_heads") continue;
      QVERIFY(f.visible_for_arch.contains("llama"));
      QVERIFY(!f.visible_for_arch.contains("masked_mixer"));
    }
  }

  // dropout is gpt's (0.1) and transformer_autoencoder's (0.0): one editor, whose unedited value
  // follows the architecture and whose edited value is kept.
  void perFamilyDefaultsFollowTheArchitecture() {
    widgets::ConfigForm form;
    form.setSchema(gui::runSchema());
    form.setValues(QJsonObject{{"name", "r"}, {"model", QJsonObject{{"arch", "gpt"}}}});
    auto dropout = [&] { return widgets::ConfigForm::valueAt(form.values(), "model.options.dropout"); };
    auto arch = qobject_cast<QComboBox*>(form.editor("model.arch"));
    QVERIFY(arch);
    QCOMPARE(dropout().toDouble(), 0.1);
    arch->setCurrentText("transformer_autoencoder");
    QCOMPARE(dropout().toDouble(), 0.0);
    qobject_cast<QLineEdit*>(form.editor("model.options.dropout"))->setText("0.2");
    arch->setCurrentText("gpt");
    QCOMPARE(dropout().toDouble(), 0.2);
    arch->setCurrentText("masked_mixer");
    QVERIFY(dropout().isUndefined());
  }

  void everyFieldIsInTheCliSchema() {
    QProcess cli;
    cli.start(QString::fromStdString(testing::cliPath().string()), {"config", "schema", "--json"});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    const auto schema = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
    auto findIn = [](const nlohmann::json& list, const std::string& key, const FieldSpec& spec) {
      for (const auto& j : list) {
        if (j.at("key") == key && j.at("default") == spec.default_value &&
            (!spec.hasBounds() || (j.at("min") == spec.min && j.at("max") == spec.max))) {
          return true;
        }
      }
      return false;
    };
    for (const auto& r : registeredRunFields()) {
      if (!r.family.empty()) {
        bool found = false;
        for (const auto& fam : schema.at("families")) {
          if (fam.at("name") == r.family) found = findIn(fam.at("options"), r.spec.key, r.spec);
        }
        QVERIFY2(found, (r.key + " of " + r.family + " missing from the families' options").c_str());
      }
      QVERIFY2(findIn(schema.at("run"), r.key, r.spec), (r.key + " missing from config schema --json").c_str());
    }
    for (const auto& s : projectFieldSpecs()) QVERIFY2(findIn(schema.at("project"), s.key, s), s.key.c_str());
  }

  // The parser enforces the declared bounds and choices of every run field (not a copy of them).
  void parserEnforcesTheDeclarations() {
    QVERIFY2(errorWith("train.max_steps", 10, "masked_mixer").isEmpty(), "the base project must load");
    for (const auto& r : registeredRunFields()) {
      if (r.key == "name" || r.key == "model.arch" || r.key == "model.vocab_size") continue;
      const std::string arch =
          r.family.empty() ? (r.spec.families.empty() ? "masked_mixer" : r.spec.families.front()) : r.family;
      const std::string where = r.key.rfind("model.options.", 0) == 0 ? r.key.substr(6) : r.key;
      std::vector<nlohmann::json> bad;
      if (r.spec.hasBounds() && r.spec.max < 9e18)
        bad.push_back(r.spec.type == FieldType::Integer ? nlohmann::json(static_cast<int64_t>(r.spec.max) + 1)
                                                        : nlohmann::json(r.spec.max * 2 + 1));
      if (r.spec.hasBounds())
        bad.push_back(r.spec.type == FieldType::Integer ? nlohmann::json(static_cast<int64_t>(r.spec.min) - 1)
                                                        : nlohmann::json(r.spec.min - 1));
      if (!r.spec.choices.empty()) bad.push_back("no_such_choice");
      if (r.spec.type == FieldType::Boolean) bad.push_back("yes");
      // The message names the field and states the declared bounds or choices, so the parser
      // checks exactly what is declared (not a copy that could drift).
      std::string expected = "expected";
      if (r.spec.hasBounds()) {
        const bool integer = r.spec.type == FieldType::Integer;
        auto text = [integer](double v) {
          if (!integer) return nlohmann::json(v).dump();
          return v >= 9.2e18 ? std::to_string(std::numeric_limits<int64_t>::max())
                             : std::to_string(static_cast<long long>(v));
        };
        expected = "between " + text(r.spec.min) + " and " + text(r.spec.max);
      } else if (!r.spec.choices.empty()) {
        expected = "\"" + r.spec.choices.back() + "\", got \"no_such_choice\"";
      }
      for (const auto& value : bad) {
        const QString error = errorWith(r.key, value, arch);
        QVERIFY2(error.contains(QString::fromStdString(where)) && error.contains(QString::fromStdString(expected)),
                 qPrintable(QString::fromStdString(r.key + " = " + value.dump() + " (" + arch + "), expected \"" +
                                                   expected + "\": ") +
                            error));
      }
    }
  }

  // A model key is family-specific exactly when some family does not read it, and the families
  // that list it are the ones that do. tie_weights: a family reads it when its parameters change
  // with it (gpt always ties, the autoencoders never do, transfixer and the bidirectional
  // transformer reject true), so the form must not offer it to the others.
  void tieWeightsIsOfferedToTheFamiliesThatReadIt() {
    const auto specs = runFieldSpecs();
    const auto tie =
        std::find_if(specs.begin(), specs.end(), [](const FieldSpec& s) { return s.key == "model.tie_weights"; });
    QVERIFY(tie != specs.end());
    auto parameters = [](ModelConfig c) -> int64_t {  // distinct parameter elements; -1 when rejected
      std::vector<std::string> problems;
      findArchitecture(c.arch).validate(c, problems);
      if (!problems.empty()) return -1;
      std::set<const void*> seen;
      int64_t n = 0;
      for (const auto& p : buildModel(c)->parameters()) {
        if (seen.insert(p.data_ptr()).second) n += p.numel();
      }
      return n;
    };
    for (const auto& a : architectures()) {
      ModelConfig c = testing::tinyModelConfig(a.name, 64, 32, 2, 16);
      c.n_heads = 4;
      c.tie_weights = false;
      const int64_t untied = parameters(c);
      c.tie_weights = true;
      const int64_t tied = parameters(c);
      QVERIFY2(untied > 0, a.name.c_str());
      const bool reads = tied > 0 && tied != untied;
      const bool offered =
          tie->families.empty() || std::find(tie->families.begin(), tie->families.end(), a.name) != tie->families.end();
      QVERIFY2(reads == offered, (a.name + (reads ? " reads tie_weights but the form hides it"
                                                  : " ignores or rejects tie_weights but the form offers it"))
                                     .c_str());
    }
  }

  void docsTablesAreGenerated() {
    for (const auto& [doc, file] : {std::pair<std::string, std::string>{"project-file", "docs/project-file.md"},
                                    {"architectures", "docs/architectures.md"}}) {
      const std::string page = readText(testing::sourceDir() / file);
      QVERIFY2(generatedBlock(page) == "\n" + configSchemaMarkdown(doc),
               (file + " is out of date: regenerate its block with `mixerlab config schema --markdown " + doc + "`")
                   .c_str());
    }
  }
};

QTEST_MAIN(TestConfigSchema)
#include "test_config_schema.moc"
