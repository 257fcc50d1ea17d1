// Cosine ranking and top-k accuracy (see cosine_retrieval.h).
#include "core/analysis/retrieval/cosine_retrieval.h"

#include <algorithm>

#include <torch/torch.h>

#include "core/util/error.h"

namespace mixerlab {

at::Tensor cosineScores(const at::Tensor& query, const at::Tensor& corpus) {
  if (corpus.dim() != 2 || query.dim() != 1 || query.size(0) != corpus.size(1)) {
    throw MixerLabError("cosine ranking needs a [D] query and an [N, D] corpus of the same D");
  }
  namespace F = torch::nn::functional;
  const auto q = F::normalize(query.to(torch::kDouble).unsqueeze(0), F::NormalizeFuncOptions().dim(1));
  const auto c = F::normalize(corpus.to(torch::kDouble), F::NormalizeFuncOptions().dim(1));
  return torch::matmul(c, q.squeeze(0)).contiguous();  // [N]
}

namespace {
// Best first; equal scores keep corpus order, so a ranking is the same on every run.
bool ranksBefore(const double* s, int64_t a, int64_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); }
}  // namespace

std::vector<RankedMatch> topMatches(const at::Tensor& scores, int64_t k) {
  const auto s_tensor = scores.to(torch::kDouble).contiguous();
  const auto* s = s_tensor.data_ptr<double>();
  std::vector<int64_t> order(static_cast<size_t>(s_tensor.size(0)));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  const size_t keep = std::min(order.size(), static_cast<size_t>(std::max<int64_t>(0, k)));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](int64_t a, int64_t b) { return ranksBefore(s, a, b); });
  std::vector<RankedMatch> out;
  for (size_t i = 0; i < keep; ++i) out.push_back({order[i], s[order[i]]});
  return out;
}

int64_t rankOf(const at::Tensor& scores, int64_t index) {
  const auto s_tensor = scores.to(torch::kDouble).contiguous();
  const int64_t n = s_tensor.size(0);
  if (index < 0 || index >= n)
    throw MixerLabError("rankOf: row " + std::to_string(index) + " is outside 0.." + std::to_string(n - 1));
  const auto* s = s_tensor.data_ptr<double>();
  int64_t before = 0;
  for (int64_t i = 0; i < n; ++i) before += ranksBefore(s, i, index) ? 1 : 0;
  return before + 1;
}

std::vector<RankedMatch> rankByCosine(const at::Tensor& query, const at::Tensor& corpus, int64_t k) {
  return topMatches(cosineScores(query, corpus), k);
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
