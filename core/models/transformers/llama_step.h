// The Llama family's one-token step over KV caches (incremental_stack.h), and its cached attention
// block, which the Transfixer's step shares.
#pragma once

#include <memory>

#include "core/models/incremental_stack.h"
#include "core/models/transformers/llama_transformer.h"

namespace mixerlab {

// Rotary q and k, attention over the cache at `where`, output projection: [B, L, D] -> [B, L, D].
at::Tensor llamaCachedAttention(LlamaAttentionImpl& attn, KvCache& cache, RotaryTables& rotary, const at::Tensor& x,
                                int64_t heads, const RowPosition& where);

std::unique_ptr<IncrementalStack> makeLlamaStack(LanguageModel& model);  // model: a LlamaTransformer

}  // namespace mixerlab
