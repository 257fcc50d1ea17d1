// Tests for the Hugging Face tokenizer.json reader (core/data/hf_bpe_tokenizer.h): a small hand-written
// Llama-style fixture (tests/fixtures/hf_llama_bpe_tokenizer.json) must tokenize exactly as its merges say,
// with ids worked out by hand below; byte fallback, <unk>, special tokens, both normalizer styles, both merge
// forms, decoding, unsupported files, and loading through the generic mixerlab::Tokenizer.
//
// The fixture: <unk>=0 <s>=1 </s>=2, <0x00>..<0xFF> = 3..258 (byte b is id 3 + b), then
//   ▁=259 h=260 e=261 l=262 o=263 w=264 r=265 d=266 a=267 n=268 t=269 .=270
// and the merges, rank: pair -> id of the merged piece
//   0: ▁ h -> ▁h 271      5: o r -> or 276        10: ▁wor ld -> ▁world 281
//   1: l l -> ll 272      6: ▁ w -> ▁w 277        11: a n -> an 282
//   2: e ll -> ell 273    7: ▁w or -> ▁wor 278    12: ▁ a -> ▁a 283
//   3: ▁h ell -> ▁hell 274  8: e l -> el 279      13: ▁ an -> ▁an 284
//   4: ▁hell o -> ▁hello 275  9: l d -> ld 280
// Normalizer Prepend("▁") + Replace(" " -> "▁"), no pre-tokenizer, byte_fallback and fuse_unk on.
#include <QtTest/QtTest>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/data/hf_bpe_tokenizer.h"
#include "core/data/tokenizer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/hashing.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;
using Ids = std::vector<int>;
using nlohmann::json;

namespace {

std::string idsText(const Ids& ids) {
  std::string text;
  for (int id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
  return "[" + text + "]";
}

// The textbook definition of BPE, as slow as it is plain: merge the leftmost lowest-rank pair until none is left.
std::vector<std::string> naiveBpe(std::vector<std::string> pieces, const json& merges) {
  for (;;) {
    int best_rank = -1;
    size_t best_pos = 0;
    for (size_t i = 0; i + 1 < pieces.size(); ++i) {
      for (size_t rank = 0; rank < merges.size(); ++rank) {
        const std::string merge = merges[rank].get<std::string>();
        if (merge == pieces[i] + " " + pieces[i + 1] && (best_rank < 0 || static_cast<int>(rank) < best_rank)) {
          best_rank = static_cast<int>(rank);
          best_pos = i;
        }
      }
    }
    if (best_rank < 0) return pieces;
    pieces[best_pos] += pieces[best_pos + 1];
    pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(best_pos) + 1);
  }
}

}  // namespace

class TestHfTokenizer : public QObject {
  Q_OBJECT

 private:
  fs::path scratch_;
  fs::path fixture_path_;
  json fixture_;

