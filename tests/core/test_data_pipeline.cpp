// Tests for core/data/token_cache and core/data/batching: cache round trip and corruption checks, padded
// and packed examples, the deterministic split, exact resume of the batch order, epoch wrap-around,
// the prefetching loader and eval batches.
#include <QtTest/QtTest>

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/data/batching.h"
#include "core/data/shard_preparation.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer_sample.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

std::vector<int64_t> row(const at::Tensor& t, int64_t b) {
  const at::Tensor r = t[b].contiguous();
  return std::vector<int64_t>(r.data_ptr<int64_t>(), r.data_ptr<int64_t>() + r.numel());
}

std::vector<int64_t> tokensOf(const TokenCache& cache, size_t doc) {
  const TokenSpan span = cache.document(doc);
  const std::vector<int> ids = span.ids();
  return std::vector<int64_t>(ids.begin(), ids.end());
}

bool sameBatch(const Batch& a, const Batch& b) {
  return torch::equal(a.input_ids, b.input_ids) && torch::equal(a.labels, b.labels) &&
         a.num_target_tokens == b.num_target_tokens;
}

std::vector<size_t> allDocs(size_t count) {
  std::vector<size_t> docs(count);
  std::iota(docs.begin(), docs.end(), size_t(0));
  return docs;
}

}  // namespace

class TestDataPipeline : public QObject {
  Q_OBJECT

 private:
  fs::path scratch_;
  std::optional<Tokenizer> tokenizer_;
  fs::path demo_cache_path_;
  std::optional<TokenCache> demo_;   // the demo corpus
  std::optional<TokenCache> small_;  // ten short documents of different lengths

  // pad = <pad> (id 3), so pads and real tokens are told apart by id; padding side and pack separator
  // as given (test_data_fidelity covers the research layout's defaults).
  BatchingSettings settings(BatchMode mode, int64_t T, int64_t B, PaddingSide side = PaddingSide::Right,
                            PackSeparator separator = PackSeparator::None) const {
    return {T, B, mode, side, tokenizer_->padId(), tokenizer_->eosId(), separator};
  }

 private Q_SLOTS:
  void initTestCase() {
    scratch_ = testing::makeScratchDir("data-pipeline");
    TokenizerSettings tok;
    tok.vocab_size = 512;
    tokenizer_ = Tokenizer::load(ensureTokenizer(testing::demoTrainCorpus(), CorpusFormat::Auto, tok, scratch_));
    bool reused = true;
    demo_cache_path_ =
        prepareCorpusShards(testing::demoTrainCorpus(), CorpusFormat::Auto, *tokenizer_, scratch_, &reused);
    QVERIFY(!reused);
    demo_ = TokenCache::open(demo_cache_path_);
    std::vector<std::string> docs{"Lily"};  // document k: "Lily" + k times " and Tom played."
    for (int k = 1; k < 10; ++k) docs.push_back(docs.back() + " and Tom played.");
    buildTokenCache(docs, *tokenizer_, scratch_ / "small.bin");
    small_ = TokenCache::open(scratch_ / "small.bin");
    QCOMPARE(small_->numDocuments(), size_t(10));
  }

  void tokenCacheRoundTrip() {
    const auto docs = readCorpus(testing::demoTrainCorpus());
    QCOMPARE(demo_->numDocuments(), docs.size());
    size_t total = 0;
    for (size_t i = 0; i < docs.size(); ++i) {
      const TokenSpan span = demo_->document(i);
      QVERIFY(span.size > 0);
      QCOMPARE(tokenizer_->decode(span.ids()), docs[i]);
      total += span.size;
    }
    QCOMPARE(demo_->numTokens(), total);
    QCOMPARE(reinterpret_cast<uintptr_t>(demo_->document(0).data) % 8, uintptr_t(0));
    bool reused = false;
    QCOMPARE(prepareCorpusShards(testing::demoTrainCorpus(), CorpusFormat::Auto, *tokenizer_, scratch_, &reused),
             demo_cache_path_);
    QVERIFY(reused);
    // Moving keeps the mapping valid.
    TokenCache moved = TokenCache::open(demo_cache_path_);
    TokenCache target = std::move(moved);
    QCOMPARE(tokensOf(target, 5), tokensOf(*demo_, 5));
  }

