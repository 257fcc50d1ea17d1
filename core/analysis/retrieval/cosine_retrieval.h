// Retrieval by cosine similarity (docs/retrieval.md) and the accuracy measures (docs/retrieval.md): rank a corpus of
// embeddings against a query in one matrix product, and count top-k hits over candidate sets.
#pragma once
#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace mixerlab {

struct RankedMatch {
  int64_t index = 0;  // row of the corpus
  double score = 0;   // cosine similarity
};

// query [D] against corpus [N, D]: the k best rows, best first (ties by lower index).
std::vector<RankedMatch> rankByCosine(const at::Tensor& query, const at::Tensor& corpus, int64_t k);
// The parts of rankByCosine: the [N] cosines of a [D] query with an [N, D] corpus (float64), the k
// best rows of any [N] scores, and the 1-based rank of one row under that same order.
at::Tensor cosineScores(const at::Tensor& query, const at::Tensor& corpus);
std::vector<RankedMatch> topMatches(const at::Tensor& scores, int64_t k);
int64_t rankOf(const at::Tensor& scores, int64_t index);

// scores [N, C] (higher = better), labels[n] = the true candidate of row n: the fraction of rows
// whose true candidate is among their k highest scores (k = 1: top-1 accuracy). A tie with the true
// candidate's score counts against it, so constant scores never look accurate.
double topKAccuracy(const at::Tensor& scores, const std::vector<int64_t>& labels, int64_t k);

}  // namespace mixerlab
