// Retrieval data (docs/retrieval.md): the synthetic (summary, story) generator is deterministic by
// seed, gives distinct stories whose summaries state their facts, and JSON Lines round-trip with
// errors naming file and line; the Algorithm-1 sampler places exactly one positive per sample and
// never uses the query's own story as a negative, with and without replacement. A plain story corpus
// pairs each story with its opening sentence, streamed up to a limit of stories.
#include <QtTest/QtTest>

#include <set>

#include "core/analysis/retrieval/candidate_sampler.h"
#include "core/analysis/retrieval/retrieval_corpus.h"
#include "core/data/story_pairs.h"
#include "core/data/text_story_pairs.h"
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

  // A story's opening sentence ends at . ! or ? followed by a space (closing quotes and brackets stay
  // with it), or at a line break; "3.5" and "e.g." inside a word do not end it. A story of one
  // sentence gives no pair. An opening past the limit is cut at a space.
  void openingSentenceIsTheQueryOfItsStory_data() {
    QTest::addColumn<QString>("story");
    QTest::addColumn<QString>("opening");  // empty: no pair
    QTest::newRow("full stop") << "  Tom had a red ball. He threw it far.\n"
                               << "Tom had a red ball.";
    QTest::newRow("question") << "Where was the cat? It hid under the bed."
                              << "Where was the cat?";
    QTest::newRow("exclaim, quote") << "\"Look out!\" Mia said. The dog jumped."
                                    << "\"Look out!\"";
    QTest::newRow("bracket") << "(It was late.) Sam slept."
                             << "(It was late.)";
    QTest::newRow("ellipsis") << "Wait... Then it rained."
                              << "Wait...";
    QTest::newRow("decimal") << "It cost 3.5 coins. Ann paid."
                             << "It cost 3.5 coins.";
    QTest::newRow("line break") << "The Lost Kite\nA girl found a kite."
                                << "The Lost Kite";
    QTest::newRow("crlf") << "Title here\r\nThe rest."
                          << "Title here";
    QTest::newRow("one sentence") << "Only this sentence."
                                  << "";
    QTest::newRow("trailing space only") << "Only this. \n\t "
                                         << "";
    QTest::newRow("no end at all") << "no punctuation anywhere"
                                   << "";
    QTest::newRow("empty") << "   "
                           << "";
  }
  void openingSentenceIsTheQueryOfItsStory() {
    QFETCH(QString, story);
    QFETCH(QString, opening);
    const auto pair = openingSentencePair(story.toStdString());
    QCOMPARE(pair.has_value(), !opening.isEmpty());
    if (!pair) return;
    QCOMPARE(QString::fromStdString(pair->summary), opening);
    QCOMPARE(QString::fromStdString(pair->story), story.trimmed());
  }

  void longOpeningIsCutAtASpace() {
    std::string words;
    for (int i = 0; i < 60; ++i) words += "word ";  // 300 bytes, the last a space
    const std::string story = words + "overlong. Next one.";
    const auto pair = openingSentencePair(story);
    QVERIFY(pair.has_value());
    std::string kept = "word";
    for (int i = 1; i < 60; ++i) kept += " word";  // cut at the space at byte 299
    QCOMPARE(pair->summary, kept);
    QCOMPARE(pair->story, story);
    // Exactly at the limit: kept whole.
    const std::string exact = std::string(kMaxOpeningBytes - 1, 'a') + ". B.";
    QCOMPARE(openingSentencePair(exact)->summary, exact.substr(0, kMaxOpeningBytes));
    // Over it with no space to cut at: cut at the limit, but never inside a UTF-8 character. After
    // "x", each e-acute (2 bytes) starts at an odd byte, so byte 300 is the second byte of one.
    std::string accents = "x";
    for (int i = 0; i < 151; ++i) accents += "\xc3\xa9";
    const auto cut = openingSentencePair(accents + ". B.");
    QVERIFY(cut.has_value());
    QCOMPARE(cut->summary, accents.substr(0, 299));  // "x" and 149 whole characters
  }

  // The corpus streams: only the first max_stories usable stories are read (single-sentence ones are
  // skipped and not counted), across files in order; JSON Lines read the chosen field. The corpus's
  // id changes with the limit, the format and the field, so each gets its own dataset folders.
  void storyCorpusReadsTheFirstUsableStories() {
    const fs::path dir = testing::makeScratchDir("retrieval-story-corpus");
    fs::create_directories(dir / "corpus");
    testing::writeText(dir / "corpus/a.txt", "One. Two.\n\nAlone.\n\nThree! Four.\n");
    testing::writeText(dir / "corpus/b.txt", "Five? Six.\n\nSeven. Eight.\n");
    const std::string folder = (dir / "corpus").string();
    auto read = [&](int64_t limit) {
      return RetrievalCorpus::stories(folder, CorpusFormat::BlankLine, "text", limit).pairs();
    };
    const auto three = read(3);
    QCOMPARE(three.size(), size_t{3});
    QCOMPARE(three[0].summary, std::string("One."));
    QCOMPARE(three[1].summary, std::string("Three!"));
    QCOMPARE(three[1].story, std::string("Three! Four."));
    QCOMPARE(three[2].summary, std::string("Five?"));  // from the second file
    QCOMPARE(read(100).size(), size_t{4});
    const auto two = read(2);  // the skipped single sentence does not use up the limit
    QCOMPARE(two.size(), size_t{2});
    QCOMPARE(two[1].summary, std::string("Three!"));
    QVERIFY_EXCEPTION_THROWN(read(1), MixerLabError);  // retrieval needs two stories

    testing::writeText(dir / "stories.jsonl",
                       "{\"text\": \"Ann ran. She won.\", \"story\": \"Bob sat. He ate.\"}\n"
                       "{\"text\": \"Cat slept. It purred.\", \"story\": \"Dan hid. He laughed.\"}\n");
    const auto by_text = RetrievalCorpus::stories((dir / "stories.jsonl").string(), CorpusFormat::Auto, "text", 10);
    const auto by_story = RetrievalCorpus::stories((dir / "stories.jsonl").string(), CorpusFormat::Auto, "story", 10);
    QCOMPARE(by_text.pairs()[1].summary, std::string("Cat slept."));
    QCOMPARE(by_story.pairs()[1].summary, std::string("Dan hid."));
    QVERIFY(by_text.id() != by_story.id());
    QVERIFY(by_text.id() !=
            RetrievalCorpus::stories((dir / "stories.jsonl").string(), CorpusFormat::Auto, "text", 9).id());
    QVERIFY(by_text.id() !=
            RetrievalCorpus::stories((dir / "stories.jsonl").string(), CorpusFormat::BlankLine, "text", 10).id());
    QVERIFY2(QString::fromStdString(by_text.id()).startsWith("stories-stories-10-"), by_text.id().c_str());
    QCOMPARE(by_text.label(), std::string("first 10 stories of stories.jsonl"));

    // Too few usable stories, or a missing corpus: the error names it.
    testing::writeText(dir / "short.txt", "Alone.\n\nAlso alone.\n\nTwo here. Yes.\n");
    try {
      RetrievalCorpus::stories((dir / "short.txt").string(), CorpusFormat::BlankLine, "text", 10).pairs();
      QFAIL("one usable story was accepted");
    } catch (const MixerLabError& e) {
      const QString what = e.what();
      QVERIFY2(what.contains("short.txt") && what.contains("1 usable stories") && what.contains("2 had a single"),
               qPrintable(what));
    }
    try {
      RetrievalCorpus::stories((dir / "missing.txt").string(), CorpusFormat::Auto, "text", 10).pairs();
      QFAIL("a missing corpus was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("missing.txt"), e.what());
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
