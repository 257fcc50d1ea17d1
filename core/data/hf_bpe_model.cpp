// BPE over one word with byte fallback (see hf_bpe_model.h). Merging uses a min-heap of candidate pairs
// keyed by (rank, position), so a long word (a whole document when there is no pre-tokenizer) costs
// O(n log n) rather than a rescan per merge.
#include "core/data/hf_bpe_model.h"

#include <cstdio>
#include <queue>

#include "core/data/utf8.h"
#include "core/util/error.h"

namespace mixerlab {

HfBpeModel::HfBpeModel(const hf::TokenizerJson& spec, const std::string& source)
    : byte_fallback_(spec.byte_fallback), fuse_unk_(spec.fuse_unk), ignore_merges_(spec.ignore_merges) {
  for (const auto& [piece, id] : spec.vocab) vocab_[piece] = id;
  byte_ids_.fill(-1);
  for (int byte = 0; byte < 256; ++byte) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", byte);
    if (auto it = vocab_.find(name); it != vocab_.end()) byte_ids_[byte] = it->second;
  }
  if (spec.unk_token) {
    auto it = vocab_.find(*spec.unk_token);
    if (it == vocab_.end()) {
      throw MixerLabError(source + ": the unk_token \"" + *spec.unk_token + "\" is not in the model's vocab",
                          "check the tokenizer.json");
    }
    unk_id_ = it->second;
  }
  const auto idOf = [&](const std::string& piece, size_t rank) {
    auto it = vocab_.find(piece);
    if (it == vocab_.end()) {
      throw MixerLabError(
          source + ": merge " + std::to_string(rank) + " uses \"" + piece + "\", which is not in the model's vocab",
          "check the tokenizer.json");
    }
    return it->second;
  };
  for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
    const auto& [left, right] = spec.merges[rank];
    const int result = idOf(left + right, rank);
    // A pair listed twice keeps its first (lowest) rank.
    merges_.emplace(pairKey(idOf(left, rank), idOf(right, rank)), Merge{static_cast<int>(rank), result});
  }
}

std::vector<int> HfBpeModel::initialSymbols(std::string_view word) const {
  std::vector<int> symbols;
  int pending_unknowns = 0;  // unknown characters not yet written (they fuse when fuse_unk is on)
  const auto flushUnknowns = [&]() {
    if (pending_unknowns > 0) symbols.push_back(unk_id_);
    pending_unknowns = 0;
  };
  for (size_t pos = 0; pos < word.size();) {
    const size_t length = utf8::codePointLength(word, pos);
    const std::string character(word.substr(pos, length));
    pos += length;
    if (auto it = vocab_.find(character); it != vocab_.end()) {
      flushUnknowns();
      symbols.push_back(it->second);
      continue;
    }
    if (byte_fallback_) {
      bool all_bytes_known = true;
      for (unsigned char byte : character) all_bytes_known = all_bytes_known && byte_ids_[byte] >= 0;
      if (all_bytes_known) {
        // The reference implementation writes the bytes without first writing a pending unknown token, so an
        // unknown character followed by a byte-fallback one comes out in that (swapped) order; kept for fidelity.
        for (unsigned char byte : character) symbols.push_back(byte_ids_[byte]);
        continue;
      }
    }
    if (unk_id_ < 0) continue;  // no unk_token: the character is dropped, as in the reference implementation
    if (!fuse_unk_) flushUnknowns();
    ++pending_unknowns;
  }
  flushUnknowns();
  return symbols;
}

void HfBpeModel::mergeAll(std::vector<int>& symbols) const {
  const int n = static_cast<int>(symbols.size());
  if (n < 2) return;
  // A doubly linked list over the symbol slots; a merge keeps the left slot and unlinks the right one.
  std::vector<int> prev(n), next(n);
  for (int i = 0; i < n; ++i) prev[i] = i - 1, next[i] = i + 1 < n ? i + 1 : -1;
  std::vector<bool> alive(n, true);

  struct Candidate {
    int rank, left, left_id, right_id;
    bool operator>(const Candidate& other) const { return rank != other.rank ? rank > other.rank : left > other.left; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  const auto offer = [&](int left) {
    if (left < 0 || next[left] < 0) return;
    const int right = next[left];
    auto it = merges_.find(pairKey(symbols[left], symbols[right]));
    if (it != merges_.end()) queue.push({it->second.rank, left, symbols[left], symbols[right]});
  };
  for (int i = 0; i + 1 < n; ++i) offer(i);

  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    // Skip candidates made stale by an earlier merge (a slot merged away or changed).
    if (!alive[top.left] || next[top.left] < 0) continue;
    const int right = next[top.left];
    if (symbols[top.left] != top.left_id || symbols[right] != top.right_id) continue;
    symbols[top.left] = merges_.at(pairKey(top.left_id, top.right_id)).result;
    alive[right] = false;
    next[top.left] = next[right];
    if (next[right] >= 0) prev[next[right]] = top.left;
    offer(prev[top.left]);
    offer(top.left);
  }
  std::vector<int> merged;
  for (int i = 0; i >= 0; i = next[i]) merged.push_back(symbols[i]);
  symbols = std::move(merged);
}

void HfBpeModel::encodeWord(std::string_view word, std::vector<int>& ids) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    if (auto whole = vocab_.find(std::string(word)); whole != vocab_.end()) {
      ids.push_back(whole->second);
      return;
    }
  }
  std::vector<int> symbols = initialSymbols(word);
  mergeAll(symbols);
  ids.insert(ids.end(), symbols.begin(), symbols.end());
}

}  // namespace mixerlab
