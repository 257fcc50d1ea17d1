// Cosine ranking and top-k accuracy (see cosine_retrieval.h).
#include "core/analysis/retrieval/cosine_retrieval.h"

#include <algorithm>

#include <torch/torch.h>

#include "core/util/error.h"

namespace mixerlab {

std::vector<RankedMatch> rankByCosine(const at::Tensor& query, const at::Tensor& corpus, int64_t k) {
  if (corpus.dim() != 2 || query.dim() != 1 || query.size(0) != corpus.size(1)) {
    throw MixerLabError("cosine ranking needs a [D] query and an [N, D] corpus of the same D");
  }
  namespace F = torch::nn::functional;
  const auto q = F::normalize(query.to(torch::kDouble).unsqueeze(0), F::NormalizeFuncOptions().dim(1));
  const auto c = F::normalize(corpus.to(torch::kDouble), F::NormalizeFuncOptions().dim(1));
  const auto scores = torch::matmul(c, q.squeeze(0)).contiguous();  // [N]
  const auto* s = scores.data_ptr<double>();
  std::vector<int64_t> order(static_cast<size_t>(scores.size(0)));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  const size_t keep = std::min(order.size(), static_cast<size_t>(std::max<int64_t>(0, k)));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](int64_t a, int64_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
  std::vector<RankedMatch> out;
  for (size_t i = 0; i < keep; ++i) out.push_back({order[i], s[order[i]]});
  return out;
}

double topKAccuracy(const at::Tensor& scores, const std::vector<int64_t>& labels, int64_t k) {
  if (scores.dim() != 2 || scores.size(0) != static_cast<int64_t>(labels.size())) {
    throw MixerLabError("top-k accuracy needs [N, C] scores and N labels");
  }
  if (labels.empty()) return 0.0;
  const auto s = scores.to(torch::kDouble).contiguous();
  int64_t hits = 0;
  for (int64_t n = 0; n < s.size(0); ++n) {
    const auto row = s[n];
    const double truth = row[labels[static_cast<size_t>(n)]].item<double>();
    // Rank = 1 + candidates scoring at least as high, the true one excluded.
    const int64_t rank = row.ge(truth).sum().item<int64_t>();
    if (rank <= k) ++hits;
  }
  return static_cast<double>(hits) / static_cast<double>(labels.size());
}

}  // namespace mixerlab
