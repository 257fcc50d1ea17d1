// Tests for core/data/tokenizer: training on the real demo corpus, lossless round trips (newlines, spacing,
// Unicode through byte fallback), fixed special ids, cache reuse, determinism and load errors.
#include <QtTest/QtTest>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/data/sentencepiece_runtime.h"
#include "core/data/tokenizer.h"
#include "core/data/tokenizer_sample.h"
#include "core/data/tokenizer_trainer_input.h"
#include "core/util/error.h"
#include "core/util/hashing.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

class Sentences : public sentencepiece::SentenceIterator {
 public:
  explicit Sentences(std::vector<std::string> sentences) : sentences_(std::move(sentences)) {}
  bool done() const override { return next_ >= sentences_.size(); }
  void Next() override { ++next_; }
  const std::string& value() const override { return sentences_[next_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  std::vector<std::string> sentences_;
  size_t next_ = 0;
};

}  // namespace

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

  // 50,000 "a"s made SentencePiece's BPE trainer segfault. A word (text between spaces) of
  // more than 32768 characters overflows its 16-bit pair positions; this pins the exact boundary.
  void wordsTooLongForTheTrainerAreRefused() {
    TokenizerSettings small = settings_;
    small.vocab_size = 512;
    const std::string refused = "characters without a space";
    // 32768 characters reach the trainer, whose own "too small" error is clean.
    std::string message = testing::errorOf<MixerLabError>(
        [&] { trainTokenizer({std::string(32768, 'a')}, small, scratch_ / "a.model"); });
    QVERIFY2(message.find("vocab_size 512") != std::string::npos, message.c_str());
    QVERIFY2(message.find(refused) == std::string::npos, message.c_str());
    message = testing::errorOf<MixerLabError>(
        [&] { trainTokenizer({std::string(32769, 'a')}, small, scratch_ / "a.model", "a.txt"); });
    QVERIFY2(
        message.find("a.txt: document 1 has a run of 32769 characters without a space (\"aaaa") != std::string::npos,
        message.c_str());
    QVERIFY2(message.find("only 1 distinct character") != std::string::npos, message.c_str());
    // One space in 40,001 characters is below character_coverage's cut, so it splits nothing: this crashed too.
    const std::string rare_space = std::string(20000, 'a') + " " + std::string(20000, 'b');
    message = testing::errorOf<MixerLabError>([&] {
      trainTokenizer({"short one", rare_space}, small, scratch_ / "a.model", "c.txt");
    });
    QVERIFY2(message.find("c.txt: document 2 has a run of 40001 characters") != std::string::npos, message.c_str());
    QVERIFY2(message.find("spaces are so rare") != std::string::npos, message.c_str());
    // Long documents of ordinary words are fine, "\n" and meta pieces are no word breaks.
    std::string words;
    while (words.size() < 60000) words += "the cat sat <s> on\nthe mat ";
    QCOMPARE(longestTrainerWord({words}, {0}, small).characters, int64_t{0});
    std::string lines;  // 9 bytes, 5 trainer symbols ("\n" and "<pad>" are one each) per repeat
    for (int i = 0; i < 10000; ++i) lines += "abc\n<pad>";
    const TrainerWord word = longestTrainerWord({"x", lines}, {0, 1}, small);
    QCOMPARE(word.document, size_t{1});
    QCOMPARE(word.characters, int64_t{50000});
    QVERIFY(!fs::exists(scratch_ / "a.model"));
  }

  // `train` reaches the trainer through ensureTokenizer: the same refusal, naming the corpus file.
  void projectCorpusOfOneCharacterIsRefused() {
    testing::writeText(scratch_ / "one" / "a.txt", std::string(50000, 'a'));
    TokenizerSettings small = settings_;
    small.vocab_size = 512;
    const std::string message = testing::errorOf<MixerLabError>(
        [&] { ensureTokenizer(scratch_ / "one" / "a.txt", CorpusFormat::Auto, small, scratch_ / "one" / "cache"); });
    QVERIFY2(message.find((scratch_ / "one" / "a.txt").string() + ": document 1 has a run of 50000 characters") !=
                 std::string::npos,
             message.c_str());
    QVERIFY2(message.find("lower the vocab_size") != std::string::npos, message.c_str());
  }

  // SentencePiece logs on std::cerr. This program refers to std::cerr, as the mixerlab executable does,
  // so the linker gave it its own copy of the stream and the library's (bound to libstdc++'s, which
  // stays unconstructed) crashed on its first line: any failed CHECK or LOG(ERROR) was a SIGSEGV.
  void sentencePieceLogLinesDoNotCrash() {
    std::cerr.flush();
    Sentences sentences({"this sentence is longer than the limit below", "short", "tiny"});
    std::string model;
    const auto status = spm::train({{"model_type", "bpe"},
                                    {"vocab_size", "40"},
                                    {"max_sentence_length", "10"},  // "Found too long line": a warning line
                                    {"minloglevel", "1"},
                                    {"num_threads", "1"}},
                                   &sentences, &model);
    QVERIFY(status.ok() || std::string(status.message()).size() > 0);  // reached here: the line was written
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
    // A project file passed as --model was taken for a broken tokenizer.json.
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
