// The byte-to-character table of byte-level BPE (GPT-2, Llama-3 and the tokenizer.json files derived from
// them). Each of the 256 byte values stands for one printable character, so any text becomes a string of
// characters a BPE vocabulary of 256 base pieces covers, and whitespace and control bytes become visible
// (a space is "Ġ", U+0120; a newline "Ċ", U+010A).
//
// The rule: the bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF stand for the code point of the same number; the
// other 68 bytes (0x00..0x20, 0x7F..0xA0, 0xAD), in increasing order, stand for U+0100, U+0101, ...
#pragma once
#include <string>
#include <string_view>

namespace mixerlab::hf {

// The code point byte `value` stands for.
char32_t byteLevelCodePoint(unsigned char value);

// `bytes` with every byte replaced by the UTF-8 of its character.
std::string toByteLevel(std::string_view bytes);

// Appends the bytes a token string stands for: when each of its characters is one of the table's 256,
// their bytes; otherwise (an added token such as "<|end of text|>" with a plain space) the token's own
// bytes. Token strings are UTF-8; the result may not be, until it is joined with its neighbours.
void appendByteLevelBytes(std::string_view token, std::string& bytes);

}  // namespace mixerlab::hf