  HfBpeTokenizer fixture() const { return HfBpeTokenizer::fromJson(fixture_.dump(), "fixture"); }
  template <typename Edit>
  HfBpeTokenizer variant(Edit edit) const {
    json edited = fixture_;
    edit(edited);
    return HfBpeTokenizer::fromJson(edited.dump(), "variant");
  }
  static json metaspace(const char* prepend_scheme, bool split) {
    return {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", prepend_scheme}, {"split", split}};
  }
  // Loads an edited fixture through Tokenizer::load and returns the error message ("" when it loads).
  template <typename Edit>
  std::string loadError(const std::string& name, Edit edit) const {
    json edited = fixture_;
    edit(edited);
    const fs::path path = scratch_ / name;
    testing::writeText(path, edited.dump(2));
    try {
      Tokenizer::load(path);
    } catch (const MixerLabError& e) {
      const std::string message = e.what();
      if (message.find(path.string()) == std::string::npos) return "an error that does not name the file";
      return message;
    }
    return "";
  }

 private Q_SLOTS:
  void initTestCase() {
    scratch_ = testing::makeScratchDir("hf_tokenizer");
    fixture_path_ = testing::sourceDir() / "tests" / "fixtures" / "hf_llama_bpe_tokenizer.json";
    fixture_ = json::parse(readFile(fixture_path_));
  }

  void idsFollowTheMergeRanks() {
    const HfBpeTokenizer tok = fixture();
    // "hello world" -> normalized "▁hello▁world": ▁ h e l l o ▁ w o r l d. Lowest rank first:
    //   0 ▁h; 1 ll (before 8 "e l", which would take the first l); 2 e+ll; 3 ▁h+ell; 4 ▁hell+o;
    //   5 or; 6 ▁w; 7 ▁w+or; 9 ld; 10 ▁wor+ld  ->  ▁hello ▁world
    QCOMPARE(idsText(tok.encode("hello world")), idsText({275, 281}));
    QCOMPARE(idsText(tok.encode("hello")), idsText({275}));
    QCOMPARE(idsText(tok.encode("hell")), idsText({274}));  // ▁h, ll, e+ll, ▁h+ell
    // "held" -> ▁ h e l d: 0 ▁h; then "e l" (8) beats "l d" (9) for the shared l; "el d" has no merge.
    QCOMPARE(idsText(tok.encode("held")), idsText({271, 279, 266}));
    // "an" -> ▁ a n: "a n" (11) before "▁ a" (12), then "▁ an" (13).
    QCOMPARE(idsText(tok.encode("an")), idsText({284}));
    QCOMPARE(idsText(tok.encode("hello world.")), idsText({275, 281, 270}));  // "." has no merge
    QCOMPARE(idsText(tok.encode("")), idsText({}));
    // Two spaces: ▁hello ▁ ▁world (the second ▁ merges with w), and a trailing space is a lone ▁.
    QCOMPARE(idsText(tok.encode("hello  world ")), idsText({275, 259, 281, 259}));
  }

  void mergingMatchesTheTextbookDefinition() {
    // Random strings over the fixture's letters: the heap-based merge equals the plain definition.
    const HfBpeTokenizer tok = fixture();
    std::map<std::string, int> vocab;
    for (const auto& [piece, id] : fixture_["model"]["vocab"].items()) vocab[piece] = id.get<int>();
    std::mt19937 rng(7);
    const std::string letters = "helowrdan ";
    for (int trial = 0; trial < 200; ++trial) {
      std::string text;
      const int length = 1 + static_cast<int>(rng() % 40);
      for (int k = 0; k < length; ++k) text += letters[rng() % letters.size()];
      std::vector<std::string> chars = {"\u2581"};
      for (char c : text) chars.push_back(c == ' ' ? "\u2581" : std::string(1, c));
      Ids expected;
      for (const auto& piece : naiveBpe(chars, fixture_["model"]["merges"])) expected.push_back(vocab.at(piece));
      QCOMPARE(idsText(tok.encode(text)), idsText(expected));
    }
  }

  void byteFallbackGivesOnePiecePerUtf8Byte() {
    const HfBpeTokenizer tok = fixture();
    // "é" is U+00E9 = bytes C3 A9 -> <0xC3> (3 + 0xC3 = 198), <0xA9> (3 + 0xA9 = 172), after the prepended ▁.
    QCOMPARE(idsText(tok.encode("\xC3\xA9")), idsText({259, 198, 172}));
    QCOMPARE(idsText(tok.encode("\xC3\xA9\xC3\xA9")), idsText({259, 198, 172, 198, 172}));
    // "猫" is U+732B = E7 8C AB -> 234, 143, 174.
    QCOMPARE(idsText(tok.encode("\xE7\x8C\xAB")), idsText({259, 234, 143, 174}));
    QCOMPARE(tok.piece(198), std::string("<0xC3>"));
  }

  void newlineBecomesAByteWhenNotInTheVocab() {
    // "hello\nworld" -> ▁hello, <0x0A> (3 + 10 = 13), then "world" without a ▁: w, or (5), ld (9);
    // "w or" has no merge (only "▁w or").
    QCOMPARE(idsText(fixture().encode("hello\nworld")), idsText({275, 13, 264, 276, 280}));
  }

  void withoutBytePiecesUnknownCharactersBecomeUnk() {
    // Like the research's tokenizers: byte_fallback on but no <0xNN> pieces, so "\n" encodes to <unk>.
    json small = {
        {"added_tokens", json::array()},
        {"normalizer", fixture_["normalizer"]},
        {"decoder", fixture_["decoder"]},
        {"model",
         {{"type", "BPE"},
          {"unk_token", "<unk>"},
          {"byte_fallback", true},
          {"fuse_unk", true},
          {"vocab", {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}, {"\u2581", 3}, {"a", 4}, {"b", 5}, {"\u2581a", 6}}},
          {"merges", {"\u2581 a"}}}}};
    // "a\n\nb" -> ▁a, then two unknown "\n" fused into one <unk>, then b.
    QCOMPARE(idsText(HfBpeTokenizer::fromJson(small.dump(), "small").encode("a\n\nb")), idsText({6, 0, 5}));
    QCOMPARE(idsText(HfBpeTokenizer::fromJson(small.dump(), "small").encode("\n")), idsText({3, 0}));
    small["model"]["fuse_unk"] = false;
    QCOMPARE(idsText(HfBpeTokenizer::fromJson(small.dump(), "small").encode("a\n\nb")), idsText({6, 0, 0, 5}));
    // Without an unk_token the reference implementation drops the character.
    small["model"]["unk_token"] = nullptr;
    QCOMPARE(idsText(HfBpeTokenizer::fromJson(small.dump(), "small").encode("a\n\nb")), idsText({6, 5}));
  }

