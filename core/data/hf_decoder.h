// The decoder of a Hugging Face tokenizer.json (see hf_tokenizer_json.h): turns the token strings of a list
// of ids back into text, e.g. the Llama chain Replace "▁" -> " ", ByteFallback (runs of <0xNN> pieces become
// their bytes, or one U+FFFD per byte when the run is not valid UTF-8), Fuse, Strip one leading space; or the
// byte-level ByteLevel (hf_byte_level.h: characters back to bytes, ill-formed UTF-8 as U+FFFD).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/hf_tokenizer_json.h"

namespace mixerlab::hf {

// Runs `steps` over `tokens` and concatenates the result; without a decoder the tokens are joined with spaces.
std::string decodeTokens(const std::optional<std::vector<DecoderStep>>& steps, std::vector<std::string> tokens);

// `text` with every `pattern` replaced by `content` (an empty pattern replaces nothing).
std::string replaceAll(std::string_view text, std::string_view pattern, std::string_view content);

}  // namespace mixerlab::hf
