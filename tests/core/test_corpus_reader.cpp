// Tests for core/data/corpus_reader: document splitting rules of every format, newline normalisation,
// Unicode pass-through, error messages that name file and line, and the real demo corpus.
#include <QtTest/QtTest>

#include <string>
#include <vector>

#include "core/data/corpus_reader.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace mixerlab;
using Docs = std::vector<std::string>;

namespace {

// The message of the MixerLabError thrown by fn, or "" if none was thrown.
template <typename Fn>
std::string errorOf(Fn fn) {
  try {
    fn();
  } catch (const MixerLabError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestCorpusReader : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void formatNames() {
    QCOMPARE(parseCorpusFormat("auto"), CorpusFormat::Auto);
    QCOMPARE(parseCorpusFormat("endoftext"), CorpusFormat::EndOfText);
    QCOMPARE(parseCorpusFormat("blank_line"), CorpusFormat::BlankLine);
    QCOMPARE(parseCorpusFormat("jsonl"), CorpusFormat::JsonLines);
    QCOMPARE(corpusFormatName(CorpusFormat::JsonLines), std::string("jsonl"));
    const std::string message = errorOf([] { parseCorpusFormat("csv"); });
    QVERIFY2(message.find("csv") != std::string::npos, message.c_str());
    QVERIFY2(message.find("blank_line") != std::string::npos, message.c_str());
  }

  // Issue 15: a binary file used to reach the tokenizer trainer, which blamed the vocabulary size.
  void binaryFileIsRefusedAsNotText() {
    const auto dir = testing::makeScratchDir("corpus-binary");
    std::string with_nul = "Once upon a time";
    with_nul += '\0';
    with_nul += "there was";
    testing::writeText(dir / "nul.bin", with_nul);
    std::string latin1;
    for (int i = 0; i < 400; ++i) latin1 += i % 3 == 0 ? "\xe9t\xe9 " : "word ";
    testing::writeText(dir / "latin1.txt", latin1);
    for (const char* name : {"nul.bin", "latin1.txt"}) {
      const std::string message = errorOf([&] { loadCorpusFile(dir / name, CorpusFormat::Auto); });
      QVERIFY2(message.find("is not UTF-8 text") != std::string::npos, message.c_str());
      QVERIFY2(message.find(name) != std::string::npos, message.c_str());
    }
    std::string mostly_text(5000, 'a');
    mostly_text[100] = '\xff';  // one stray byte in a large text file is tolerated
    testing::writeText(dir / "stray.txt", mostly_text);
    QCOMPARE(loadCorpusFile(dir / "stray.txt", CorpusFormat::Auto).contents.size(), size_t(5000));
  }

  void emptyFileHasNoDocuments() {
    const auto dir = testing::makeScratchDir("corpus-empty");
    testing::writeText(dir / "empty.txt", "");
    testing::writeText(dir / "blank.txt", "\n  \n\t\n");
    QCOMPARE(readCorpus(dir / "empty.txt").size(), size_t(0));
    QCOMPARE(readCorpus(dir / "blank.txt").size(), size_t(0));
    QCOMPARE(readCorpus(dir / "empty.txt", CorpusFormat::EndOfText).size(), size_t(0));
    QCOMPARE(readCorpus(dir / "empty.txt", CorpusFormat::JsonLines).size(), size_t(0));
  }

  void endOfTextWithAndWithoutTrailingSeparator() {
    const Docs expected{"First story.\nLine two.", "Second story."};
    QCOMPARE(splitCorpusText("First story.\nLine two.\n<|endoftext|>\nSecond story.\n<|endoftext|>\n",
                             CorpusFormat::EndOfText, "a.txt"),
             expected);
    QCOMPARE(splitCorpusText("First story.\nLine two.<|endoftext|>Second story.", CorpusFormat::EndOfText, "a.txt"),
             expected);
    // Blank lines inside a document stay inside it; empty pieces between separators are dropped.
    QCOMPARE(splitCorpusText("A\n\nB<|endoftext|><|endoftext|>  \n<|endoftext|>C", CorpusFormat::EndOfText, "a"),
             (Docs{"A\n\nB", "C"}));
  }

  void blankLineWithAndWithoutTrailingSeparator() {
    const Docs expected{"One a.\nOne b.", "Two."};
    QCOMPARE(splitCorpusText("One a.\nOne b.\n\nTwo.\n\n", CorpusFormat::BlankLine, "b.txt"), expected);
    QCOMPARE(splitCorpusText("One a.\nOne b.\n\n\n\nTwo.", CorpusFormat::BlankLine, "b.txt"), expected);
    QCOMPARE(splitCorpusText("\n\n  One a.\nOne b.  \n\nTwo.", CorpusFormat::BlankLine, "b.txt"), expected);
  }

  void whitespaceOnlyLinesAreBlank() {
    QCOMPARE(splitCorpusText("One.\n   \nTwo.\n\t \t\nThree.\n \n", CorpusFormat::BlankLine, "c.txt"),
             (Docs{"One.", "Two.", "Three."}));
    // Indentation inside a document is kept.
    QCOMPARE(splitCorpusText("Poem:\n  indented\nend", CorpusFormat::BlankLine, "c.txt"),
             (Docs{"Poem:\n  indented\nend"}));
  }

  void unicodeIsPreservedByteExact() {
    const std::string text = "Zoë 猫 🙂\nnaïve café";
    const Docs docs = splitCorpusText(text + "\n\nsecond ✓", CorpusFormat::BlankLine, "u.txt");
    QCOMPARE(docs, (Docs{text, "second ✓"}));
    const auto dir = testing::makeScratchDir("corpus-unicode");
    testing::writeText(dir / "u.jsonl", "{\"text\": \"Zoë 猫 🙂\"}\n{\"text\": \"\\u00e9t\\u00e9\"}\n");
    QCOMPARE(readCorpus(dir / "u.jsonl"), (Docs{"Zoë 猫 🙂", "été"}));
  }

  void crlfGivesSameDocumentsAsLf() {
    const std::string lf = "Line 1.\nLine 2.\n\nDoc 2 line 1.\nDoc 2 line 2.\n\n\nDoc 3.\n";
    std::string crlf;
    std::string cr;
    for (char c : lf) {
      crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
      cr += c == '\n' ? '\r' : c;
    }
    const Docs expected = splitCorpusText(lf, CorpusFormat::BlankLine, "lf");
    QCOMPARE(expected.size(), size_t(3));
    QCOMPARE(expected[1], std::string("Doc 2 line 1.\nDoc 2 line 2."));
    QCOMPARE(splitCorpusText(crlf, CorpusFormat::BlankLine, "crlf"), expected);
    QCOMPARE(splitCorpusText(cr, CorpusFormat::BlankLine, "cr"), expected);
    QCOMPARE(splitCorpusText("A\r\nB\r\n<|endoftext|>\r\nC\r\n", CorpusFormat::EndOfText, "e"), (Docs{"A\nB", "C"}));
    // A UTF-8 byte-order mark is not part of the first document.
    QCOMPARE(splitCorpusText("\xEF\xBB\xBF"
                             "A\n\nB",
                             CorpusFormat::BlankLine, "bom"),
             (Docs{"A", "B"}));
  }

  void jsonLinesValid() {
    const auto dir = testing::makeScratchDir("corpus-jsonl");
    testing::writeText(dir / "data.jsonl",
                       "{\"text\": \"first\\nsecond line\", \"id\": 1}\n\n{\"text\": \"  padded  \"}\r\n"
                       "{\"text\": \"   \"}\n{\"id\": 3, \"text\": \"last\"}");
    QCOMPARE(readCorpus(dir / "data.jsonl"), (Docs{"first\nsecond line", "padded", "last"}));
  }

  void jsonLinesErrorsNameFileAndLine() {
    const auto dir = testing::makeScratchDir("corpus-jsonl-bad");
    const auto file = dir / "file.jsonl";
    testing::writeText(file, "{\"text\": \"ok\"}\n{\"text\": \"broken\"\n");
    std::string message = errorOf([&] { readCorpus(file); });
    QVERIFY2(message.find(file.string() + ":2") != std::string::npos, message.c_str());
    QVERIFY2(message.find("malformed") != std::string::npos, message.c_str());

    message =
        errorOf([] { splitCorpusText("{\"text\": \"a\"}\n\n{\"body\": \"b\"}\n", CorpusFormat::JsonLines, "x"); });
    QVERIFY2(message.find("x:3") != std::string::npos, message.c_str());
    QVERIFY2(message.find("\"text\"") != std::string::npos, message.c_str());

    message = errorOf([] { splitCorpusText("{\"text\": 5}", CorpusFormat::JsonLines, "y"); });
    QVERIFY2(message.find("y:1") != std::string::npos, message.c_str());
    QVERIFY2(message.find("not a string") != std::string::npos, message.c_str());
  }

  void missingFileErrorNamesPath() {
    const auto missing = testing::makeScratchDir("corpus-missing") / "nope" / "stories.txt";
    const std::string message = errorOf([&] { readCorpus(missing); });
    QVERIFY2(!message.empty(), "reading a missing corpus must throw MixerLabError");
    QVERIFY2(message.find(missing.string()) != std::string::npos, message.c_str());
  }

  void autoDetection() {
    QCOMPARE(detectCorpusFormat("data/x.jsonl", "anything"), CorpusFormat::JsonLines);
    QCOMPARE(detectCorpusFormat("data/x.JSON", "anything"), CorpusFormat::JsonLines);
    QCOMPARE(detectCorpusFormat("x.txt", "a<|endoftext|>b"), CorpusFormat::EndOfText);
    QCOMPARE(detectCorpusFormat("x.txt", "a\n\nb"), CorpusFormat::BlankLine);
    const auto dir = testing::makeScratchDir("corpus-auto");
    testing::writeText(dir / "v2.txt", "Story one.\n\nStill one.<|endoftext|>Story two.");
    QCOMPARE(readCorpus(dir / "v2.txt"), (Docs{"Story one.\n\nStill one.", "Story two."}));
    QCOMPARE(readCorpus(dir / "v2.txt", CorpusFormat::BlankLine).size(), size_t(2));
    QCOMPARE(readCorpus(dir / "v2.txt", CorpusFormat::BlankLine)[1], std::string("Still one.<|endoftext|>Story two."));
  }

  void corpusFileKeyDependsOnFormat() {
    const auto dir = testing::makeScratchDir("corpus-key");
    testing::writeText(dir / "c.txt", "a<|endoftext|>b\n\nc");
    const CorpusFile auto_file = loadCorpusFile(dir / "c.txt", CorpusFormat::Auto);
    QCOMPARE(auto_file.format, CorpusFormat::EndOfText);
    QCOMPARE(auto_file.cacheKey(), loadCorpusFile(dir / "c.txt", CorpusFormat::EndOfText).cacheKey());
    QVERIFY(auto_file.cacheKey() != loadCorpusFile(dir / "c.txt", CorpusFormat::BlankLine).cacheKey());
  }

  void demoCorpusHasManyDocuments() {
    const Docs docs = readCorpus(testing::demoTrainCorpus());
    QVERIFY2(docs.size() > 100, std::to_string(docs.size()).c_str());
    for (const auto& doc : docs) {
      QVERIFY(!doc.empty());
      QVERIFY(doc.find("\n\n") == std::string::npos);
      QVERIFY(doc.front() != ' ' && doc.back() != '\n');
    }
  }
};

QTEST_APPLESS_MAIN(TestCorpusReader)
#include "test_corpus_reader.moc"
