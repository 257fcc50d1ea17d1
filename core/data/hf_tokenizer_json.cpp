// Reading the supported subset of a Hugging Face tokenizer.json (see hf_tokenizer_json.h). Written from the
// format's documentation: each component is an object with a "type"; "Sequence" nests a list of them.
#include "core/data/hf_tokenizer_json.h"

#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/util/json_document.h"
#include "core/util/json_numbers.h"

namespace mixerlab::hf {
namespace {

// A token id: an exact non-negative integer that fits an int. Found by fuzz/tokenizer_json_fuzzer:
// nlohmann's get<int>() on 1e50 is a cast with undefined behaviour.
int tokenId(const nlohmann::json& value, const std::string& what) {
  const auto id = exactInt64(value);
  if (!id || *id < 0 || *id > std::numeric_limits<int>::max()) {
    throw MixerLabError("token id " + value.dump() + " of " + what + " is not a non-negative integer",
                        "use a valid tokenizer.json");
  }
  return static_cast<int>(*id);
}

using nlohmann::json;

const char* const kSupportedSummary =
    "model \"BPE\" (vocab, merges, unk_token, byte_fallback, fuse_unk, ignore_merges; no dropout or "
    "subword prefix/suffix); normalizer Prepend and Replace with a String pattern, or a Sequence of them; "
    "pre_tokenizer Metaspace, ByteLevel and Split (behavior Isolated), or a Sequence of them; decoder Replace "
    "(String), ByteFallback, Fuse, Strip, Metaspace and ByteLevel; added tokens without lstrip, rstrip or "
    "single_word";

// Reads one tokenizer.json, remembering the file for errors.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void unsupported(const std::string& what) const {
    throw MixerLabError(source_ + ": " + what + " is not supported by MixerLab's tokenizer.json reader",
                        std::string("MixerLab implements ") + kSupportedSummary +
                            "; use a tokenizer of that kind or a SentencePiece .model");
  }
  [[noreturn]] void malformed(const std::string& what) const {
    throw MixerLabError(source_ + ": malformed tokenizer.json: " + what,
                        "check that the file is a tokenizer.json saved by Hugging Face tokenizers");
  }

  std::string typeOf(const json& component, const std::string& where) const {
    if (!component.is_object() || !component.contains("type") || !component["type"].is_string()) {
      malformed(where + " has no \"type\"");
    }
    return component["type"].get<std::string>();
  }

  // {"String": "..."} -> the string; a {"Regex": ...} pattern is not implemented.
  std::string literalPattern(const json& component, const std::string& where) const {
    const json& pattern = component.at("pattern");
    if (pattern.is_object() && pattern.contains("String")) return pattern["String"].get<std::string>();
    if (pattern.is_object() && pattern.contains("Regex")) unsupported(where + " with a Regex pattern");
    malformed(where + " has no String pattern");
  }

  void readNormalizer(const json& component, std::vector<NormalizerStep>& steps) const {
    if (component.is_null()) return;
    const std::string type = typeOf(component, "normalizer");
    if (type == "Sequence") {
      for (const json& inner : component.at("normalizers")) readNormalizer(inner, steps);
    } else if (type == "Prepend") {
      steps.push_back({NormalizerStep::Kind::Prepend, "", component.at("prepend").get<std::string>()});
    } else if (type == "Replace") {
      steps.push_back({NormalizerStep::Kind::Replace, literalPattern(component, "normalizer Replace"),
                       component.at("content").get<std::string>()});
    } else {
      unsupported("normalizer type \"" + type + "\"");
    }
  }

