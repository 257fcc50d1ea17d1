// Batch checks and token tensors shared by the decoders (see decode_batch.h), and the one-sequence
// calls of TokenDecoder, which are batches of one.
#include "core/analysis/decoders/decode_batch.h"

#include <torch/torch.h>

#include "core/analysis/decoders/token_decoder.h"
#include "core/util/error.h"

namespace mixerlab {

int64_t promptBatchLength(const std::vector<std::vector<int64_t>>& prompts, const std::string& decoder) {
  if (prompts.empty()) throw MixerLabError(decoder + " decoding was given a batch of no sequences");
  const size_t length = prompts.front().size();
  if (length == 0) throw MixerLabError(decoder + " decoding needs at least one prompt token");
  for (size_t b = 1; b < prompts.size(); ++b) {
    if (prompts[b].size() != length) {
      throw MixerLabError(decoder + " decoding runs a batch in lockstep, but prompt 0 has " + std::to_string(length) +
                              " tokens and prompt " + std::to_string(b) + " has " + std::to_string(prompts[b].size()),
                          "batch prompts of one length (or decode them one at a time)");
    }
  }
  return static_cast<int64_t>(length);
}

void checkAppendBatch(const std::vector<int64_t>& ids, int64_t batch, const std::string& decoder) {
  if (static_cast<int64_t>(ids.size()) != batch) {
    throw MixerLabError(decoder + " decoding holds " + std::to_string(batch) + " sequences but was given " +
                        std::to_string(ids.size()) + " tokens to append (one per sequence)");
  }
}

void checkTokenIds(const std::vector<int64_t>& ids, int64_t vocab) {
  for (const int64_t id : ids) {
    if (id < 0 || id >= vocab) {
      throw MixerLabError("token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                          std::to_string(vocab - 1) + ")");
    }
  }
}

std::vector<int64_t> flattenPrompts(const std::vector<std::vector<int64_t>>& prompts) {
  std::vector<int64_t> flat;
  for (const auto& prompt : prompts) flat.insert(flat.end(), prompt.begin(), prompt.end());
  return flat;
}

at::Tensor tokenIdTensor(const std::vector<int64_t>& ids, int64_t batch, const c10::Device& device) {
  const auto length = static_cast<int64_t>(ids.size()) / batch;
  return torch::tensor(ids, torch::kLong).view({batch, length}).to(device);
}

at::Tensor TokenDecoder::prefill(const std::vector<int64_t>& ids) { return prefillBatch({ids}).select(0, 0); }

at::Tensor TokenDecoder::append(int64_t id) { return appendBatch({id}).select(0, 0); }

}  // namespace mixerlab