  void decodeInvertsEncode() {
    const HfBpeTokenizer tok = fixture();
    const std::vector<std::string> texts = {"hello world",
                                            "held",
                                            "Zo\xC3\xAB \xE7\x8C\xAB \xF0\x9F\x99\x82 caf\xC3\xA9",
                                            "hello\nworld\n\n",
                                            " hello",
                                            "  two  spaces, tab\tand trailing space ",
                                            "",
                                            "hello world."};
    for (const auto& text : texts) QCOMPARE(tok.decode(tok.encode(text)), text);
  }

  void decodeShowsSpecialsAndReplacesBrokenBytes() {
    const HfBpeTokenizer tok = fixture();
    // Specials decode to their text; the Strip step only removes a space at the very start.
    QCOMPARE(tok.decode({1, 275, 2}), std::string("<s> hello</s>"));
    // A lone <0xC3> is not UTF-8: one U+FFFD per byte piece.
    QCOMPARE(tok.decode({275, 198}), std::string("hello\xEF\xBF\xBD"));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, tok.decode({285}));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, tok.piece(-1));
  }

  void bothNormalizerStylesGiveTheSameIds() {
    const HfBpeTokenizer legacy = fixture();
    const auto metaspaceStyle = [&](const char* scheme, bool split) {
      return variant([&](json& j) {
        j["normalizer"] = nullptr;
        j["pre_tokenizer"] = metaspace(scheme, split);
      });
    };
    const HfBpeTokenizer first = metaspaceStyle("first", false);  // transformers' Llama with legacy=False
    const HfBpeTokenizer always_split = metaspaceStyle("always", true);
    const HfBpeTokenizer old_style = variant([](json& j) {  // files from before prepend_scheme
      j["normalizer"] = nullptr;
      j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"add_prefix_space", true}};
    });
    for (const char* text :
         {"hello world", "held an", "hello\nworld", "hello  world .", "\xC3\xA9t\xC3\xA9", "hello</s>"}) {
      const std::string expected = idsText(legacy.encode(text));
      QCOMPARE(idsText(first.encode(text)), expected);
      QCOMPARE(idsText(always_split.encode(text)), expected);
      QCOMPARE(idsText(old_style.encode(text)), expected);
    }
    // Where they differ, as in the reference implementation: Prepend always adds a ▁, Metaspace only when the
    // text does not start with one; "first" prepends only at the start of the input, not after a special token.
    QCOMPARE(idsText(legacy.encode(" hello")), idsText({259, 275}));
    QCOMPARE(idsText(first.encode(" hello")), idsText({275}));
    QCOMPARE(idsText(legacy.encode("<s>hello")), idsText({1, 275}));
    QCOMPARE(idsText(first.encode("<s>hello")), idsText({1, 260, 273, 263}));  // h, e+ll, o: no ▁h merge
    QCOMPARE(idsText(always_split.encode("<s>hello")), idsText({1, 275}));
    // The Metaspace decoder drops the prepended ▁ of the first token.
    const HfBpeTokenizer metaspace_decoder = variant([](json& j) { j["decoder"] = metaspace("always", true); });
    QCOMPARE(metaspace_decoder.decode({275, 281}), std::string("hello world"));
  }

  void mergesInBothJsonForms() {
    const HfBpeTokenizer strings = fixture();
    const HfBpeTokenizer pairs = variant([](json& j) {
      json merges = json::array();
      for (const auto& merge : j["model"]["merges"]) {
        const std::string text = merge.get<std::string>();
        merges.push_back({text.substr(0, text.find(' ')), text.substr(text.find(' ') + 1)});
      }
      j["model"]["merges"] = merges;
    });
    for (const char* text : {"hello world", "held", "an", "hello\nworld"}) {
      QCOMPARE(idsText(pairs.encode(text)), idsText(strings.encode(text)));
    }
    const std::string bad = loadError("bad_merge.json", [](json& j) { j["model"]["merges"].push_back("h e l"); });
    QVERIFY2(bad.find("\"h e l\"") != std::string::npos, bad.c_str());
  }

  void specialTokensAreMatchedWholeBeforeBpe() {
    const HfBpeTokenizer tok = fixture();
    QCOMPARE(tok.unkId(), 0);
    QCOMPARE(tok.bosId(), 1);
    QCOMPARE(tok.eosId(), 2);
    QCOMPARE(tok.piece(2), std::string("</s>"));
    QCOMPARE(idsText(tok.encode("hello</s>")), idsText({275, 2}));
    // Each side of a special token is normalized on its own (so gets its ▁); "b" is a byte piece (3 + 0x62).
    QCOMPARE(idsText(tok.encode("a</s>b")), idsText({283, 2, 259, 101}));
    QCOMPARE(idsText(tok.encode("<s></s>")), idsText({1, 2}));
    // A special marked normalized=true is looked for in the normalized text, with its content normalized too
    // ("▁</s>"), so "a</s>" does not contain it but "a </s>" does.
    const HfBpeTokenizer normalized = variant([](json& j) { j["added_tokens"][2]["normalized"] = true; });
    QCOMPARE(idsText(normalized.encode("a </s>")), idsText({283, 2}));
    QCOMPARE(idsText(normalized.encode("a</s>")), idsText({283, 63, 50, 118, 65}));  // < / s > as bytes
  }

  void padIsEosWithoutAPadToken() {
    const HfBpeTokenizer tok = fixture();
    QCOMPARE(tok.vocabSize(), 285);
    QCOMPARE(tok.padId(), tok.eosId());
    const HfBpeTokenizer with_pad = variant([](json& j) {
      j["model"]["vocab"]["<pad>"] = 285;
      j["added_tokens"].push_back({{"id", 285}, {"content", "<pad>"}, {"special", true}, {"normalized", false}});
    });
    QCOMPARE(with_pad.padId(), 285);
    QCOMPARE(with_pad.vocabSize(), 286);
  }

  void unsupportedFilesAreRejectedNamingTheFile() {
    const auto edits = std::vector<std::pair<std::string, std::function<void(json&)>>>{
        {"WordPiece", [](json& j) { j["model"]["type"] = "WordPiece"; }},
        {"NFKC",
         [](json& j) {
           j["normalizer"] = {{"type", "NFKC"}};
         }},
        {"Regex",
         [](json& j) {
           j["normalizer"]["normalizers"][1]["pattern"] = {{"Regex", " +"}};
         }},
        {"pre_tokenizer type \"Whitespace\"",
         [](json& j) {
           j["pre_tokenizer"] = {{"type", "Whitespace"}};
         }},
        {"dropout", [](json& j) { j["model"]["dropout"] = 0.1; }},
        {"gaps", [](json& j) { j["model"]["vocab"]["zz"] = 300; }},
        {"\"model\"",
         [](json& j) {
           j = {{"version", "1.0"}};
         }},
    };
    for (const auto& [needle, edit] : edits) {
      const std::string message = loadError("unsupported.json", edit);
      QVERIFY2(message.find(needle) != std::string::npos, ("expected \"" + needle + "\" in: " + message).c_str());
    }
    // The message says what is supported.
    const std::string message = loadError("unsupported.json", edits[0].second);
    QVERIFY2(message.find("Metaspace") != std::string::npos, message.c_str());
  }

  void genericTokenizerLoadsTokenizerJson() {
    const Tokenizer tok = Tokenizer::load(fixture_path_);
    QCOMPARE(idsText(tok.encode("hello world")), idsText({275, 281}));
    QCOMPARE(tok.decode(tok.encode("hello\nworld \xC3\xA9")), std::string("hello\nworld \xC3\xA9"));
    QCOMPARE(tok.piece(275), std::string("\u2581hello"));
    QCOMPARE(tok.vocabSize(), 285);
    QCOMPARE(tok.unkId(), 0);
    QCOMPARE(tok.bosId(), 1);
    QCOMPARE(tok.eosId(), 2);
    QCOMPARE(tok.padId(), 2);
    QCOMPARE(tok.hash(), hashFileHex(fixture_path_));
    QCOMPARE(tok.modelPath(), fixture_path_);
    // Told apart by content: a checkpoint keeps its tokenizer as "tokenizer.model" whatever its kind.
    const fs::path renamed = scratch_ / "tokenizer.model";
    fs::copy_file(fixture_path_, renamed);
    QCOMPARE(idsText(Tokenizer::load(renamed).encode("held")), idsText({271, 279, 266}));
  }

  void cleanupTestCase() { fs::remove_all(scratch_); }

  // Found by fuzz/tokenizer_json_fuzzer: a vocabulary id of 1e50 was cast to int (undefined
  // behaviour). Ids must be non-negative integers that fit an int.
  void outOfRangeIdsAreRejected() {
    for (const char* id : {"1e50", "-3", "2.5"}) {
      json edited = fixture_;
      edited["model"]["vocab"]["zz"] = json::parse(id);
      try {
        HfBpeTokenizer::fromJson(edited.dump(), "odd.json");
        QFAIL(id);
      } catch (const MixerLabError& e) {
        QVERIFY2(QString(e.what()).contains("is not a non-negative integer"), e.what());
      }
    }
    // A number no double holds escaped as nlohmann's out_of_range (also fuzz-found).
    try {
      HfBpeTokenizer::fromJson(R"({"model": {"type": "BPE", "vocab": {"a": 4E02000}}})", "huge.json");
      QFAIL("a number overflow was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("huge.json is not valid JSON"), e.what());
    }
  }

  // Fuzz-found: one id of 104,000,000 in a file of some 60 tokens made the id table ask
  // for 3.3 GB before the gap check ran. An id at or past the number of entries is refused first,
  // naming the id and the count; the largest id a gap-free file can have still loads.
  void idsBeyondTheEntriesAreRefusedBeforeAnyTable() {
    json edited = fixture_;
    edited["model"]["vocab"]["zz"] = 104000000;
    try {
      HfBpeTokenizer::fromJson(edited.dump(), "sparse.json");
      QFAIL("an id of 104,000,000 was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("token id 104000000 is beyond the"), e.what());
    }
    json dense = fixture_;
    int next_id = 0;
    for (const auto& [piece, id] : dense["model"]["vocab"].items()) next_id = std::max(next_id, id.get<int>() + 1);
    for (const auto& token : dense["added_tokens"]) next_id = std::max(next_id, token["id"].get<int>() + 1);
    dense["model"]["vocab"]["zz"] = next_id;  // the next free id: no gap
    QCOMPARE(HfBpeTokenizer::fromJson(dense.dump(), "dense.json").vocabSize(), next_id + 1);
  }
};

QTEST_APPLESS_MAIN(TestHfTokenizer)
#include "test_hf_tokenizer.moc"
