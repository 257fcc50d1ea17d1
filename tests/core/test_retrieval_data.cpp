// Retrieval data (docs/retrieval.md): the synthetic (summary, story) generator is deterministic by
// seed, gives distinct stories whose summaries state their facts, and JSON Lines round-trip with
// errors naming file and line; the Algorithm-1 sampler places exactly one positive per sample and
// never uses the query's own story as a negative, with and without replacement.
#include <QtTest/QtTest>

#include <set>

#include "core/analysis/retrieval/candidate_sampler.h"
#include "core/data/story_pairs.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestRetrievalData : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void syntheticPairsAreDeterministicAndDistinct() {
    const auto a = syntheticStoryPairs(500, 7);
    QCOMPARE(a.size(), size_t{500});
    const auto b = syntheticStoryPairs(500, 7);
    const auto c = syntheticStoryPairs(500, 8);
    std::set<std::string> summaries, stories;
    for (size_t i = 0; i < a.size(); ++i) {
      QCOMPARE(a[i].summary, b[i].summary);
      QCOMPARE(a[i].story, b[i].story);
      summaries.insert(a[i].summary);
      stories.insert(a[i].story);
      // The summary's hero (its first word) is the story's hero.
      const std::string hero = a[i].summary.substr(0, a[i].summary.find(' '));
      QVERIFY2(a[i].story.find(hero) != std::string::npos, a[i].story.c_str());
      const auto sentences = std::count(a[i].story.begin(), a[i].story.end(), '.');
      QVERIFY2(sentences >= 5 && sentences <= 9, a[i].story.c_str());
    }
    QCOMPARE(summaries.size(), size_t{500});
    QCOMPARE(stories.size(), size_t{500});
    QVERIFY(a[0].summary != c[0].summary);
  }

  void jsonLinesRoundTripAndNameTheBadLine() {
    const fs::path dir = testing::makeScratchDir("retrieval-data");
    const auto pairs = syntheticStoryPairs(20, 1);
    writeStoryPairs(dir / "pairs.jsonl", pairs);
    const auto back = readStoryPairs(dir / "pairs.jsonl");
    QCOMPARE(back.size(), pairs.size());
    QCOMPARE(back[19].story, pairs[19].story);
    testing::writeText(dir / "bad.jsonl", "{\"summary\": \"a\", \"story\": \"b\"}\n\n{\"summary\": 3}\n");
    try {
      readStoryPairs(dir / "bad.jsonl");
      QFAIL("a line without a story was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(std::string(e.what()).find("bad.jsonl:3") != std::string::npos, e.what());
    }
  }

  void samplerPlacesOnePositiveAndNeverTheQueryAsNegative_data() {
    QTest::addColumn<bool>("with_replacement");
    QTest::newRow("without replacement") << false;
    QTest::newRow("with replacement") << true;
  }
  void samplerPlacesOnePositiveAndNeverTheQueryAsNegative() {
    QFETCH(bool, with_replacement);
    std::mt19937_64 rng(5);
    const size_t targets = 12;
    const int64_t context = 8;
    std::vector<int> label_hits(context - 1, 0);
    std::vector<int> negative_hits(targets, 0);
    for (int round = 0; round < 3000; ++round) {
      const size_t query = static_cast<size_t>(round) % targets;
      const auto s = sampleCandidates(query, targets, context, rng, with_replacement);
      QCOMPARE(s.candidates.size(), size_t(context - 1));
      QCOMPARE(std::count(s.candidates.begin(), s.candidates.end(), query), std::ptrdiff_t{1});
      QCOMPARE(s.candidates[static_cast<size_t>(s.label)], query);
      for (size_t k = 0; k < s.candidates.size(); ++k) {
        QVERIFY(s.candidates[k] < targets);
        if (static_cast<int64_t>(k) != s.label) ++negative_hits[s.candidates[k]];
      }
      if (!with_replacement) {
        QCOMPARE(std::set<size_t>(s.candidates.begin(), s.candidates.end()).size(), s.candidates.size());
      }
      ++label_hits[static_cast<size_t>(s.label)];
    }
    // Every slot holds the positive sometimes, every target is drawn as a negative sometimes.
    for (int hits : label_hits) QVERIFY2(hits > 300, qPrintable(QString::number(hits)));
    for (int hits : negative_hits) QVERIFY(hits > 0);
  }

  void samplerNeedsEnoughStories() {
    std::mt19937_64 rng(1);
    try {
      sampleCandidates(0, 5, 8, rng);
      QFAIL("8 candidates were drawn from 5 stories");
    } catch (const MixerLabError& e) {
      QVERIFY2(std::string(e.what()).find("smaller context") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestRetrievalData)
#include "test_retrieval_data.moc"