  void damagedCacheIsRejected() {
    const fs::path truncated = scratch_ / "truncated.bin";
    fs::copy_file(scratch_ / "small.bin", truncated);
    fs::resize_file(truncated, fs::file_size(truncated) - 4);
    const fs::path bad_magic = scratch_ / "bad_magic.bin", tiny = scratch_ / "tiny.bin";
    testing::writeText(bad_magic, "NOTATOKENCACHE_PADDING_PADDING_PADDING");
    testing::writeText(tiny, "MXL");
    for (const fs::path& path : {truncated, bad_magic, tiny}) {
      try {
        TokenCache::open(path);
        QFAIL(("opening a damaged cache must throw: " + path.string()).c_str());
      } catch (const MixerLabError& e) {
        const std::string message = e.what();
        QVERIFY2(message.find(path.string()) != std::string::npos, message.c_str());
        QVERIFY2(message.find("delete") != std::string::npos, message.c_str());
      }
    }
  }

  void paddedRightAndLeft() {
    const int64_t T = 12;
    QVERIFY(small_->document(0).size < size_t(T));  // some documents are padded ...
    QVERIFY(small_->document(9).size > size_t(T));  // ... and some are truncated
    for (PaddingSide side : {PaddingSide::Right, PaddingSide::Left}) {
      const ExampleSet set(*small_, allDocs(10), settings(BatchMode::Padded, T, 10, side));
      QCOMPARE(set.numExamples(), int64_t(10));
      const Batch batch = set.batch({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
      QCOMPARE(batch.input_ids.sizes().vec(), (std::vector<int64_t>{10, T}));
      QCOMPARE(batch.input_ids.scalar_type(), at::kLong);
      int64_t targets = 0;
      for (int64_t b = 0; b < 10; ++b) {
        std::vector<int64_t> tokens = tokensOf(*small_, static_cast<size_t>(b));
        if (static_cast<int64_t>(tokens.size()) > T) tokens.resize(T);  // the beginning is kept
        const std::vector<int64_t> pads(static_cast<size_t>(T) - tokens.size(), tokenizer_->padId());
        std::vector<int64_t> expected = side == PaddingSide::Right ? tokens : pads;
        const auto& tail = side == PaddingSide::Right ? pads : tokens;
        expected.insert(expected.end(), tail.begin(), tail.end());
        QCOMPARE(row(batch.input_ids, b), expected);
        std::vector<int64_t> labels = expected;
        const size_t first_token = side == PaddingSide::Right ? 0 : pads.size();
        for (size_t t = 0; t < labels.size(); ++t) {
          if (t < first_token || t >= first_token + tokens.size()) labels[t] = -100;  // exactly the pads
        }
        QCOMPARE(row(batch.labels, b), labels);
        targets += static_cast<int64_t>(tokens.size());
      }
      QCOMPARE(batch.num_tokens, 10 * T);
      QCOMPARE(batch.num_target_tokens, targets);
    }
  }

  void packedRowsHaveEosAndNoIgnoredLabels() {
    const int64_t T = 7;
    const std::vector<size_t> docs{1, 3, 4, 8};
    std::vector<int64_t> stream;
    for (size_t d : docs) {
      const auto tokens = tokensOf(*small_, d);
      stream.insert(stream.end(), tokens.begin(), tokens.end());
      stream.push_back(tokenizer_->eosId());
    }
    const ExampleSet set(*small_, docs, settings(BatchMode::Packed, T, 2, PaddingSide::Right, PackSeparator::Eos));
    QCOMPARE(set.numExamples(), static_cast<int64_t>(stream.size()) / T);
    QVERIFY(set.numExamples() >= 3);
    std::vector<int64_t> ids(T), labels(T);
    int64_t eos_seen = 0;
    for (int64_t e = 0; e < set.numExamples(); ++e) {
      set.fill(e, ids.data(), labels.data());
      QCOMPARE(ids, std::vector<int64_t>(stream.begin() + e * T, stream.begin() + (e + 1) * T));
      QCOMPARE(labels, ids);
      for (int64_t id : ids) {
        QVERIFY(id != tokenizer_->padId());
        eos_seen += id == tokenizer_->eosId() ? 1 : 0;
      }
    }
    QVERIFY(eos_seen >= 3);
    const Batch batch = set.batch({0, 1});
    QCOMPARE(batch.num_target_tokens, 2 * T);
    QCOMPARE(batch.labels.eq(-100).sum().item<int64_t>(), int64_t(0));
  }

  void splitIsDeterministicAndDisjoint() {
    const auto [train, eval] = splitDocuments(10000, 0.1, 42);
    QVERIFY(splitDocuments(10000, 0.1, 42) == std::make_pair(train, eval));
    QCOMPARE(train.size() + eval.size(), size_t(10000));
    QVERIFY2(eval.size() > 900 && eval.size() < 1100, std::to_string(eval.size()).c_str());
    QVERIFY(std::is_sorted(train.begin(), train.end()) && std::is_sorted(eval.begin(), eval.end()));
    std::vector<size_t> all;
    std::merge(train.begin(), train.end(), eval.begin(), eval.end(), std::back_inserter(all));
    QCOMPARE(all, allDocs(10000));  // disjoint and complete
    QVERIFY(splitDocuments(10000, 0.1, 43).second != eval);
    QCOMPARE(splitDocuments(50, 0.0, 1).first.size(), size_t(50));
    QCOMPARE(splitDocuments(50, 1.0, 1).second.size(), size_t(50));
  }

  void iteratorResumesExactly() {
    const ExampleSet set(*demo_, allDocs(demo_->numDocuments()), settings(BatchMode::Padded, 32, 8));
    BatchIterator straight(set, 1234, true, {});
    std::vector<Batch> expected;
    for (int i = 0; i < 7; ++i) expected.push_back(straight.next());
    BatchIterator first(set, 1234, true, {});
    for (int i = 0; i < 3; ++i) QVERIFY(sameBatch(first.next(), expected[static_cast<size_t>(i)]));
    const DataPosition saved = first.position();
    QCOMPARE(saved.epoch, int64_t(0));
    QCOMPARE(saved.index, int64_t(24));
    BatchIterator resumed(set, 1234, true, saved);
    for (int i = 3; i < 7; ++i) QVERIFY(sameBatch(resumed.next(), expected[static_cast<size_t>(i)]));
    QVERIFY(!sameBatch(expected[0], expected[1]));
    BatchIterator other_seed(set, 99, true, {});
    QVERIFY(!sameBatch(other_seed.next(), expected[0]));
  }

  void epochWrapsAndReshuffles() {
    // Long enough that no document is truncated, so every example is a different row.
    const ExampleSet set(*small_, allDocs(10), settings(BatchMode::Padded, 64, 4));
    QVERIFY(small_->document(9).size < size_t(64));
    BatchIterator ordered(set, 7, false, {});
    std::vector<int64_t> ids(64), labels(64);
    for (int64_t epoch = 0; epoch < 2; ++epoch) {
      for (int64_t first : {0, 4}) {
        QCOMPARE(ordered.position().epoch, epoch);
        QCOMPARE(ordered.position().index, first);
        const Batch batch = ordered.next();
        for (int64_t b = 0; b < 4; ++b) {
          set.fill(first + b, ids.data(), labels.data());
          QCOMPARE(row(batch.input_ids, b), ids);
        }
      }
    }
    QCOMPARE(ordered.position().epoch, int64_t(2));  // 2 examples left over each epoch: skipped
    // Shuffled: every batch holds distinct examples, and epochs use different orders.
    BatchIterator shuffled(set, 7, true, {});
    std::vector<Batch> epoch0{shuffled.next(), shuffled.next()};
    QCOMPARE(shuffled.position().epoch, int64_t(1));
    std::vector<Batch> epoch1{shuffled.next(), shuffled.next()};
    std::set<std::vector<int64_t>> rows;
    for (int64_t r = 0; r < 8; ++r) rows.insert(row(epoch0[static_cast<size_t>(r / 4)].input_ids, r % 4));
    QCOMPARE(rows.size(), size_t(8));
    QVERIFY(!sameBatch(epoch0[0], epoch1[0]) || !sameBatch(epoch0[1], epoch1[1]));
  }

  void prefetchingMatchesIterator() {
    const ExampleSet set(*demo_, allDocs(demo_->numDocuments()), settings(BatchMode::Packed, 64, 16));
    BatchIterator reference(set, 5, true, {2, 32});
    PrefetchingLoader loader(set, 5, true, {2, 32}, 3);
    for (int i = 0; i < 12; ++i) {
      const Batch expected = reference.next();
      auto [batch, position] = loader.next();
      QVERIFY(sameBatch(batch, expected));
      QCOMPARE(position.epoch, reference.position().epoch);
      QCOMPARE(position.index, reference.position().index);
    }
    // Destroying a loader whose thread is blocked on a full queue must not hang.
    auto blocked = std::make_unique<PrefetchingLoader>(set, 5, true, DataPosition{}, 1);
    blocked->next();
    QThread::msleep(50);
    blocked.reset();
  }

  void tooFewExamplesIsAnError() {
    const ExampleSet set(*small_, allDocs(10), settings(BatchMode::Padded, 16, 32));
    try {
      BatchIterator it(set, 1, true, {});
      it.next();
      QFAIL("10 examples with batch size 32 must throw");
    } catch (const MixerLabError& e) {
      const std::string message = e.what();
      QVERIFY2(message.find("10 examples") != std::string::npos, message.c_str());
      QVERIFY2(message.find("smaller batch") != std::string::npos, message.c_str());
    }
    QVERIFY_THROWS_EXCEPTION(MixerLabError, PrefetchingLoader(set, 1, true, {}));
  }

  // Every limit of the batching layer exactly at its boundary, from both sides: context length 2
  // and batch size 1 accepted (1 and 0 refused); the last document and example accepted, the next
  // refused; a document of exactly T tokens fills its row with no pad; a packed stream of exactly
  // k*T tokens gives k examples (one token less: k-1); exactly B examples make a batch (B-1 do
  // not); the last rank accepted, rank == world refused; a position with exactly B examples left
  // stays in its epoch, one more index moves to the next; eval fractions 0 and 1 accepted.
  void limitsAtTheirExactBoundaries() {
    const auto docs = allDocs(10);
    QCOMPARE(ExampleSet(*small_, docs, settings(BatchMode::Padded, 2, 1)).numExamples(), int64_t(10));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, ExampleSet(*small_, docs, settings(BatchMode::Padded, 1, 1)));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, ExampleSet(*small_, docs, settings(BatchMode::Padded, 8, 0)));
    QCOMPARE(ExampleSet(*small_, {9}, settings(BatchMode::Padded, 8, 1)).numExamples(), int64_t(1));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, ExampleSet(*small_, {10}, settings(BatchMode::Padded, 8, 1)));

