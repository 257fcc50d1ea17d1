// The checks and tensors every decoder needs for a batch of sequences decoded in lockstep (issue
// Decoding at batch 16 on a GPU). A batch starts from prompts of one length and grows by one
// token per sequence per step, so every sequence sits at the same position: caches, windows and
// recurrent states are the batch-1 ones with a leading batch dimension, and no sequence needs a mask.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace mixerlab {

// The prompts' common length. Throws MixerLabError naming `decoder` for an empty batch, an empty
// prompt or prompts of different lengths.
int64_t promptBatchLength(const std::vector<std::vector<int64_t>>& prompts, const std::string& decoder);

// Throws MixerLabError unless `ids` holds one token per sequence of a batch of `batch`.
void checkAppendBatch(const std::vector<int64_t>& ids, int64_t batch, const std::string& decoder);

// Throws MixerLabError naming the first id outside 0..vocab-1 (an embedding lookup would index past
// its table).
void checkTokenIds(const std::vector<int64_t>& ids, int64_t vocab);

// The prompts row after row (prompt b's tokens at b * length ..).
std::vector<int64_t> flattenPrompts(const std::vector<std::vector<int64_t>>& prompts);

// ids (batch * length, row-major) as a [batch, length] int64 tensor on `device`.
at::Tensor tokenIdTensor(const std::vector<int64_t>& ids, int64_t batch, const c10::Device& device);

}  // namespace mixerlab
