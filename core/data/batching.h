// Turns a token cache into training/eval batches: a deterministic train/eval document split, fixed-length
// examples (padded per document, or packed across documents), a resumable shuffled batch order and a
// background prefetcher. Everything is deterministic given the seeds, so a run resumed from a saved
// DataPosition sees exactly the batches it would have seen without the interruption.
//
// Lifetimes: ExampleSet keeps a pointer to its TokenCache, and BatchIterator / PrefetchingLoader keep a
// pointer to their ExampleSet; each must outlive what is built on it.
#pragma once
#include <ATen/core/Tensor.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/data/token_cache.h"

namespace mixerlab {

enum class BatchMode { Padded, Packed, Chunked };
BatchMode parseBatchMode(const std::string& name);  // "padded" / "packed" / "chunked"; else MixerLabError
std::string batchModeName(BatchMode mode);

enum class PaddingSide { Left, Right };
PaddingSide parsePaddingSide(const std::string& name);  // "left" / "right"; else MixerLabError
std::string paddingSideName(PaddingSide side);

enum class PackSeparator { None, Eos };
PackSeparator parsePackSeparator(const std::string& name);  // "none" / "eos"; else MixerLabError
std::string packSeparatorName(PackSeparator separator);

// Defaults: the research's TinyStories layout (left padding, pad = eos = 2, no pack separator).
struct BatchingSettings {
  int64_t context_length = 512;  // tokens per example (T)
  int64_t batch_size = 16;       // examples per batch (B)
  BatchMode mode = BatchMode::Padded;
  PaddingSide padding_side = PaddingSide::Left;
  int pad_id = 2;  // padded mode: the id of pad positions; every position holding it gets label -100
  int eos_id = 2;  // the separator of packed documents when pack_separator is Eos
  PackSeparator pack_separator = PackSeparator::None;
};

constexpr int64_t kIgnoreLabel = -100;  // label of positions that carry no target (pads)

struct Batch {
  at::Tensor input_ids;           // [B, T] int64
  at::Tensor labels;              // [B, T] int64: input_ids with pad positions set to -100 (NOT shifted; models shift)
  int64_t num_tokens = 0;         // B * T
  int64_t num_target_tokens = 0;  // positions whose label != -100
};

// Deterministic split: document i goes to eval iff a hash of (split_seed, i) maps below eval_fraction.
// Returns {train, eval} document indices, each ascending. eval_fraction must lie in [0, 1]; 0 -> all train.
std::pair<std::vector<size_t>, std::vector<size_t>> splitDocuments(size_t num_documents, double eval_fraction,
                                                                   uint64_t split_seed);
// That rule for one document (so a stream of documents can be split without counting them first).
bool isEvalDocument(size_t document, double eval_fraction, uint64_t split_seed);

// A fixed list of examples of exactly context_length tokens from some of a cache's documents.
// Padded: one example per document with at least one token, truncated to T (beginning kept) and padded
// with pad_id on the configured side; as in HF's DataCollatorForLanguageModeling, every position whose
// id equals pad_id gets label -100 (with pad = eos that includes a real eos inside the document).
// With left padding a row shorter than T starts with pads, so its first token is a target (scored
// from the last pad); with right padding it sits at position 0 and is never a target.
// Packed: the documents in the given order, each followed by eos_id when pack_separator is Eos (none
// follows with None: documents are concatenated directly, as in the research), cut into
// floor(length / T) rows (remainder dropped); no pads, no -100 labels.
// Chunked (blog II's Fineweb layout): each document on its own is cut into floor(length / T) rows, its
// remainder dropped; rows never span two documents; no pads, no -100 labels.
class ExampleSet {
 public:
  ExampleSet(const TokenCache& cache, std::vector<size_t> doc_indices, BatchingSettings settings);
  int64_t numExamples() const { return num_examples_; }
  // Writes T input ids and T labels for one example.
  void fill(int64_t example, int64_t* input_ids_out, int64_t* labels_out) const;
  // Stacks the given examples into one batch (rows in the given order).
  Batch batch(const std::vector<int64_t>& examples) const;
  const BatchingSettings& settings() const { return settings_; }

 private:
  void fillPacked(int64_t example, int64_t* input_ids_out) const;

  const TokenCache* cache_;
  std::vector<size_t> doc_indices_;    // padded: the documents with at least one token
  std::vector<int64_t> packed_start_;  // packed: start of document k in the stream; back() = stream length
  std::vector<int64_t> chunk_start_;   // chunked: first row of document k; back() = number of rows
  BatchingSettings settings_;
  int64_t num_examples_ = 0;
};

// Where the data stream stands: index = offset of the next example within the epoch's order.
struct DataPosition {
  int64_t epoch = 0;
  int64_t index = 0;
};

// This process's part of every batch in a data-parallel job: rank r of W takes rows
// [r*B/W, (r+1)*B/W) of each global batch of B rows (B divisible by W), so the global batch and the
// data order are those of a single process whatever the world size.
struct BatchShard {
  int rank = 0, world_size = 1;
};

// Full batches in a per-epoch order: a Fisher-Yates permutation driven by std::mt19937_64 seeded from
// (seed, epoch), or the identity when shuffle is false. When fewer than batch_size examples remain, the
// next epoch starts. Throws MixerLabError if the set has fewer examples than one batch.
class BatchIterator {
 public:
  BatchIterator(const ExampleSet& examples, uint64_t seed, bool shuffle, DataPosition start, BatchShard shard = {});
  Batch next();
  DataPosition position() const { return position_; }  // of the NEXT batch; resuming from it is exact

 private:
  void skipPartialBatch();
  const std::vector<int64_t>& order();

  const ExampleSet* examples_;
  uint64_t seed_;
  bool shuffle_;
  BatchShard shard_;
  DataPosition position_;
  std::vector<int64_t> order_;
  int64_t order_epoch_ = -1;
};

// A BatchIterator running on a background thread, keeping up to `depth` batches ready. next() returns a
// batch and the position after it (save that one to resume). Errors in the thread are rethrown by next().
// The destructor stops and joins the thread, also while it waits on a full queue.
class PrefetchingLoader {
 public:
  PrefetchingLoader(const ExampleSet& examples, uint64_t seed, bool shuffle, DataPosition start, int depth = 4,
                    BatchShard shard = {});
  ~PrefetchingLoader();
  PrefetchingLoader(const PrefetchingLoader&) = delete;
  PrefetchingLoader& operator=(const PrefetchingLoader&) = delete;
  std::pair<Batch, DataPosition> next();

 private:
  void run();

  BatchIterator iterator_;
  size_t depth_;
  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<std::pair<Batch, DataPosition>> ready_;
  std::exception_ptr error_;
  bool stop_ = false;
  std::thread thread_;  // last: started once everything above exists
};

// Sequential eval batches over all examples in order (the last may be smaller); max_batches <= 0 -> all.
std::vector<Batch> makeEvalBatches(const ExampleSet& examples, int64_t batch_size, int64_t max_batches);

}  // namespace mixerlab