  Metaspace readMetaspace(const json& component, const std::string& where) const {
    Metaspace metaspace;
    metaspace.replacement = component.at("replacement").get<std::string>();
    if (component.contains("prepend_scheme") && !component["prepend_scheme"].is_null()) {
      const std::string scheme = component["prepend_scheme"].get<std::string>();
      if (scheme == "always") {
        metaspace.prepend_scheme = PrependScheme::Always;
      } else if (scheme == "first") {
        metaspace.prepend_scheme = PrependScheme::First;
      } else if (scheme == "never") {
        metaspace.prepend_scheme = PrependScheme::Never;
      } else {
        unsupported(where + " Metaspace prepend_scheme \"" + scheme + "\"");
      }
    } else {  // files written before prepend_scheme existed say add_prefix_space
      const bool add_prefix_space = component.value("add_prefix_space", true);
      metaspace.prepend_scheme = add_prefix_space ? PrependScheme::Always : PrependScheme::Never;
    }
    metaspace.split = component.value("split", true);
    return metaspace;
  }

  void readPreTokenizer(const json& component, std::vector<PreTokenizerStep>& steps) const {
    if (component.is_null()) return;
    const std::string type = typeOf(component, "pre_tokenizer");
    PreTokenizerStep step;
    if (type == "Sequence") {
      for (const json& inner : component.at("pretokenizers")) readPreTokenizer(inner, steps);
      return;
    } else if (type == "Metaspace") {
      step.kind = PreTokenizerStep::Kind::Metaspace;
      step.metaspace = readMetaspace(component, "pre_tokenizer");
    } else if (type == "ByteLevel") {
      step.kind = PreTokenizerStep::Kind::ByteLevel;
      step.add_prefix_space = component.value("add_prefix_space", true);
      step.use_regex = component.value("use_regex", true);  // trim_offsets only moves offsets: not read
    } else if (type == "Split") {
      step.kind = PreTokenizerStep::Kind::Split;
      const json& pattern = component.at("pattern");
      if (pattern.is_object() && pattern.contains("Regex")) {
        step.pattern = pattern["Regex"].get<std::string>();
        step.pattern_syntax = SplitRegex::Syntax::Regex;
      } else if (pattern.is_object() && pattern.contains("String")) {
        step.pattern = pattern["String"].get<std::string>();
        step.pattern_syntax = SplitRegex::Syntax::Literal;
      } else {
        malformed("pre_tokenizer Split has neither a Regex nor a String pattern");
      }
      const std::string behavior = component.at("behavior").get<std::string>();
      // With Isolated every match and every stretch between matches is a piece, so "invert" (which swaps the
      // two) changes nothing; the other behaviours join or drop pieces and are not implemented.
      if (behavior != "Isolated") unsupported("pre_tokenizer Split behavior \"" + behavior + "\"");
    } else {
      unsupported("pre_tokenizer type \"" + type + "\"");
    }
    steps.push_back(std::move(step));
  }

  void readDecoder(const json& component, std::vector<DecoderStep>& steps) const {
    const std::string type = typeOf(component, "decoder");
    DecoderStep step;
    if (type == "Sequence") {
      for (const json& inner : component.at("decoders")) readDecoder(inner, steps);
      return;
    } else if (type == "Replace") {
      step.kind = DecoderStep::Kind::Replace;
      step.pattern = literalPattern(component, "decoder Replace");
      step.content = component.at("content").get<std::string>();
    } else if (type == "ByteFallback") {
      step.kind = DecoderStep::Kind::ByteFallback;
    } else if (type == "Fuse") {
      step.kind = DecoderStep::Kind::Fuse;
    } else if (type == "Strip") {
      step.kind = DecoderStep::Kind::Strip;
      step.content = component.at("content").get<std::string>();
      step.start = component.value("start", 0);
      step.stop = component.value("stop", 0);
    } else if (type == "Metaspace") {
      step.kind = DecoderStep::Kind::Metaspace;
      step.metaspace = readMetaspace(component, "decoder");
    } else if (type == "ByteLevel") {
      step.kind = DecoderStep::Kind::ByteLevel;  // its options concern encoding and offsets only
    } else {
      unsupported("decoder type \"" + type + "\"");
    }
    steps.push_back(std::move(step));
  }

  static bool isSet(const json& model, const char* key) {
    if (!model.contains(key)) return false;
    const json& value = model[key];
    return !(value.is_null() || (value.is_string() && value.get<std::string>().empty()) ||
             (value.is_boolean() && !value.get<bool>()) || (value.is_number() && value.get<double>() == 0.0));
  }

