// Decoder steps of a Hugging Face tokenizer.json (see hf_decoder.h). Each step maps the list of token
// strings to a new list, as the format describes; the final list is concatenated.
#include "core/data/hf_decoder.h"

#include "core/data/hf_byte_level.h"
#include "core/data/utf8.h"
#include "core/util/text.h"

namespace mixerlab::hf {
namespace {

// <0xNN> -> the byte, or -1 when the token is not a byte piece.
int bytePieceValue(const std::string& token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return -1;
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  const int high = hex(token[3]), low = hex(token[4]);
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

std::vector<std::string> byteFallback(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  std::string bytes;
  size_t byte_tokens = 0;
  const auto flush = [&]() {
    if (byte_tokens == 0) return;
    if (utf8::isValid(bytes)) {
      out.push_back(bytes);
    } else {
      for (size_t k = 0; k < byte_tokens; ++k) out.push_back("\xEF\xBF\xBD");  // U+FFFD per byte piece
    }
    bytes.clear();
    byte_tokens = 0;
  };
  for (const std::string& token : tokens) {
    const int value = bytePieceValue(token);
    if (value >= 0) {
      bytes.push_back(static_cast<char>(value));
      ++byte_tokens;
    } else {
      flush();
      out.push_back(token);
    }
  }
  flush();
  return out;
}

std::string strip(const std::string& token, const std::string& content, int start, int stop) {
  if (content.empty()) return token;
  size_t begin = 0, end = token.size();
  for (int k = 0; k < start && startsWith(std::string_view(token).substr(begin, end - begin), content); ++k) {
    begin += content.size();
  }
  for (int k = 0;
       k < stop && end - begin >= content.size() && token.compare(end - content.size(), content.size(), content) == 0;
       ++k) {
    end -= content.size();
  }
  return token.substr(begin, end - begin);
}

// Every replacement character becomes a space, except in the first token when a prefix was prepended.
std::vector<std::string> metaspace(const std::vector<std::string>& tokens, const Metaspace& m) {
  std::vector<std::string> out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool drop = i == 0 && m.prepend_scheme != PrependScheme::Never;
    out.push_back(replaceAll(tokens[i], m.replacement, drop ? "" : " "));
  }
  return out;
}

}  // namespace

std::string replaceAll(std::string_view text, std::string_view pattern, std::string_view content) {
  if (pattern.empty()) return std::string(text);
  std::string out;
  size_t pos = 0;
  for (size_t found = text.find(pattern); found != std::string_view::npos; found = text.find(pattern, pos)) {
    out.append(text.substr(pos, found - pos)).append(content);
    pos = found + pattern.size();
  }
  out.append(text.substr(pos));
  return out;
}

std::string decodeTokens(const std::optional<std::vector<DecoderStep>>& steps, std::vector<std::string> tokens) {
  std::string text;
  if (!steps) {
    for (size_t i = 0; i < tokens.size(); ++i) text += (i ? " " : "") + tokens[i];
    return text;
  }
  for (const DecoderStep& step : *steps) {
    switch (step.kind) {
      case DecoderStep::Kind::Replace:
        for (auto& token : tokens) token = replaceAll(token, step.pattern, step.content);
        break;
      case DecoderStep::Kind::ByteFallback:
        tokens = byteFallback(tokens);
        break;
      case DecoderStep::Kind::Fuse: {
        std::string fused;
        for (const auto& token : tokens) fused += token;
        tokens = {fused};
        break;
      }
      case DecoderStep::Kind::Strip:
        for (auto& token : tokens) token = strip(token, step.content, step.start, step.stop);
        break;
      case DecoderStep::Kind::Metaspace:
        tokens = metaspace(tokens, step.metaspace);
        break;
      case DecoderStep::Kind::ByteLevel: {
        // All tokens at once: a character split over two tokens is whole only when their bytes are joined.
        std::string bytes;
        for (const auto& token : tokens) appendByteLevelBytes(token, bytes);
        tokens = {utf8::toValidLossy(bytes)};
        break;
      }
    }
  }
  for (const auto& token : tokens) text += token;
  return text;
}

}  // namespace mixerlab::hf
