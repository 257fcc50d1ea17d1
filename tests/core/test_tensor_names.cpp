// Golden tensor names: for every registered family (and the variants that change names) the
// names and shapes exportTensors() writes for a small fixed config are compared with a checked-in
// list under tests/golden/tensor_names/, and a file written under those names loads back through
// the checkpoint loader and re-exports the same tensors. A renamed submodule keeps every round
// trip passing but breaks loading research / Hugging Face checkpoints; this is where it shows.
//
// After an intended change: MIXERLAB_WRITE_GOLDEN=1 ./tests/test_tensor_names rewrites the lists
// (keeping their '#' header comments) and fails on purpose; review `git diff tests/golden`, check
// the names against the research / HF names by eye, and rerun without the variable.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/train/checkpoint.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

// One golden list: the family's defaults (file = arch) or a variant (file = arch.variant).
struct NameCase {
  std::string file;
  std::string arch;
  nlohmann::json options = nlohmann::json::object();
  bool tied = false;
  int64_t kernel_size = 1;
  std::string objective = "next_token";
};

// Variants whose names or shapes differ from their family's defaults.
const std::vector<NameCase>& variantCases() {
  static const std::vector<NameCase> variants = {
      {"masked_mixer.expanded", "masked_mixer", {{"mixing", "expanded"}}},
      {"masked_mixer.multi_head", "masked_mixer", {{"mixing", "multi_head"}}},
      {"masked_mixer.kernel4", "masked_mixer", nlohmann::json::object(), false, 4},
      {"masked_mixer.tied", "masked_mixer", nlohmann::json::object(), true},
      {"llama.tied", "llama", nlohmann::json::object(), true},
      {"mamba.tied", "mamba", nlohmann::json::object(), true},
      {"mixer_autoencoder.bottleneck", "mixer_autoencoder", {{"bottleneck", 2}}},
      {"mixer_autoencoder.multi_head", "mixer_autoencoder", {{"mixing", "multi_head"}}},
      {"transformer_autoencoder.bottleneck", "transformer_autoencoder", {{"bottleneck", 2}}},
      {"transfixer.before_attention", "transfixer", {{"conv_placement", "before_attention"}}},
      {"masked_mixer.multi_head_compat", "masked_mixer", {{"mixing", "multi_head"}, {"multi_head_compat", true}}},
      {"mixer_autoencoder.ff_dropout", "mixer_autoencoder", {{"ff_dropout", 0.05}}},
      {"masked_mixer.completion", "masked_mixer", nlohmann::json::object(), false, 1, "one_step_completion"},
      {"llama.completion", "llama", nlohmann::json::object(), false, 1, "one_step_completion"},
  };
  return variants;
}

// Every registered family at its defaults, then the variants.
std::vector<NameCase> allCases() {
  std::vector<NameCase> cases;
  for (const auto& family : architectures()) cases.push_back({family.name, family.name});
  for (const auto& v : variantCases()) cases.push_back(v);
  return cases;
}

const NameCase& caseNamed(const QString& file) {
  static const std::vector<NameCase> cases = allCases();
  for (const auto& c : cases) {
    if (c.file == file.toStdString()) return c;
  }
  throw std::runtime_error("no case " + file.toStdString());
}

ModelConfig smallConfig(const NameCase& k) {
  ModelConfig c = testing::tinyModelConfig(k.arch, 11, 16, 2, 6, k.options);
  c.n_heads = 2;
  c.kernel_size = k.kernel_size;
  c.tie_weights = k.tied;
  c.objective = parseModelObjective(k.objective);
  return c;
}

fs::path goldenDir() { return testing::sourceDir() / "tests/golden/tensor_names"; }
fs::path goldenFile(const NameCase& k) { return goldenDir() / (k.file + ".txt"); }

std::string shapeText(at::IntArrayRef sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

using NameList = std::map<std::string, std::string>;  // name -> shape text

NameList namesOf(const std::map<std::string, at::Tensor>& tensors) {
  NameList names;
  for (const auto& [name, tensor] : tensors) names[name] = shapeText(tensor.sizes());
  return names;
}

// The "name [shape]" lines of a golden file; '#' lines and blank lines are comments.
NameList readGolden(const fs::path& path, std::vector<std::string>* header = nullptr) {
  NameList names;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      if (header && !line.empty()) header->push_back(line);
      continue;
    }
    const auto space = line.find(' ');
    names[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return names;
}

void writeGolden(const NameCase& k, const NameList& names) {
  std::vector<std::string> header;
  if (fs::exists(goldenFile(k))) readGolden(goldenFile(k), &header);
  if (header.empty()) {
    header = {"# " + k.file + ": exportTensors() of the test_tensor_names.cpp config (D=16, N=2, V=11, T=6).",
              "# TODO: say which research / Hugging Face names these are, and whether they match."};
  }
  std::ofstream out(goldenFile(k));
  for (const auto& line : header) out << line << "\n";
  for (const auto& [name, shape] : names) out << name << " " << shape << "\n";
}

// Empty when equal; otherwise one line per missing, unexpected or reshaped tensor.
QString difference(const NameList& golden, const NameList& actual, const QString& actual_label) {
  QStringList lines;
  for (const auto& [name, shape] : golden) {
    auto it = actual.find(name);
    if (it == actual.end()) {
      lines << QString("  missing from %1: %2 %3").arg(actual_label, name.c_str(), shape.c_str());
    } else if (it->second != shape) {
      lines << QString("  %1: golden %2, %3 %4").arg(name.c_str(), shape.c_str(), actual_label, it->second.c_str());
    }
  }
  for (const auto& [name, shape] : actual) {
    if (!golden.count(name)) lines << QString("  not in the golden list: %1 %2").arg(name.c_str(), shape.c_str());
  }
  return lines.join("\n");
}

QString missingGoldenMessage(const NameCase& k) {
  return QString(
             "no golden tensor-name list %1 for \"%2\": create it with MIXERLAB_WRITE_GOLDEN=1 "
             "./tests/test_tensor_names, check the names against the research / Hugging Face names by eye and "
             "replace the TODO header with where they come from")
      .arg(QString::fromStdString(goldenFile(k).string()), QString::fromStdString(k.file));
}

void addCaseRows() {
  QTest::addColumn<QString>("file");
  for (const auto& k : allCases()) QTest::newRow(k.file.c_str()) << QString::fromStdString(k.file);
}

}  // namespace