    // A document of exactly T tokens, both padding sides: every position is a token and a target.
    const auto exact = static_cast<int64_t>(small_->document(3).size);
    for (const PaddingSide side : {PaddingSide::Left, PaddingSide::Right}) {
      const ExampleSet set(*small_, {3}, settings(BatchMode::Padded, exact, 1, side));
      std::vector<int64_t> ids(static_cast<size_t>(exact)), labels(static_cast<size_t>(exact));
      set.fill(0, ids.data(), labels.data());
      QCOMPARE(ids, tokensOf(*small_, 3));
      QCOMPARE(labels, tokensOf(*small_, 3));
      QVERIFY_THROWS_EXCEPTION(std::out_of_range, set.fill(1, ids.data(), labels.data()));
      QVERIFY_THROWS_EXCEPTION(std::out_of_range, set.fill(-1, ids.data(), labels.data()));
    }

    // Packed without separators: documents 0..2 hold `total` tokens.
    const auto total =
        static_cast<int64_t>(small_->document(0).size + small_->document(1).size + small_->document(2).size);
    QVERIFY(total >= 4);  // so total / (total / 2) is 2 whether total is even or odd
    QCOMPARE(ExampleSet(*small_, {0, 1, 2}, settings(BatchMode::Packed, total / 2, 1)).numExamples(), int64_t(2));
    QCOMPARE(ExampleSet(*small_, {0, 1, 2}, settings(BatchMode::Packed, total, 1)).numExamples(), int64_t(1));
    QCOMPARE(ExampleSet(*small_, {0, 1, 2}, settings(BatchMode::Packed, total + 1, 1)).numExamples(), int64_t(0));
    // With an eos after each document the stream is three tokens longer.
    QCOMPARE(ExampleSet(*small_, {0, 1, 2},
                        settings(BatchMode::Packed, total + 3, 1, PaddingSide::Right, PackSeparator::Eos))
                 .numExamples(),
             int64_t(1));
    QCOMPARE(ExampleSet(*small_, {0, 1, 2},
                        settings(BatchMode::Packed, total + 4, 1, PaddingSide::Right, PackSeparator::Eos))
                 .numExamples(),
             int64_t(0));

