// safetensors tests: model round trips per family, research tensor names, dtypes, bad files.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <cstring>
#include <fstream>

#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/util/error.h"
#include "core/util/stack_frames.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
// A safetensors file written byte by byte: the header's length (8 bytes, little-endian), the JSON
// header as given, then the data.
std::string craftedFile(const std::string& header, const std::string& data = {}) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return bytes + header + data;
}
}  // namespace

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
    for (const std::string& header :
         {std::string(R"({"__metadata__": {"mixerlab_data_fnv1a64": {}}})"), std::string("[1, 2]")}) {
      try {
        parseSafetensors(craftedFile(header), "odd.safetensors");
        QFAIL(header.c_str());
      } catch (const MixerLabError& e) {
        QVERIFY2(QString(e.what()).contains("odd.safetensors"), e.what());
      }
    }
  }

  // Shapes like [-1, 64] or [2^40, 2^40] reached at::empty and came back as a LibTorch
  // stack trace; overlapping byte ranges were accepted. Every entry is now checked against the
  // file before a tensor is made, and the error names the file, the tensor and the fault.
  void craftedHeadersAreRefusedBeforeAnyTensorIsMade_data() {
    QTest::addColumn<QString>("header");
    QTest::addColumn<int>("data_bytes");
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<QString>("fault");
    QTest::newRow("negative dimension") << R"({"w": {"dtype": "F32", "shape": [-1, 64], "data_offsets": [0, 0]}})" << 0
                                        << "w"
                                        << "-1, which is negative";
    QTest::newRow("2^40 x 2^40") << R"({"w": {"dtype": "F32", "shape": [1099511627776, 1099511627776],)"
                                    R"( "data_offsets": [0, 0]}})"
                                 << 0 << "w"
                                 << "more bytes than 64 bits can count";
    QTest::newRow("2^62 x 2^62 x 0 bytes") << R"({"w": {"dtype": "U8", "shape": [4611686018427387904,)"
                                              R"( 4611686018427387904, 0], "data_offsets": [0, 0]}})"
                                           << 0 << "w"
                                           << "more bytes than 64 bits can count";
    QTest::newRow("dimension past int64") << R"({"w": {"dtype": "U8", "shape": [9223372036854775808],)"
                                             R"( "data_offsets": [0, 0]}})"
                                          << 0 << "w"
                                          << "too large";
    QTest::newRow("fractional dimension")
        << R"({"w": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 8]}})" << 8 << "w"
        << "not an integer";
    QTest::newRow("shape not an array") << R"({"w": {"dtype": "F32", "shape": 4, "data_offsets": [0, 16]}})" << 16
                                        << "w"
                                        << "not an array";
    QTest::newRow("no data_offsets") << R"({"w": {"dtype": "F32", "shape": [4]}})" << 16 << "w"
                                     << "no \"data_offsets\"";
    QTest::newRow("size mismatch") << R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 8]}})" << 16 << "w"
                                   << "(16 bytes of \"F32\") but data_offsets [0,8] hold 8 bytes";
    QTest::newRow("past the end") << R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})" << 8 << "w"
                                  << "past the end of the data (8 bytes)";
    QTest::newRow("backwards") << R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}})" << 8 << "w"
                               << "end before they begin";
    QTest::newRow("negative offset") << R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [-8, 0]}})" << 8 << "w"
                                     << "negative";
    QTest::newRow("overlap") << R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                                R"( "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})"
                             << 12 << "b"
                             << "overlaps tensor \"a\"";
    QTest::newRow("overlap inside a longer one") << R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},)"
                                                    R"( "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]},)"
                                                    R"( "c": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})"
                                                 << 16 << "b"
                                                 << "overlaps tensor \"a\"";
  }
  void craftedHeadersAreRefusedBeforeAnyTensorIsMade() {
    QFETCH(QString, header);
    QFETCH(int, data_bytes);
    QFETCH(QString, tensor);
    QFETCH(QString, fault);
    try {
      parseSafetensors(craftedFile(header.toStdString(), std::string(data_bytes, '\0')), "crafted.safetensors");
      QFAIL("the crafted header was accepted");
    } catch (const MixerLabError& e) {  // a c10::Error would escape this and fail the test
      const QString message = QString::fromStdString(e.problem());
      QVERIFY2(message.startsWith("crafted.safetensors: tensor \"" + tensor + "\""), qPrintable(message));
      QVERIFY2(message.contains(fault), qPrintable(message));
      QVERIFY2(!QString(e.what()).contains("frame #"), e.what());
    }
  }

  // The CLI's last-resort handler prints a c10::Error (one that no check caught) through
  // withoutStackFrames: its message, never the "Exception raised from" line and frames.
  void libTorchErrorsLoseTheirStackFrames() {
    try {
      (void)at::empty({-1, 64});
      QFAIL("LibTorch accepted a negative size");
    } catch (const c10::Error& e) {
      QVERIFY2(QString(e.what()).contains("frame #"), "this LibTorch build records no frames: nothing to strip");
      const std::string shown = withoutStackFrames(e.what());
      QVERIFY2(shown.find("frame #") == std::string::npos && shown.find("Exception raised from") == std::string::npos,
               shown.c_str());
      QVERIFY2(QString::fromStdString(shown).contains("negative dimension -1"), shown.c_str());
    }
    QCOMPARE(withoutStackFrames("line one\nline two\n"), std::string("line one\nline two"));
  }

  // The checks refuse no valid file: adjacent ranges, an empty tensor at any offset, a scalar.
  void craftedValidHeaderLoads() {
    std::string data(20, '\0');
    const float a[2] = {1.5f, -2.0f}, b[2] = {3.0f, 4.25f}, scalar = 7.0f;
    std::memcpy(data.data(), a, 8);
    std::memcpy(data.data() + 8, b, 8);
    std::memcpy(data.data() + 16, &scalar, 4);
    const auto file =
        parseSafetensors(craftedFile(R"({"b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]},)"
                                     R"( "a": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]},)"
                                     R"( "empty": {"dtype": "F32", "shape": [0, 5], "data_offsets": [4, 4]},)"
                                     R"( "s": {"dtype": "F32", "shape": [], "data_offsets": [16, 20]}})",
                                     data),
                         "valid.safetensors");
    QCOMPARE(file.tensors.size(), size_t{4});
    QVERIFY(torch::equal(file.tensors.at("a"), torch::tensor({{1.5f, -2.0f}})));
    QVERIFY(torch::equal(file.tensors.at("b"), torch::tensor({3.0f, 4.25f})));
    QCOMPARE(file.tensors.at("empty").sizes().vec(), (std::vector<int64_t>{0, 5}));
    QCOMPARE(file.tensors.at("s").item<float>(), 7.0f);
  }
};

QTEST_APPLESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
