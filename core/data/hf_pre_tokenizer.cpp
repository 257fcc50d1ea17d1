// The pre-tokenizer steps Metaspace, Split and ByteLevel over a list of pieces (see hf_pre_tokenizer.h).
#include "core/data/hf_pre_tokenizer.h"

#include "core/data/hf_byte_level.h"
#include "core/data/hf_decoder.h"

namespace mixerlab {
namespace {

struct TextPiece {
  std::string text;
  bool at_input_start = false;
};

void cutWithMetaspace(const hf::Metaspace& metaspace, const TextPiece& piece, std::vector<TextPiece>& out) {
  const std::string& mark = metaspace.replacement;
  std::string word = hf::replaceAll(piece.text, " ", mark);
  const bool prepend = metaspace.prepend_scheme == hf::PrependScheme::Always ||
                       (metaspace.prepend_scheme == hf::PrependScheme::First && piece.at_input_start);
  if (prepend && !word.empty() && word.compare(0, mark.size(), mark) != 0) word.insert(0, mark);
  if (!metaspace.split || mark.empty()) {
    out.push_back({std::move(word), piece.at_input_start});
    return;
  }
  // Split before every replacement character (it opens the word that follows it).
  size_t start = 0;
  for (size_t found = word.find(mark, 1); found != std::string::npos; found = word.find(mark, found + mark.size())) {
    out.push_back({word.substr(start, found - start), piece.at_input_start && start == 0});
    start = found;
  }
  out.push_back({word.substr(start), piece.at_input_start && start == 0});
}

void cutWithRegex(const hf::SplitRegex& regex, const TextPiece& piece, std::vector<TextPiece>& out) {
  bool first = true;
  for (std::string_view part : regex.isolate(piece.text)) {
    out.push_back({std::string(part), piece.at_input_start && first});
    first = false;
  }
}

void cutWithByteLevel(const hf::PreTokenizerStep& step, const std::optional<hf::SplitRegex>& regex,
                      const TextPiece& piece, std::vector<TextPiece>& out) {
  TextPiece spaced = piece;
  if (step.add_prefix_space && !spaced.text.empty() && spaced.text[0] != ' ') spaced.text.insert(0, " ");
  const size_t first_new = out.size();
  if (regex) {
    cutWithRegex(*regex, spaced, out);
  } else {
    out.push_back(std::move(spaced));
  }
  for (size_t k = first_new; k < out.size(); ++k) out[k].text = hf::toByteLevel(out[k].text);
}

}  // namespace

HfPreTokenizer::HfPreTokenizer(const std::vector<hf::PreTokenizerStep>& steps, const std::string& source) {
  for (const auto& step : steps) {
    CompiledStep compiled{step, std::nullopt};
    if (step.kind == hf::PreTokenizerStep::Kind::Split) {
      compiled.regex.emplace(step.pattern, step.pattern_syntax, source + ": pre_tokenizer Split");
    } else if (step.kind == hf::PreTokenizerStep::Kind::ByteLevel && step.use_regex) {
      compiled.regex.emplace(hf::kGpt2SplitPattern, hf::SplitRegex::Syntax::Regex,
                             source + ": pre_tokenizer ByteLevel");
    }
    steps_.push_back(std::move(compiled));
  }
}

std::vector<std::string> HfPreTokenizer::words(std::string_view text, bool at_input_start) const {
  std::vector<TextPiece> pieces;
  if (!text.empty()) pieces.push_back({std::string(text), at_input_start});
  for (const CompiledStep& compiled : steps_) {
    std::vector<TextPiece> next;
    for (const TextPiece& piece : pieces) {
      switch (compiled.step.kind) {
        case hf::PreTokenizerStep::Kind::Metaspace:
          cutWithMetaspace(compiled.step.metaspace, piece, next);
          break;
        case hf::PreTokenizerStep::Kind::Split:
          cutWithRegex(*compiled.regex, piece, next);
          break;
        case hf::PreTokenizerStep::Kind::ByteLevel:
          cutWithByteLevel(compiled.step, compiled.regex, piece, next);
          break;
      }
    }
    pieces.clear();
    for (auto& piece : next) {
      if (!piece.text.empty()) pieces.push_back(std::move(piece));
    }
  }
  std::vector<std::string> words;
  words.reserve(pieces.size());
  for (auto& piece : pieces) words.push_back(std::move(piece.text));
  return words;
}

}  // namespace mixerlab
