// Tests for core/data/tokenizer: training on the real demo corpus, lossless round trips (newlines, spacing,
// Unicode through byte fallback), fixed special ids, cache reuse, determinism and load errors.
#include <QtTest/QtTest>

#include <optional>
#include <string>
#include <vector>

#include "core/data/tokenizer.h"
#include "core/util/error.h"
#include "core/util/hashing.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestTokenizer : public QObject {
  Q_OBJECT

 private:
  fs::path scratch_;
  TokenizerSettings settings_;
  fs::path model_path_;
  std::optional<Tokenizer> tokenizer_;

 private Q_SLOTS:
  void initTestCase() {
    scratch_ = testing::makeScratchDir("tokenizer");
    settings_.vocab_size = 1024;
    bool reused = true;
    model_path_ =
        ensureTokenizer(testing::demoTrainCorpus(), CorpusFormat::Auto, settings_, scratch_ / "cache", &reused);
    QVERIFY(!reused);
    QVERIFY(fs::is_regular_file(model_path_));
    QCOMPARE(model_path_.parent_path(), scratch_ / "cache");
    QVERIFY(model_path_.filename().string().rfind("tokenizer-", 0) == 0);
    tokenizer_ = Tokenizer::load(model_path_);
  }

  void specialIdsAndVocabSize() {
    QCOMPARE(tokenizer_->vocabSize(), 1024);
    QCOMPARE(tokenizer_->unkId(), 0);
    QCOMPARE(tokenizer_->bosId(), 1);
    QCOMPARE(tokenizer_->eosId(), 2);
    QCOMPARE(tokenizer_->padId(), 3);
    QCOMPARE(tokenizer_->piece(3), std::string("<pad>"));
    QCOMPARE(tokenizer_->piece(2), std::string("</s>"));
    QCOMPARE(tokenizer_->hash(), hashFileHex(model_path_));
    QCOMPARE(tokenizer_->modelPath(), model_path_);
  }

  void roundTripIsExact() {
    const std::vector<std::string> texts = {
        "Hi.\nBye.\n\nEnd",
        "Once upon a time, there was a little girl named Lily. She liked to play outside.",
        "Zoë 猫 🙂 naïve café ✓",
        "  two  spaces,\ttab and trailing space ",
        "\nstarts with a newline and ends with two\n\n",
        "\"Mom!\" she said. 'Yes?' 12345 + 678 = 13023.",
        "",
    };
    for (const auto& text : texts) {
      const std::vector<int> ids = tokenizer_->encode(text);
      QCOMPARE(tokenizer_->decode(ids), text);
      for (int id : ids) {
        QVERIFY(id >= 0 && id < tokenizer_->vocabSize());
        QVERIFY2(id != tokenizer_->unkId(), ("unknown token in: " + text).c_str());
        QVERIFY(id != tokenizer_->bosId() && id != tokenizer_->eosId() && id != tokenizer_->padId());
      }
    }
  }

  void newlineIsOneRealToken() {
    const std::vector<int> ids = tokenizer_->encode("Hi.\nBye.\n\nEnd");
    int newlines = 0;
    for (int id : ids) newlines += tokenizer_->piece(id) == "\n" ? 1 : 0;
    QCOMPARE(newlines, 3);
    // A common word is learned as a single piece (the vocabulary was really trained).
    QCOMPARE(tokenizer_->encode("Once").size(), size_t(1));
  }

  void ensureReusesCachedModel() {
    bool reused = false;
    const fs::path again =
        ensureTokenizer(testing::demoTrainCorpus(), CorpusFormat::Auto, settings_, scratch_ / "cache", &reused);
    QVERIFY(reused);
    QCOMPARE(again, model_path_);
    TokenizerSettings other = settings_;
    other.vocab_size = 512;
    QVERIFY(other.cacheKey() != settings_.cacheKey());
  }

  void trainingIsDeterministic() {
    const auto docs = readCorpus(testing::demoTrainCorpus());
    trainTokenizer(docs, settings_, scratch_ / "again.model");
    QCOMPARE(hashFileHex(scratch_ / "again.model"), tokenizer_->hash());
  }

  void tooSmallCorpusSaysSo() {
    TokenizerSettings huge = settings_;
    huge.vocab_size = 50000;
    try {
      trainTokenizer({"tiny corpus", "with few words"}, huge, scratch_ / "huge.model");
      QFAIL("training a 50000-token vocabulary on two lines must fail");
    } catch (const MixerLabError& e) {
      const std::string message = e.what();
      QVERIFY2(message.find("vocab_size") != std::string::npos, message.c_str());
      QVERIFY2(message.find("smaller") != std::string::npos, message.c_str());
    }
    QVERIFY(!fs::exists(scratch_ / "huge.model"));
  }

  void loadErrorsNamePath() {
    const fs::path missing = scratch_ / "missing" / "nothing.model";
    try {
      Tokenizer::load(missing);
      QFAIL("loading a missing model must throw");
    } catch (const MixerLabError& e) {
      QVERIFY2(std::string(e.what()).find(missing.string()) != std::string::npos, e.what());
    }
    const fs::path junk = scratch_ / "junk.model";
    testing::writeText(junk, "this is not a sentencepiece model");
    try {
      Tokenizer::load(junk);
      QFAIL("loading a junk model must throw");
    } catch (const MixerLabError& e) {
      QVERIFY2(std::string(e.what()).find(junk.string()) != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("trained again") == std::string::npos, e.what());  // not a cache entry
    }
    // Issue 15: a project file passed as --model was taken for a broken tokenizer.json.
    try {
      Tokenizer::load(testing::sourceDir() / "projects/demo/project.json");
      QFAIL("a project file loaded as a tokenizer");
    } catch (const MixerLabError& e) {
      QVERIFY2(std::string(e.what()).find("is a MixerLab project file, not a tokenizer") != std::string::npos,
               e.what());
    }
  }

  void cleanupTestCase() { fs::remove_all(scratch_); }
};

QTEST_APPLESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
