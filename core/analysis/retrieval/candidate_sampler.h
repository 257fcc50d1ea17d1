// The retrieval model's training samples (docs/retrieval.md, the research's Algorithm 1 as coded): for query n,
// draw c-1 candidate targets from every target except n's own, then overwrite one uniformly chosen
// slot with n's target. So each sample holds exactly one positive and c-2 negatives that are never
// the query's own story; negatives are drawn afresh every time (every epoch). Pure C++ so it is
// tested exactly, with a seeded generator.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

namespace mixerlab {

struct CandidateSample {
  size_t query = 0;
  std::vector<size_t> candidates;  // c-1 target indices; candidates[label] == query (the positive)
  int64_t label = 0;               // the positive's slot among the candidates, 0..c-2
};

// `targets`: how many targets there are (query n's own target is index n); `context` = c (query +
// c-1 candidates). Without replacement the negatives are distinct (needs targets >= c); with
// replacement (the research's "sampled with replacement" runs) they may repeat. Throws
// MixerLabError when there are too few targets.
CandidateSample sampleCandidates(size_t query, size_t targets, int64_t context, std::mt19937_64& rng,
                                 bool with_replacement = false);

}  // namespace mixerlab