class TestTensorNames : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  // exportTensors() names and shapes equal the golden list (a family without one fails).
  void exportMatchesGoldenList_data() { addCaseRows(); }
  void exportMatchesGoldenList() {
    QFETCH(QString, file);
    const NameCase& k = caseNamed(file);
    const NameList actual = namesOf(buildModel(smallConfig(k))->exportTensors());
    if (std::getenv("MIXERLAB_WRITE_GOLDEN")) {
      writeGolden(k, actual);
      QFAIL(qPrintable(QString("wrote %1 (MIXERLAB_WRITE_GOLDEN is set): review `git diff tests/golden`, then rerun "
                               "without the variable")
                           .arg(QString::fromStdString(goldenFile(k).string()))));
    }
    if (!fs::exists(goldenFile(k))) QFAIL(qPrintable(missingGoldenMessage(k)));
    const QString diff = difference(readGolden(goldenFile(k)), actual, "the export");
    QVERIFY2(diff.isEmpty(), qPrintable(QString("%1: exportTensors() differs from %2:\n%3")
                                            .arg(file, QString::fromStdString(goldenFile(k).string()), diff)));
  }

  // A file carrying the golden names loads into a differently seeded model through the checkpoint
  // loader, which then re-exports exactly the file's tensors and computes the same logits.
  void loadRestoresGoldenTensors_data() { addCaseRows(); }
  void loadRestoresGoldenTensors() {
    QFETCH(QString, file);
    const NameCase& k = caseNamed(file);
    if (!fs::exists(goldenFile(k))) QFAIL(qPrintable(missingGoldenMessage(k)));
    const ModelConfig config = smallConfig(k);
    torch::manual_seed(1);
    auto source = buildModel(config);
    torch::manual_seed(2);
    auto target = buildModel(config);
    const fs::path path = testing::makeScratchDir("names") / "model.safetensors";
    saveSafetensors(path, source->exportTensors());
    const SafetensorsFile saved = loadSafetensors(path);
    const QString diff = difference(readGolden(goldenFile(k)), namesOf(saved.tensors), "the file");
    QVERIFY2(diff.isEmpty(), qPrintable(QString("%1: saved file differs from the golden list:\n%2").arg(file, diff)));

    bool any_differs = false;
    auto before = target->exportTensors();
    for (const auto& [name, tensor] : saved.tensors)
      any_differs = any_differs || !torch::equal(before.at(name), tensor);
    QVERIFY2(any_differs, "the two seeds gave the same weights: the load below would prove nothing");

    loadModelTensors(*target, saved, path.string());
    const auto reexported = target->exportTensors();
    const QString rediff = difference(namesOf(saved.tensors), namesOf(reexported), "the re-export");
    QVERIFY2(rediff.isEmpty(), qPrintable(QString("%1: re-export after loading differs:\n%2").arg(file, rediff)));
    for (const auto& [name, tensor] : saved.tensors) {
      QVERIFY2(torch::equal(reexported.at(name), tensor),
               qPrintable(QString("%1: %2 changed on the way through the loader").arg(file, name.c_str())));
    }
    source->eval();
    target->eval();
    torch::NoGradGuard no_grad;
    const auto ids = torch::randint(0, config.vocab_size, {2, config.context_length}, torch::kLong);
    QVERIFY2(torch::equal(source->forward(ids), target->forward(ids)), qPrintable(file));
  }

  // Every golden file belongs to a case, so a dropped variant or family leaves no stale list.
  void everyGoldenFileHasACase() {
    QVERIFY2(fs::is_directory(goldenDir()), goldenDir().c_str());
    std::set<std::string> known;
    for (const auto& k : allCases()) known.insert(k.file + ".txt");
    for (const auto& entry : fs::directory_iterator(goldenDir())) {
      const std::string name = entry.path().filename().string();
      QVERIFY2(known.count(name), qPrintable(QString("%1 matches no family or variant in test_tensor_names.cpp")
                                                 .arg(QString::fromStdString(entry.path().string()))));
    }
  }
};

QTEST_APPLESS_MAIN(TestTensorNames)
#include "test_tensor_names.moc"