    // Batches: exactly B examples, ranks, positions.
    const ExampleSet ten(*small_, docs, settings(BatchMode::Padded, 8, 10));
    QCOMPARE(BatchIterator(ten, 1, false, {}).next().input_ids.size(0), int64_t(10));
    QVERIFY_THROWS_EXCEPTION(
        MixerLabError,
        BatchIterator(ExampleSet(*small_, allDocs(9), settings(BatchMode::Padded, 8, 10)), 1, false, {}));
    const ExampleSet fours(*small_, docs, settings(BatchMode::Padded, 8, 4));
    QCOMPARE(BatchIterator(fours, 1, false, {}, {1, 2}).next().input_ids.size(0), int64_t(2));  // rank 1 of 2
    QVERIFY_THROWS_EXCEPTION(MixerLabError, BatchIterator(fours, 1, false, {}, {2, 2}));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, BatchIterator(fours, 1, false, {}, {-1, 2}));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, BatchIterator(fours, 1, false, {}, {0, 0}));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, BatchIterator(fours, 1, false, {}, {0, 3}));  // 4 rows over 3 ranks
    // 10 examples, B = 4: index 6 leaves exactly 4, index 7 leaves 3 (the next epoch starts).
    BatchIterator at_six(fours, 1, false, {0, 6});
    QCOMPARE(at_six.position().epoch, int64_t(0));
    QCOMPARE(at_six.position().index, int64_t(6));
    std::vector<int64_t> ids(8), labels(8);
    fours.fill(9, ids.data(), labels.data());
    QCOMPARE(row(at_six.next().input_ids, 3), ids);  // an unshuffled epoch: examples 6..9
    QCOMPARE(at_six.position().epoch, int64_t(1));
    QCOMPARE(at_six.position().index, int64_t(0));
    const BatchIterator at_seven(fours, 1, false, {0, 7});
    QCOMPARE(at_seven.position().epoch, int64_t(1));
    QCOMPARE(at_seven.position().index, int64_t(0));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, BatchIterator(fours, 1, false, {-1, 0}));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, BatchIterator(fours, 1, false, {0, -1}));

    // The split's fraction: both ends accepted, a hair outside refused.
    QCOMPARE(splitDocuments(10, 0.0, 1).first.size(), size_t(10));
    QCOMPARE(splitDocuments(10, 1.0, 1).second.size(), size_t(10));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, splitDocuments(10, std::nextafter(1.0, 2.0), 1));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, splitDocuments(10, -std::numeric_limits<double>::denorm_min(), 1));
  }

  void evalBatchesCoverAllExamples() {
    const ExampleSet set(*small_, allDocs(10), settings(BatchMode::Padded, 16, 4));
    const auto batches = makeEvalBatches(set, 4, 0);
    QCOMPARE(batches.size(), size_t(3));
    QCOMPARE(batches[2].input_ids.size(0), int64_t(2));
    QCOMPARE(batches[2].num_tokens, int64_t(32));
    std::vector<int64_t> ids(16), labels(16);
    set.fill(9, ids.data(), labels.data());
    QCOMPARE(row(batches[2].input_ids, 1), ids);
    QCOMPARE(makeEvalBatches(set, 4, 2).size(), size_t(2));
  }

  void namesParse() {
    QVERIFY(parseBatchMode("packed") == BatchMode::Packed && batchModeName(BatchMode::Padded) == "padded");
    QVERIFY(parsePaddingSide("left") == PaddingSide::Left && paddingSideName(PaddingSide::Right) == "right");
    QVERIFY_THROWS_EXCEPTION(MixerLabError, parseBatchMode("ragged"));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, parsePaddingSide("middle"));
  }

  void cleanupTestCase() {
    demo_.reset();  // unmap before deleting the files
    small_.reset();
    fs::remove_all(scratch_);
  }
};

QTEST_APPLESS_MAIN(TestDataPipeline)
#include "test_data_pipeline.moc"
