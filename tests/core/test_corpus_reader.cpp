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

class TestCorpusReader : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void formatNames() {
    QCOMPARE(parseCorpusFormat("auto"), CorpusFormat::Auto);
    QCOMPARE(parseCorpusFormat("endoftext"), CorpusFormat::EndOfText);
    QCOMPARE(parseCorpusFormat("blank_line"), CorpusFormat::BlankLine);
    QCOMPARE(parseCorpusFormat("jsonl"), CorpusFormat::JsonLines);
    QCOMPARE(corpusFormatName(CorpusFormat::JsonLines), std::string("jsonl"));
    const std::string message = testing::errorOf<MixerLabError>([] { parseCorpusFormat("csv"); });
    QVERIFY2(message.find("csv") != std::string::npos, message.c_str());
    QVERIFY2(message.find("blank_line") != std::string::npos, message.c_str());
  }

  // A binary file used to reach the tokenizer trainer, which blamed the vocabulary size.
  void binaryFileIsRefusedAsNotText() {
    const auto dir = testing::makeScratchDir("corpus-binary");
    std::string with_nul = "Once upon a time";
    with_nul += '\0';
    with_nul += "there was";
    testing::writeText(dir / "nul.bin", with_nul);
    const std::string message =
        testing::errorOf<MixerLabError>([&] { loadCorpusFile(dir / "nul.bin", CorpusFormat::Auto); });
    QVERIFY2(message.find("is not UTF-8 text (binary data: a NUL byte at byte offset 16)") != std::string::npos,
             message.c_str());
    QVERIFY2(message.find("nul.bin") != std::string::npos, message.c_str());
  }

  // A Latin-1 file was refused as "binary data", and one stray byte was accepted silently.
  void nonUtf8TextNamesLineOffsetAndConversion() {
    const auto dir = testing::makeScratchDir("corpus-encoding");
    std::string latin1 = "Once upon a time.\nThe end.\n";  // 27 bytes: the first bad byte is on line 3
    for (int i = 0; i < 400; ++i) latin1 += i % 3 == 0 ? "\xe9t\xe9 " : "word ";
    testing::writeText(dir / "latin1.txt", latin1);
    std::string message =
        testing::errorOf<MixerLabError>([&] { loadCorpusFile(dir / "latin1.txt", CorpusFormat::Auto); });
    for (const char* part :
         {"latin1.txt", "Latin-1", "byte 0xE9 at line 3 (byte offset 27)", "iconv -f LATIN1 -t UTF-8"}) {
      QVERIFY2(message.find(part) != std::string::npos, (std::string(part) + " not in: " + message).c_str());
    }
    QVERIFY2(message.find("binary") == std::string::npos, message.c_str());

    std::string stray(5000, 'a');
    stray[3000] = '\n';
    stray[3100] = '\xff';
    testing::writeText(dir / "stray.txt", stray);
    message = testing::errorOf<MixerLabError>([&] { loadCorpusFile(dir / "stray.txt", CorpusFormat::Auto); });
    QVERIFY2(message.find("stray.txt") != std::string::npos, message.c_str());
    QVERIFY2(message.find("byte 0xFF at line 2 (byte offset 3100)") != std::string::npos, message.c_str());
    QVERIFY(!testing::errorOf<MixerLabError>([&] {
               readCorpus(dir / "stray.txt");
             }).empty());  // what `tokenizer train` reads through

    // Bytes no single-byte text encoding explains (a control byte beside them): not called Latin-1.
    testing::writeText(dir / "mixed.txt", std::string("text \x01\x02 then \xc3\x28 here"));
    message = testing::errorOf<MixerLabError>([&] { loadCorpusFile(dir / "mixed.txt", CorpusFormat::Auto); });
    QVERIFY2(message.find("is not valid UTF-8: byte 0xC3 at line 1 (byte offset 13) does not start a UTF-8 "
                          "character") != std::string::npos,
             message.c_str());
    QVERIFY2(message.find("Latin-1") == std::string::npos, message.c_str());

    testing::writeText(dir / "utf16.txt", std::string("\xff\xfeO\0n\0c\0e\0", 10));
    message = testing::errorOf<MixerLabError>([&] { loadCorpusFile(dir / "utf16.txt", CorpusFormat::Auto); });
    QVERIFY2(message.find("is UTF-16 text") != std::string::npos, message.c_str());
    QVERIFY2(message.find("iconv -f UTF-16 -t UTF-8") != std::string::npos, message.c_str());

    // Well-formed UTF-8 of every length, a byte-order mark included, still loads.
    testing::writeText(dir / "fine.txt", "\xef\xbb\xbfZo\xc3\xab \xe7\x8c\xab \xf0\x9f\x99\x82\n");
    QCOMPARE(readCorpus(dir / "fine.txt").size(), size_t(1));
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
    std::string message = testing::errorOf<MixerLabError>([&] { readCorpus(file); });
    QVERIFY2(message.find(file.string() + ":2") != std::string::npos, message.c_str());
    QVERIFY2(message.find("malformed") != std::string::npos, message.c_str());

    message = testing::errorOf<MixerLabError>(
        [] { splitCorpusText("{\"text\": \"a\"}\n\n{\"body\": \"b\"}\n", CorpusFormat::JsonLines, "x"); });
    QVERIFY2(message.find("x:3") != std::string::npos, message.c_str());
    QVERIFY2(message.find("\"text\"") != std::string::npos, message.c_str());

    message = testing::errorOf<MixerLabError>([] { splitCorpusText("{\"text\": 5}", CorpusFormat::JsonLines, "y"); });
    QVERIFY2(message.find("y:1") != std::string::npos, message.c_str());
    QVERIFY2(message.find("not a string") != std::string::npos, message.c_str());

    // JSON a user gives MixerLab nests at most 256 levels; a message quotes a few dozen characters.
    const std::string deep = "{\"text\": \"a\", \"meta\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    message = testing::errorOf<MixerLabError>(
        [&] { splitCorpusText("{\"text\": \"ok\"}\n" + deep, CorpusFormat::JsonLines, "z"); });
    QVERIFY2(message.find("z:2: ") != std::string::npos, message.c_str());
    QVERIFY2(message.find("nested deeper than 256 levels of arrays and objects (column 278)") != std::string::npos,
             message.c_str());
    message = testing::errorOf<MixerLabError>(
        [] { splitCorpusText("{\"text\": \"" + std::string(100000, 'x'), CorpusFormat::JsonLines, "w"); });
    QVERIFY2(message.find("malformed JSON line") != std::string::npos, message.c_str());
    QVERIFY2(message.size() < 600, message.c_str());
  }

  void missingFileErrorNamesPath() {
    const auto missing = testing::makeScratchDir("corpus-missing") / "nope" / "stories.txt";
    const std::string message = testing::errorOf<MixerLabError>([&] { readCorpus(missing); });
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

  // A 2,149-row CSV under "auto" was read as one blank-line document. A table is refused by name,
  // with the ways on; a format set by hand still reads the file as that format.
  void aTableIsNotGuessedToBeText() {
    for (const char* name : {"rows.csv", "rows.TSV", "rows.parquet", "rows.arrow"}) {
      const std::string message = testing::errorOf<MixerLabError>([&] { detectCorpusFormat(name, "a,b\n1,2\n"); });
      QVERIFY2(message.find(name) != std::string::npos && message.find("JSON Lines") != std::string::npos &&
                   message.find("corpus.format") != std::string::npos,
               message.c_str());
    }
    const auto dir = testing::makeScratchDir("corpus-table");
    testing::writeText(dir / "rows.csv", "id,text\n1,One day a cat sat.\n2,A dog ran.\n");
    QVERIFY(!testing::errorOf<MixerLabError>([&] { readCorpus(dir / "rows.csv"); }).empty());
    QCOMPARE(readCorpus(dir / "rows.csv", CorpusFormat::BlankLine).size(), size_t(1));
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
