// Small UTF-8 helpers for the Hugging Face tokenizer (hf_bpe_tokenizer.h): the BPE model starts from the
// text's code points, and the ByteFallback decoder must know whether a run of bytes is valid UTF-8.
#pragma once
#include <cstddef>
#include <string_view>

namespace mixerlab::utf8 {

// Bytes in the well-formed code point that starts at text[pos] (1 to 4), or 1 when the byte there does not
// start one, so malformed input still splits into pieces that cover every byte. pos must be < text.size().
size_t codePointLength(std::string_view text, size_t pos);

// True when `bytes` is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
bool isValid(std::string_view bytes);

}  // namespace mixerlab::utf8
