// Tests for byte-level BPE tokenizer.json files, GPT-2 and Llama-3 style (core/data/hf_pre_tokenizer.h,
// hf_split_regex.h, hf_byte_level.h, the ByteLevel decoder): a small tokenizer built here must tokenize
// exactly as its merges say, with ids worked out by hand below, in both pre-tokenizer forms; decoding inverts
// encoding; ill-formed UTF-8 decodes as Hugging Face's does; unsupported components are refused by name.
//
// The tokenizer: byte b is id b, written as its GPT-2 byte character (gpt2ByteCharacter below, the rule
// written out independently of the code under test: space is Ġ, "\n" Ċ, "\r" č). Then the merges, rank:
// pair -> id of the merged piece
//   0: Ġ t -> Ġt 256     5: Ġ c -> Ġc 261        10: ' ll -> 'll 266    15: çĮ « -> çĮ« 271 (猫)
//   1: h e -> he 257     6: Ġc at -> Ġcat 262    11: 1 2 -> 12 267      16: Ġ Ġ -> ĠĠ 272
//   2: Ġt he -> Ġthe 258 7: Ġ at -> Ġat 263      12: 12 3 -> 123 268    17: Ċ Ċ -> ĊĊ 273
//   3: Ġ a -> Ġa 259     8: ' s -> 's 264        13: Ã © -> Ã© 269 (é)  18: ' S -> 'S 274
//   4: a t -> at 260     9: l l -> ll 265        14: ç Į -> çĮ 270      19: Ġ b -> Ġb 275
// and the added special token <|endoftext|> = 276. No normalizer; decoder ByteLevel. The two forms:
//   GPT-2    pre_tokenizer ByteLevel(add_prefix_space false, use_regex true): the GPT-2 pattern;
//   Llama-3  Sequence[Split(the Llama-3 pattern, Isolated), ByteLevel(use_regex false)].
// "Ġ at" (rank 7) never fires in " at", since "Ġ a" (3) is taken first: only ignore_merges gives Ġat.
#include <QtTest/QtTest>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/data/hf_bpe_tokenizer.h"
#include "core/data/hf_byte_level.h"
#include "core/data/hf_split_regex.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"
#include "tests/cli_process.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;
using Ids = std::vector<int>;
using nlohmann::json;

