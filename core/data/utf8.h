// Small UTF-8 helpers: the Hugging Face tokenizer (hf_bpe_tokenizer.h) starts its BPE from the text's code
// points, its ByteFallback decoder must know whether a run of bytes is valid UTF-8 and its ByteLevel decoder
// repairs bytes that are not; the corpus reader refuses a corpus that is not UTF-8 at its first bad byte;
// the tokenizer trainer's input check (tokenizer_trainer_input.h) counts code points.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace mixerlab::utf8 {

// Bytes in the well-formed code point that starts at text[pos] (1 to 4), or 1 when the byte there does not
// start one, so malformed input still splits into pieces that cover every byte. pos must be < text.size().
size_t codePointLength(std::string_view text, size_t pos);

// The code point of the well-formed sequence of `length` = codePointLength(text, pos) bytes at text[pos]
// (for length 1, the byte itself).
char32_t codePointAt(std::string_view text, size_t pos, size_t length);

// The UTF-8 bytes of a code point below U+110000 (surrogates are not checked).
std::string fromCodePoint(char32_t code_point);

// True when `bytes` is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
bool isValid(std::string_view bytes);

// `bytes` with each ill-formed stretch replaced by U+FFFD, one per "maximal subpart" (a lead byte and the
// continuation bytes that still fit it, or a lone byte that cannot start a sequence), as Unicode recommends
// and as Rust's String::from_utf8_lossy (so Hugging Face tokenizers' decoders) does: "\xE7\x8C" gives one
// U+FFFD, "\xE0\x80" two.
std::string toValidLossy(std::string_view bytes);

// Offset of the first byte that does not start a well-formed sequence, or std::string_view::npos.
size_t firstInvalidByte(std::string_view bytes);

}  // namespace mixerlab::utf8
