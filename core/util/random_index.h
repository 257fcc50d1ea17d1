// A uniform index in [0, n) from a 64-bit Mersenne Twister, by rejection of the biased tail. Used
// instead of std::uniform_int_distribution, whose output differs between standard libraries, so
// seeded data (synthetic stories, retrieval candidate sets) is the same on every machine.
#pragma once
#include <cstdint>
#include <random>

namespace mixerlab {

inline size_t uniformIndex(std::mt19937_64& rng, size_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x = rng();
  while (x >= limit) x = rng();
  return static_cast<size_t>(x % n);
}

}  // namespace mixerlab
