// safetensors tests: model round trips per family, research tensor names, dtypes, bad files.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <fstream>

#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/util/error.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestSafetensors : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void modelRoundTrip_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<bool>("tied");
    QTest::newRow("masked_mixer") << "masked_mixer" << false;
    QTest::newRow("masked_mixer tied") << "masked_mixer" << true;
    QTest::newRow("llama") << "llama" << false;
  }
  void modelRoundTrip() {
    QFETCH(QString, arch);
    QFETCH(bool, tied);
    ModelConfig c = testing::tinyModelConfig(arch.toStdString(), 64, 16, 2, 8);
    c.n_heads = 2;
    c.tie_weights = tied;
    torch::manual_seed(1);
    auto a = buildModel(c);
    torch::manual_seed(2);
    auto b = buildModel(c);
    const fs::path file = testing::makeScratchDir("st") / "model.safetensors";
    saveSafetensors(file, a->exportTensors(), {{"arch", c.arch}});
    auto loaded = loadSafetensors(file);
    QCOMPARE(loaded.metadata.at("arch"), c.arch);
    QVERIFY(loaded.tensors.count("lm_head.weight"));
    if (c.arch == "masked_mixer") {
      QVERIFY(loaded.tensors.count("wte.weight"));
      QCOMPARE(loaded.tensors.at("mixerblocks.1.conv.weight").sizes().vec(), (std::vector<int64_t>{8, 8, 1}));
      QVERIFY(loaded.tensors.count("mixerblocks.0.patch_ff.2.bias"));
      QVERIFY(loaded.tensors.count("mixerblocks.0.seq_layernorm.weight"));
    } else {
      QVERIFY(loaded.tensors.count("model.embed_tokens.weight"));
      QVERIFY(loaded.tensors.count("model.layers.1.self_attn.q_proj.weight"));
      QVERIFY(loaded.tensors.count("model.layers.0.mlp.gate_proj.weight"));
      QVERIFY(loaded.tensors.count("model.norm.weight"));
    }
    if (tied) loaded.tensors.erase("lm_head.weight");
    loadIntoModule(*b, loaded, file.string());
    auto ids = torch::randint(0, 64, {2, 8}, torch::kLong);
    torch::NoGradGuard no_grad;
    QVERIFY(torch::equal(a->forward(ids), b->forward(ids)));
  }

  void dtypesRoundTrip() {
    std::map<std::string, at::Tensor> tensors = {
        {"f16", torch::randn({3, 5}).to(torch::kHalf)},
        {"bf16", torch::randn({4}).to(torch::kBFloat16)},
        {"i64", torch::arange(7, torch::kLong)},
        {"scalar", torch::tensor(2.5)},
        {"empty", torch::zeros({0, 3})},
    };
    const fs::path file = testing::makeScratchDir("st") / "mixed.safetensors";
    saveSafetensors(file, tensors);
    auto loaded = loadSafetensors(file);
    QCOMPARE(loaded.tensors.size(), tensors.size());
    for (const auto& [name, t] : tensors) {
      QCOMPARE(loaded.tensors.at(name).scalar_type(), t.scalar_type());
      QVERIFY2(torch::equal(loaded.tensors.at(name), t), name.c_str());
    }
    // Header length is little-endian and the data section is 8-byte aligned.
    std::ifstream in(file, std::ios::binary);
    unsigned char len[8];
    in.read(reinterpret_cast<char*>(len), 8);
    uint64_t header = 0;
    for (int i = 0; i < 8; ++i) header |= static_cast<uint64_t>(len[i]) << (8 * i);
    QCOMPARE(header % 8, 0ULL);
  }

  void shapeMismatchNamesTensor() {
    ModelConfig c = testing::tinyModelConfig("masked_mixer", 32, 8, 1, 4);
    auto a = buildModel(c);
    c.context_length = 6;
    auto b = buildModel(c);
    const fs::path file = testing::makeScratchDir("st") / "a.safetensors";
    saveSafetensors(file, a->exportTensors());
    try {
      loadIntoModule(*b, loadSafetensors(file), file.string());
      QFAIL("expected a shape error");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).contains("mixerblocks.0.conv"), e.what());
      QVERIFY2(QString(e.what()).contains("[4, 4, 1]"), e.what());
    }
  }

  void truncatedFileIsRejected() {
    const fs::path dir = testing::makeScratchDir("st");
    saveSafetensors(dir / "t.safetensors", {{"x", torch::randn({100})}});
    fs::resize_file(dir / "t.safetensors", fs::file_size(dir / "t.safetensors") - 40);
    QVERIFY_THROWS_EXCEPTION(std::exception, loadSafetensors(dir / "t.safetensors"));
    QVERIFY_THROWS_EXCEPTION(std::exception, loadSafetensors(dir / "missing.safetensors"));
  }

  // Found by fuzz/safetensors_fuzzer: a checksum that is not a string (and a header that is not an
  // object) escaped as nlohmann exceptions instead of a MixerLabError naming the file.
  void malformedHeadersGiveClearErrors() {
    auto file = [](const std::string& header) {
      std::string bytes(8, '\0');
      for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
      return bytes + header;
    };
    for (const std::string& header :
         {std::string(R"({"__metadata__": {"mixerlab_data_fnv1a64": {}}})"), std::string("[1, 2]")}) {
      try {
        parseSafetensors(file(header), "odd.safetensors");
        QFAIL(header.c_str());
      } catch (const MixerLabError& e) {
        QVERIFY2(QString(e.what()).contains("odd.safetensors"), e.what());
      }
    }
  }
};

QTEST_APPLESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