  void readModel(const json& model, TokenizerJson& out) const {
    const std::string type = typeOf(model, "model");
    if (type != "BPE") unsupported("model type \"" + type + "\"");
    for (const char* key : {"dropout", "continuing_subword_prefix", "end_of_word_suffix"}) {
      if (isSet(model, key)) unsupported(std::string("BPE ") + key + " " + model[key].dump());
    }
    if (model.contains("unk_token") && !model["unk_token"].is_null()) {
      out.unk_token = model["unk_token"].get<std::string>();
    }
    out.byte_fallback = model.value("byte_fallback", false);
    out.fuse_unk = model.value("fuse_unk", false);
    out.ignore_merges = model.value("ignore_merges", false);
    for (const auto& [piece, id] : model.at("vocab").items()) out.vocab.emplace_back(piece, tokenId(id, piece));
    for (const json& merge : model.at("merges")) out.merges.push_back(readMerge(merge));
  }

  // "a b" (older files) or ["a", "b"] (newer files, which allow spaces inside pieces).
  std::pair<std::string, std::string> readMerge(const json& merge) const {
    if (merge.is_array() && merge.size() == 2) return {merge[0].get<std::string>(), merge[1].get<std::string>()};
    if (merge.is_string()) {
      const std::string text = merge.get<std::string>();
      const size_t space = text.find(' ');
      if (space != std::string::npos && space > 0 && space + 1 < text.size() &&
          text.find(' ', space + 1) == std::string::npos) {
        return {text.substr(0, space), text.substr(space + 1)};
      }
    }
    malformed("merge " + merge.dump() + " is neither \"a b\" nor [\"a\", \"b\"]");
  }

  void readAddedTokens(const json& list, TokenizerJson& out) const {
    for (const json& entry : list) {
      AddedToken token;
      token.id = tokenId(entry.at("id"), "an added token");
      token.content = entry.at("content").get<std::string>();
      token.normalized = entry.value("normalized", false);
      token.special = entry.value("special", false);
      for (const char* key : {"lstrip", "rstrip", "single_word"}) {
        if (entry.value(key, false)) unsupported("added token \"" + token.content + "\" with " + key);
      }
      if (token.content.empty()) malformed("an added token has empty content");
      out.added_tokens.push_back(std::move(token));
    }
  }

 private:
  const std::string& source_;
};

}  // namespace

const char* const kSupportedTokenizerJson = kSupportedSummary;

bool looksLikeJsonObject(std::string_view bytes) {
  for (char c : bytes) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    return c == '{';
  }
  return false;
}

TokenizerJson parseTokenizerJson(std::string_view json_text, const std::string& source) {
  checkJsonDepth(json_text, source);  // deep nesting would overflow the stack when the value is walked
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 4E02000 (fuzz-found)
    throw MixerLabError(source + " is not valid JSON: " + e.what(),
                        "use a SentencePiece .model or a Hugging Face tokenizer.json");
  }
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) {
    throw MixerLabError(source + " is a JSON file without a \"model\" object, so not a Hugging Face tokenizer.json",
                        "use a SentencePiece .model or a Hugging Face tokenizer.json");
  }
  const Reader reader(source);
  TokenizerJson out;
  try {
    reader.readModel(root["model"], out);
    if (root.contains("added_tokens") && !root["added_tokens"].is_null()) {
      reader.readAddedTokens(root["added_tokens"], out);
    }
    if (root.contains("normalizer")) reader.readNormalizer(root["normalizer"], out.normalizer);
    if (root.contains("pre_tokenizer")) reader.readPreTokenizer(root["pre_tokenizer"], out.pre_tokenizer);
    if (root.contains("decoder") && !root["decoder"].is_null()) {
      out.decoder.emplace();
      reader.readDecoder(root["decoder"], *out.decoder);
    }
  } catch (const json::exception& e) {  // a missing key or a value of the wrong type
    reader.malformed(e.what());
  }
  return out;
}

}  // namespace mixerlab::hf
