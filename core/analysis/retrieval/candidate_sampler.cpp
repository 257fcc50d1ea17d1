// Algorithm-1 candidate sampling (see candidate_sampler.h).
#include "core/analysis/retrieval/candidate_sampler.h"

#include <string>
#include <unordered_map>

#include "core/util/error.h"
#include "core/util/random_index.h"

namespace mixerlab {
CandidateSample sampleCandidates(size_t query, size_t targets, int64_t context, std::mt19937_64& rng,
                                 bool with_replacement) {
  if (context < 2)
    throw MixerLabError("retrieval context must be >= 2 (a query and a candidate), got " + std::to_string(context));
  const size_t slots = static_cast<size_t>(context - 1);
  if (query >= targets) throw MixerLabError("query " + std::to_string(query) + " has no target");
  if (targets < 2 || (!with_replacement && targets - 1 < slots)) {
    throw MixerLabError("retrieval context " + std::to_string(context) + " needs at least " + std::to_string(context) +
                            " stories, have " + std::to_string(targets),
                        "use a smaller context or more stories");
  }
  CandidateSample s;
  s.query = query;
  // Draws over the targets other than `query`: index i maps to i, or i + 1 from the query on.
  auto other = [&](size_t i) { return i < query ? i : i + 1; };
  if (with_replacement) {
    for (size_t k = 0; k < slots; ++k) s.candidates.push_back(other(uniformIndex(rng, targets - 1)));
  } else {
    // Partial Fisher-Yates over the targets-1 others, touching only the slots drawn.
    std::unordered_map<size_t, size_t> swapped;
    const size_t pool = targets - 1;
    for (size_t k = 0; k < slots; ++k) {
      const size_t j = k + uniformIndex(rng, pool - k);
      const size_t at_j = swapped.count(j) ? swapped[j] : j;
      const size_t at_k = swapped.count(k) ? swapped[k] : k;
      swapped[j] = at_k;
      s.candidates.push_back(other(at_j));
    }
  }
  // The positive overwrites slot m in 1..c-1 of [query, candidates...]: label m-1.
  s.label = static_cast<int64_t>(uniformIndex(rng, slots));
  s.candidates[static_cast<size_t>(s.label)] = query;
  return s;
}

}  // namespace mixerlab