namespace {

const char* const kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// GPT-2's table: printable Latin-1 bytes stand for themselves, the other 68 (0..32, 127..160, 173) in order
// for U+0100 onwards.
char32_t gpt2ByteCharacter(int byte) {
  if ((byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174) return static_cast<char32_t>(byte);
  if (byte <= 32) return 0x100 + byte;              // 33 of them: U+0100..U+0120
  if (byte <= 160) return 0x100 + 33 + byte - 127;  // 34 of them: U+0121..U+0142
  return 0x143;                                     // 173, the soft hyphen
}

std::string utf8Of(char32_t code_point) { return QString::fromUcs4(&code_point, 1).toStdString(); }

std::string idsText(const Ids& ids) {
  std::string text;
  for (int id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
  return "[" + text + "]";
}

enum class Form { Gpt2, Llama3 };

json byteLevelTokenizerJson(Form form, bool ignore_merges = false, bool add_prefix_space = false) {
  json vocab = json::object();
  for (int byte = 0; byte < 256; ++byte) vocab[utf8Of(gpt2ByteCharacter(byte))] = byte;
  const std::vector<std::pair<std::string, std::string>> merges = {
      {"\u0120", "t"},      {"h", "e"},           {"\u0120t", "he"},    {"\u0120", "a"},
      {"a", "t"},           {"\u0120", "c"},      {"\u0120c", "at"},    {"\u0120", "at"},
      {"'", "s"},           {"l", "l"},           {"'", "ll"},          {"1", "2"},
      {"12", "3"},          {"\u00C3", "\u00A9"}, {"\u00E7", "\u012E"}, {"\u00E7\u012E", "\u00AB"},
      {"\u0120", "\u0120"}, {"\u010A", "\u010A"}, {"'", "S"},           {"\u0120", "b"}};
  json merge_list = json::array();
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    vocab[merges[rank].first + merges[rank].second] = 256 + static_cast<int>(rank);
    merge_list.push_back(merges[rank].first + " " + merges[rank].second);
  }
  json byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", add_prefix_space}, {"trim_offsets", true}};
  json pre_tokenizer;
  if (form == Form::Gpt2) {
    byte_level["use_regex"] = true;
    pre_tokenizer = byte_level;
  } else {
    byte_level["use_regex"] = false;
    const json split = {
        {"type", "Split"}, {"pattern", {{"Regex", kLlama3Pattern}}}, {"behavior", "Isolated"}, {"invert", false}};
    pre_tokenizer = {{"type", "Sequence"}, {"pretokenizers", json::array({split, byte_level})}};
  }
  return {{"version", "1.0"},
          {"added_tokens", {{{"id", 276}, {"content", "<|endoftext|>"}, {"special", true}, {"normalized", false}}}},
          {"normalizer", nullptr},
          {"pre_tokenizer", pre_tokenizer},
          {"post_processor", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", false}}},
          {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
          {"model",
           {{"type", "BPE"},
            {"dropout", nullptr},
            {"unk_token", nullptr},
            {"continuing_subword_prefix", nullptr},
            {"end_of_word_suffix", nullptr},
            {"fuse_unk", false},
            {"byte_fallback", false},
            {"ignore_merges", ignore_merges},
            {"vocab", vocab},
            {"merges", merge_list}}}};
}

HfBpeTokenizer byteLevelTokenizer(Form form, bool ignore_merges = false, bool add_prefix_space = false) {
  return HfBpeTokenizer::fromJson(byteLevelTokenizerJson(form, ignore_merges, add_prefix_space).dump(), "byte-level");
}

// A text and its ids in each form, worked out by hand from the merges above.
struct HandCase {
  const char* text;
  Ids gpt2;
  Ids llama3;
};

std::vector<HandCase> handCases() {
  return {
      // "the" | " cat": t h e -> "h e" (1) -> t he; Ġ c a t -> "a t" (4), "Ġ c" (5), "Ġc at" (6) -> Ġcat.
      {"the cat", {116, 257, 262}, {116, 257, 262}},
      // "café" -> c a f Ã ©, "Ã ©" (13); " 猫" -> Ġ ç Į «, "ç Į" (14), "çĮ «" (15);
      // " 🙂" (a symbol, not a letter) -> Ġ ð Ł Ļ Ĥ: bytes F0 9F 99 82 with no merges.
      {"caf\u00e9 \u732b \U0001F642",
       {99, 97, 102, 269, 32, 271, 32, 240, 159, 153, 130},
       {99, 97, 102, 269, 32, 271, 32, 240, 159, 153, 130}},
      // GPT-2 takes "4123" whole: "1 2" (11), "12 3" (12) -> 4 123. Llama-3 takes at most three digits:
      // "412" -> 4 12, then "3".
      {"4123", {52, 268}, {52, 267, 51}},
      // "12345 1234567": GPT-2 "12345" | " 1234567"; Llama-3 "123" | "45" | " " | "123" | "456" | "7".
      // The ids happen to agree.
      {"12345 1234567", {268, 52, 53, 32, 268, 52, 53, 54, 55}, {268, 52, 53, 32, 268, 52, 53, 54, 55}},
      // \s+(?!\S) leaves the last space for the word: "a" | "  " | " b" -> a, ĠĠ (16), Ġb (19).
      {"a   b", {97, 272, 275}, {97, 272, 275}},
      // Trailing spaces: the lookahead holds at the end, so "  " stays whole.
      {"a  ", {97, 272}, {97, 272}},
      // GPT-2 cuts "\n\n" before b into "\n" | "\n" (the lookahead again); Llama-3's \s*[\r\n]+ keeps "\n\n",
      // which merges "Ċ Ċ" (17).
      {"a\n\nb", {97, 10, 10, 98}, {97, 273, 98}},
      {"a\r\nb", {97, 13, 10, 98}, {97, 13, 10, 98}},
      // Contractions: "'s" (8); "'ll" via "l l" (9) then "' ll" (10). GPT-2's are lower case only, so "'S"
      // is "'" | "S"; Llama-3's (?i:...) takes "'S", which merges "' S" (18).
      {"it's we'll IT'S",
       {105, 116, 264, 32, 119, 101, 266, 32, 73, 84, 39, 83},
       {105, 116, 264, 32, 119, 101, 266, 32, 73, 84, 274}},
      // The special token is split out first; each side is pre-tokenized on its own.
      {"the<|endoftext|>\u00e9", {116, 257, 276, 269}, {116, 257, 276, 269}},
      {"", {}, {}},
  };
}

// One thread of encodingIsThreadSafe: 200 encodes, starting at case `offset`, counting wrong id lists.
void countLlama3Mismatches(const HfBpeTokenizer& tok, const std::vector<HandCase>& cases, int offset, int& mismatches) {
  for (int round = 0; round < 200; ++round) {
    const HandCase& c = cases[(round + offset) % cases.size()];
    if (tok.encode(c.text) != c.llama3) ++mismatches;
  }
}

}  // namespace

class TestByteLevelBpe : public QObject {
  Q_OBJECT

 private:
  fs::path scratch_;

  // Loads an edited tokenizer through Tokenizer::load and returns the error message ("" when it loads).
  std::string loadError(const std::function<void(json&)>& edit) const {
    json edited = byteLevelTokenizerJson(Form::Llama3);
    edit(edited);
    const fs::path path = scratch_ / "edited-tokenizer.json";
    testing::writeText(path, edited.dump(2));
    try {
      Tokenizer::load(path);
    } catch (const MixerLabError& e) {
      const std::string message = e.what();
      if (message.find(path.string()) == std::string::npos) return "an error that does not name the file: " + message;
      return message;
    }
    return "";
  }

 private Q_SLOTS:
  void initTestCase() { scratch_ = testing::makeScratchDir("byte_level_bpe"); }
  void cleanupTestCase() { fs::remove_all(scratch_); }

  void byteTableFollowsTheGpt2Rule() {
    // Spot checks written out: space Ġ, newline Ċ, carriage return č, NUL Ā, DEL ġ, NBSP ł, soft hyphen Ń.
    QCOMPARE(hf::toByteLevel(" "), std::string("\u0120"));
    QCOMPARE(hf::toByteLevel("\n"), std::string("\u010A"));
    QCOMPARE(hf::toByteLevel("\r"), std::string("\u010D"));
    QCOMPARE(hf::toByteLevel(std::string(1, '\0')), std::string("\u0100"));
    QCOMPARE(hf::toByteLevel("\x7F"), std::string("\u0121"));
    QCOMPARE(hf::toByteLevel("\xA0"), std::string("\u0142"));
    QCOMPARE(hf::toByteLevel("\xAD"), std::string("\u0143"));
    QCOMPARE(hf::toByteLevel("A~\xA1\xFF"), std::string("A~\u00A1\u00FF"));
    // Every byte, both ways.
    for (int byte = 0; byte < 256; ++byte) {
      const std::string one(1, static_cast<char>(byte));
      QCOMPARE(hf::toByteLevel(one), utf8Of(gpt2ByteCharacter(byte)));
      QCOMPARE(static_cast<uint32_t>(hf::byteLevelCodePoint(static_cast<unsigned char>(byte))),
               static_cast<uint32_t>(gpt2ByteCharacter(byte)));
      std::string back;
      hf::appendByteLevelBytes(utf8Of(gpt2ByteCharacter(byte)), back);
      QCOMPARE(back, one);
    }
  }

  void gpt2FormIdsFollowTheMerges() {
    const HfBpeTokenizer tok = byteLevelTokenizer(Form::Gpt2);
    for (const HandCase& c : handCases()) QCOMPARE(idsText(tok.encode(c.text)), idsText(c.gpt2));
  }

  void llama3FormIdsFollowTheMerges() {
    const HfBpeTokenizer tok = byteLevelTokenizer(Form::Llama3);
    for (const HandCase& c : handCases()) QCOMPARE(idsText(tok.encode(c.text)), idsText(c.llama3));
    // Merges given as ["a", "b"] pairs (newer files) read the same.
    json pairs = byteLevelTokenizerJson(Form::Llama3);
    json merges = json::array();
    for (const auto& merge : pairs["model"]["merges"]) {
      const std::string text = merge.get<std::string>();
      merges.push_back({text.substr(0, text.find(' ')), text.substr(text.find(' ') + 1)});
    }
    pairs["model"]["merges"] = merges;
    const HfBpeTokenizer from_pairs = HfBpeTokenizer::fromJson(pairs.dump(), "pairs");
    for (const HandCase& c : handCases()) QCOMPARE(idsText(from_pairs.encode(c.text)), idsText(c.llama3));
  }

  void ignoreMergesTakesWholeVocabularyWords() {
    for (Form form : {Form::Gpt2, Form::Llama3}) {
      // " at": merging takes "Ġ a" (3) before "a t" (4) and ends at Ġa t; with ignore_merges the word Ġat is
      // in the vocabulary (263) and is taken whole.
      QCOMPARE(idsText(byteLevelTokenizer(form, false).encode(" at")), idsText({259, 116}));
      QCOMPARE(idsText(byteLevelTokenizer(form, true).encode(" at")), idsText({263}));
      // Where merging reaches the whole word anyway, the two agree.
      QCOMPARE(idsText(byteLevelTokenizer(form, true).encode(" cat")), idsText({262}));
      QCOMPARE(idsText(byteLevelTokenizer(form, true).encode("the")), idsText({116, 257}));
    }
  }

  void addPrefixSpaceGoesInFrontOfEachStretch() {
    const HfBpeTokenizer tok = byteLevelTokenizer(Form::Gpt2, false, true);
    // " the" -> "Ġt he" (2) -> Ġthe 258; " cat" -> 262.
    QCOMPARE(idsText(tok.encode("the cat")), idsText({258, 262}));
    // After a special token the text is a stretch of its own and gets its space too.
    QCOMPARE(idsText(tok.encode("<|endoftext|>the")), idsText({276, 258}));
    QCOMPARE(idsText(tok.encode(" the")), idsText({258}));  // already starts with a space
    QCOMPARE(tok.decode({258, 262}), std::string(" the cat"));
  }

  void decodeInvertsEncode() {
    std::vector<std::string> texts;
    for (const HandCase& c : handCases()) texts.emplace_back(c.text);
    for (const char* extra :
         {"  leading spaces", "trailing spaces   ", "tab\tand\t\ttabs", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
          "line one\r\n\r\nline two\n", "'S'T'RE 'll's", "x<|endoftext|><|endoftext|>y", "emoji \xF0\x9F\x98\x80!!"}) {
      texts.emplace_back(extra);
    }
    for (Form form : {Form::Gpt2, Form::Llama3}) {
      for (bool ignore_merges : {false, true}) {
        const HfBpeTokenizer tok = byteLevelTokenizer(form, ignore_merges);
        for (const auto& text : texts) QCOMPARE(tok.decode(tok.encode(text)), text);
      }
    }
  }

  void decodeReplacesIllFormedUtf8AsHuggingFaceDoes() {
    const HfBpeTokenizer tok = byteLevelTokenizer(Form::Gpt2);
    const std::string replacement = "\xEF\xBF\xBD";
    // One U+FFFD per maximal ill-formed stretch (Unicode's recommendation, Rust's from_utf8_lossy):
    QCOMPARE(tok.decode({195}), replacement);                     // a lone lead byte C3
    QCOMPARE(tok.decode({231, 140}), replacement);                // E7 8C: 猫 without its last byte
    QCOMPARE(tok.decode({240, 159, 153}), replacement);           // F0 9F 99: an emoji cut short
    QCOMPARE(tok.decode({224, 128}), replacement + replacement);  // E0 80: 80 cannot follow E0
    QCOMPARE(tok.decode({104, 195, 105}), "h" + replacement + "i");
    QCOMPARE(tok.decode({255, 254}), replacement + replacement);  // bytes that never start a sequence
    // A character split over two tokens is whole once their bytes are joined.
    QCOMPARE(tok.decode({231, 140, 171}), std::string("\xE7\x8C\xAB"));
  }

  void decodeShowsAddedTokensAsTheirText() {
    QCOMPARE(byteLevelTokenizer(Form::Gpt2).decode({116, 257, 276}), std::string("the<|endoftext|>"));
    // An added token with a character outside the byte table (a plain space) decodes to its own bytes.
    json with_spaced_token = byteLevelTokenizerJson(Form::Gpt2);
    with_spaced_token["added_tokens"].push_back(
        {{"id", 277}, {"content", "my token"}, {"special", false}, {"normalized", false}});
    const HfBpeTokenizer tok = HfBpeTokenizer::fromJson(with_spaced_token.dump(), "spaced");
    QCOMPARE(idsText(tok.encode("at my token")), idsText({260, 32, 277}));  // "at" (4), " " then the token
    QCOMPARE(tok.decode({277, 259}), std::string("my token a"));
  }

  void specialIdsOfGpt2AndLlama3Files() {
    const HfBpeTokenizer gpt2 = byteLevelTokenizer(Form::Gpt2);
    QCOMPARE(gpt2.vocabSize(), 277);
    QCOMPARE(gpt2.unkId(), -1);
    QCOMPARE(gpt2.bosId(), 276);  // <|endoftext|> is GPT-2's bos and eos
    QCOMPARE(gpt2.eosId(), 276);
    QCOMPARE(gpt2.padId(), 276);
    json llama3 = byteLevelTokenizerJson(Form::Llama3, true);
    llama3["added_tokens"] = {{{"id", 276}, {"content", "<|begin_of_text|>"}, {"special", true}, {"normalized", false}},
                              {{"id", 277}, {"content", "<|end_of_text|>"}, {"special", true}, {"normalized", false}},
                              {{"id", 278}, {"content", "<|eot_id|>"}, {"special", true}, {"normalized", false}}};
    const fs::path path = scratch_ / "llama3-tokenizer.json";
    testing::writeText(path, llama3.dump(1));
    const Tokenizer tok = Tokenizer::load(path);
    QVERIFY(tok.isHuggingFaceJson());
    QCOMPARE(tok.vocabSize(), 279);
    QCOMPARE(tok.unkId(), -1);
    QCOMPARE(tok.bosId(), 276);
    QCOMPARE(tok.eosId(), 277);
    QCOMPARE(tok.padId(), 277);  // pad := eos
    QCOMPARE(idsText(tok.encode("<|begin_of_text|>4123<|end_of_text|>")), idsText({276, 52, 267, 51, 277}));
    QCOMPARE(tok.decode({276, 263, 277}), std::string("<|begin_of_text|> at<|end_of_text|>"));
    QCOMPARE(tok.piece(262), std::string("\u0120cat"));
    // Without an unknown token, newlines cannot become one (train.newline: unk) and say so.
    QCOMPARE(idsText(encodeDocument(tok, "a\n\nb", NewlineMode::Token)), idsText({97, 273, 98}));
    try {
      encodeDocument(tok, "a\nb", NewlineMode::Unk);
      QFAIL("newline: unk was accepted without an unknown token");
    } catch (const MixerLabError& e) {
      QVERIFY2(std::string(e.what()).find("has no unknown token") != std::string::npos, e.what());
    }
  }

  void cliEncodesACorpusAndDecodesIds() {
    const fs::path model = scratch_ / "gpt2-tokenizer.json";
    const fs::path corpus = scratch_ / "corpus.txt";
    testing::writeText(model, byteLevelTokenizerJson(Form::Gpt2).dump());
    testing::writeText(corpus, "the cat\n\nit's 4123\n");
    const auto encoded = testing::runCli({"tokenizer", "encode", "--model", QString::fromStdString(model.string()),
                                          "--corpus", QString::fromStdString(corpus.string())});
    QVERIFY2(encoded.exit_code == 0, qPrintable(encoded.err));
    const QStringList lines = encoded.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 2);
    // "it's 4123" -> "it" | "'s" (8) | " 4123": Ġ 4 1 2 3 -> "1 2" (11), "12 3" (12).
    QCOMPARE(json::parse(lines[0].toStdString()),
             json({{"text", "the cat"}, {"ids", {116, 257, 262}}, {"decoded", "the cat"}}));
    QCOMPARE(json::parse(lines[1].toStdString()),
             json({{"text", "it's 4123"}, {"ids", {105, 116, 264, 32, 52, 268}}, {"decoded", "it's 4123"}}));
    const auto decoded = testing::runCli(
        {"tokenizer", "decode", "--model", QString::fromStdString(model.string()), "--ids", "104", "231", "140"});
    QVERIFY2(decoded.exit_code == 0, qPrintable(decoded.err));
    QCOMPARE(decoded.out.toStdString(), std::string("h\xEF\xBF\xBD\n"));  // E7 8C: one U+FFFD
  }

  void encodingIsThreadSafe() {
    const HfBpeTokenizer tok = byteLevelTokenizer(Form::Llama3);
    const std::vector<HandCase> cases = handCases();
    std::vector<int> failures(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back(countLlama3Mismatches, std::cref(tok), std::cref(cases), t, std::ref(failures[t]));
    for (auto& thread : threads) thread.join();
    QCOMPARE(failures, std::vector<int>(4, 0));
  }

  void longWhitespaceRunsAreCutLikeShortOnes() {
    // 100,000 spaces then "b": \s+(?!\S) gives all but the last space, which goes with b. ĠĠ pairs merge
    // leftmost first: 49,999 ĠĠ and one Ġ, then Ġb.
    const HfBpeTokenizer tok = byteLevelTokenizer(Form::Gpt2);
    const Ids ids = tok.encode(std::string(100000, ' ') + "b");
    Ids expected(49999, 272);
    expected.push_back(32);
    expected.push_back(275);
    QCOMPARE(ids.size(), expected.size());
    QVERIFY(ids == expected);
  }

  void splitPatternsCutAsOnigurumaDoes() {
    const auto pieces = [](const char* pattern, const std::string& text) {
      std::string joined;
      for (auto piece : hf::SplitRegex(pattern, hf::SplitRegex::Syntax::Regex, "test").isolate(text)) {
        joined += "[" + std::string(piece) + "]";
      }
      return joined;
    };
    // An empty match right after a match is skipped (one character on), as Oniguruma's iterator does.
    QCOMPARE(pieces("x*", "abxxc"), std::string("[a][b][xx][c]"));
    // Oniguruma's \s is Unicode White_Space: NBSP (U+00A0) and U+2003 are spaces, U+180E is not (PCRE2's own
    // \s would take it).
    QCOMPARE(pieces("\\s", "a\u00A0b\u180Ec\u2003d"), std::string("[a][\u00A0][b\u180Ec][\u2003][d]"));
    QCOMPARE(pieces("[^\\s]+", "a\u180Eb c"), std::string("[a\u180Eb][ ][c]"));
    QCOMPARE(pieces("\\S+", "a\u180Eb c"), std::string("[a\u180Eb][ ][c]"));
    // ^ matches at the start of every line, as in Oniguruma's default syntax.
    QCOMPARE(pieces("^a", "a\nab\n"), std::string("[a][\n][a][b\n]"));
    // (?i:) folds case; the Llama-3 pattern's digit groups and newline runs.
    QCOMPARE(pieces(kLlama3Pattern, "IT'S 12345\n\n"), std::string("[IT]['S][ ][123][45][\n\n]"));
    // A String pattern is literal.
    QCOMPARE(
        [] {
          std::string joined;
          for (auto piece : hf::SplitRegex(".+", hf::SplitRegex::Syntax::Literal, "test").isolate("a.+b")) {
            joined += "[" + std::string(piece) + "]";
          }
          return joined;
        }(),
        std::string("[a][.+][b]"));
    // Text that is not UTF-8 is kept whole, never matched.
    QCOMPARE(pieces("\\p{L}+",
                    "ab\xFF"
                    "cd"),
             std::string("[ab][\xFF][cd]"));
    QCOMPARE(hf::withOnigurumaWhitespace("\\s+(?!\\S)|[^\\s\\p{L}]"),
             std::string("[\\t-\\r\\x{85}\\p{Z}]+(?![^\\t-\\r\\x{85}\\p{Z}])|[^\\t-\\r\\x{85}\\p{Z}\\p{L}]"));
    QCOMPARE(hf::withOnigurumaWhitespace("\\\\s[]s]\\Q\\s\\E"), std::string("\\\\s[]s]\\Q\\s\\E"));
  }

  void unsupportedComponentsAreRefusedByName() {
    const std::vector<std::pair<std::string, std::function<void(json&)>>> edits = {
        {"pre_tokenizer type \"Whitespace\"",
         [](json& j) {
           j["pre_tokenizer"] = {{"type", "Whitespace"}};
         }},
        {"pre_tokenizer type \"Digits\"",
         [](json& j) {
           j["pre_tokenizer"]["pretokenizers"][1] = {{"type", "Digits"}, {"individual_digits", true}};
         }},
        {"Split behavior \"MergedWithPrevious\"",
         [](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "MergedWithPrevious"; }},
        {"Split behavior \"Removed\"", [](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed"; }},
        {"normalizer type \"NFC\"",
         [](json& j) {
           j["normalizer"] = {{"type", "NFC"}};
         }},
        {"decoder type \"WordPiece\"",
         [](json& j) {
           j["decoder"] = {{"type", "WordPiece"}};
         }},
        {"does not compile",
         [](json& j) {
           j["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "(unclosed"}};
         }},
        {"uses \\h or \\H",
         [](json& j) {
           j["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "\\h+"}};
         }},
        {"BPE dropout", [](json& j) { j["model"]["dropout"] = 0.1; }},
    };
    for (const auto& [needle, edit] : edits) {
      const std::string message = loadError(edit);
      QVERIFY2(message.find(needle) != std::string::npos, ("expected \"" + needle + "\" in: " + message).c_str());
    }
    // The message says what is supported.
    const std::string message = loadError(edits[0].second);
    QVERIFY2(message.find("ByteLevel") != std::string::npos, message.c_str());
    // The unchanged file loads.
    QCOMPARE(loadError([](json&) {}), std::string());
  }
};

QTEST_APPLESS_MAIN(TestByteLevelBpe)
#include "test_byte_level_bpe.moc"
