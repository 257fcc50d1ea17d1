// What SentencePiece's trainer (0.1.9x, the version MixerLab loads) cannot take, found before it is
// called: a corpus it would crash on must end in a MixerLabError, not a signal.
//
// The trainer splits each document into "words" at spaces and keeps each word's pair positions in
// 16 bits (bpe_model_trainer.h EncodePos: `l << 16` on an int). A word whose pair starts at symbol
// 32768 or later overflows that int, the decoded sentence index is garbage, and the BPE trainer reads
// outside its tables (SIGSEGV; past 65535 symbols a CHECK exits the process). A word's symbols are a
// leading "▁" and its characters, so a word may have at most 32768 characters. The unigram trainer's
// likelihood also turns NaN on single words of ~150,000 characters, which this limit keeps well away.
//
// Spaces split words only when they survive character_coverage: the trainer first replaces every
// character outside the most frequent ones covering character_coverage of the text (0.9995) by an
// unknown symbol, spaces included. In a corpus with fewer than 1 space in 2,000 characters the
// whole document is then one word (50,000 "a"s with one space in the middle still crash).
// longestTrainerWord replays that preprocessing (identity normalisation, "▁" for spaces and as a
// prefix, meta pieces and "\n" as boundaries, the skipped sentences, the coverage cut) to find the
// longest word exactly as the trainer will see it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mixerlab {

struct TokenizerSettings;

// The most characters (after the leading "▁") one trainer word may have.
constexpr int64_t kMaxTrainerWordCharacters = 32768;
// SentencePiece's max_sentence_length as MixerLab sets it: longer documents are skipped by the trainer.
constexpr int64_t kTrainerMaxSentenceBytes = int64_t{1} << 20;

struct TrainerWord {
  size_t document = 0;          // index into the documents
  int64_t characters = 0;       // the word's characters after its leading "▁"
  std::string start;            // its first characters, for the message
  bool spaces_dropped = false;  // it holds spaces, too rare to survive character_coverage
  int distinct_characters = 0;  // distinct characters of the trained documents (spaces and newlines aside)
};

// The longest word the trainer will see in the `picked` documents (characters 0 when none is
// longer than kMaxTrainerWordCharacters, found without the full replay when no document is longer).
TrainerWord longestTrainerWord(const std::vector<std::string>& documents, const std::vector<size_t>& picked,
                               const TokenizerSettings& settings);

// Throws MixerLabError naming `corpus_name`, the document and the fix when a word of the picked
// documents is longer than kMaxTrainerWordCharacters.
void checkTrainerInput(const std::vector<std::string>& documents, const std::vector<size_t>& picked,
                       const TokenizerSettings& settings, const std::string& corpus_name);

}  // namespace mixerlab
