// Train/eval split, fixed-length examples, resumable batch order and prefetching (see batching.h).
#include "core/data/batching.h"

#include <torch/torch.h>

#include <algorithm>
#include <random>

#include "core/util/enum_names.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {

namespace {

// FNV-1a of two 64-bit values followed by the splitmix64 finaliser, so neighbouring inputs spread evenly.
uint64_t hashPair(uint64_t a, uint64_t b) {
  Fnv1aHasher hasher;
  hasher.update(&a, sizeof a);
  hasher.update(&b, sizeof b);
  uint64_t z = hasher.digest();
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Identity, or a Fisher-Yates shuffle written out (std::shuffle differs between standard libraries).
std::vector<int64_t> epochOrder(int64_t n, uint64_t seed, int64_t epoch, bool shuffle) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  if (!shuffle) return order;
  std::mt19937_64 rng(hashPair(seed, static_cast<uint64_t>(epoch)));
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(rng() % static_cast<uint64_t>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  return order;
}

}  // namespace

namespace {
constexpr EnumName<BatchMode> kBatchModeNames[] = {
    {BatchMode::Padded, "padded"}, {BatchMode::Packed, "packed"}, {BatchMode::Chunked, "chunked"}};
}  // namespace

BatchMode parseBatchMode(const std::string& name) {
  if (const auto mode = enumFromName(kBatchModeNames, name)) return *mode;
  throw MixerLabError("unknown batch mode \"" + name + "\"", "use \"padded\", \"packed\" or \"chunked\"");
}

std::string batchModeName(BatchMode mode) { return enumName(kBatchModeNames, mode, "padded"); }

PaddingSide parsePaddingSide(const std::string& name) {
  if (name == "left") return PaddingSide::Left;
  if (name == "right") return PaddingSide::Right;
  throw MixerLabError("unknown padding side \"" + name + "\"", "use \"left\" or \"right\"");
}

std::string paddingSideName(PaddingSide side) { return side == PaddingSide::Left ? "left" : "right"; }

PackSeparator parsePackSeparator(const std::string& name) {
  if (name == "none") return PackSeparator::None;
  if (name == "eos") return PackSeparator::Eos;
  throw MixerLabError("unknown pack separator \"" + name + "\"", "use \"none\" or \"eos\"");
}

std::string packSeparatorName(PackSeparator separator) { return separator == PackSeparator::Eos ? "eos" : "none"; }

std::pair<std::vector<size_t>, std::vector<size_t>> splitDocuments(size_t num_documents, double eval_fraction,
                                                                   uint64_t split_seed) {
  if (!(eval_fraction >= 0.0 && eval_fraction <= 1.0)) {
    throw MixerLabError("eval fraction " + std::to_string(eval_fraction) + " is outside [0, 1]",
                        "use a fraction such as 0.05 (or 0 to train on every document)");
  }
  std::pair<std::vector<size_t>, std::vector<size_t>> split;
  for (size_t i = 0; i < num_documents; ++i) {
    (isEvalDocument(i, eval_fraction, split_seed) ? split.second : split.first).push_back(i);
  }
  return split;
}

bool isEvalDocument(size_t document, double eval_fraction, uint64_t split_seed) {
  const double u = static_cast<double>(hashPair(split_seed, document) >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  return u < eval_fraction;
}

ExampleSet::ExampleSet(const TokenCache& cache, std::vector<size_t> doc_indices, BatchingSettings settings)
    : cache_(&cache), settings_(settings) {
  if (settings_.context_length < 2) {
    throw MixerLabError("context length " + std::to_string(settings_.context_length) + " is too short",
                        "use a context length of at least 2 tokens");
  }
  if (settings_.batch_size < 1) {
    throw MixerLabError("batch size " + std::to_string(settings_.batch_size) + " must be at least 1");
  }
  for (size_t doc : doc_indices) {
    if (doc >= cache.numDocuments()) {
      throw MixerLabError("document " + std::to_string(doc) + " is not in token cache " + cache.path().string() + " (" +
                              std::to_string(cache.numDocuments()) + " documents)",
                          "delete the cache to rebuild it");
    }
  }
  const int64_t T = settings_.context_length;
  if (settings_.mode == BatchMode::Padded) {
    for (size_t doc : doc_indices) {
      if (cache.document(doc).size > 0) doc_indices_.push_back(doc);
    }
    num_examples_ = static_cast<int64_t>(doc_indices_.size());
  } else if (settings_.mode == BatchMode::Chunked) {
    doc_indices_ = std::move(doc_indices);
    chunk_start_.reserve(doc_indices_.size() + 1);
    chunk_start_.push_back(0);
    for (size_t doc : doc_indices_) {
      chunk_start_.push_back(chunk_start_.back() + static_cast<int64_t>(cache.document(doc).size) / T);
    }
    num_examples_ = chunk_start_.back();
  } else {
    doc_indices_ = std::move(doc_indices);
    const int64_t separator = settings_.pack_separator == PackSeparator::Eos ? 1 : 0;
    packed_start_.reserve(doc_indices_.size() + 1);
    packed_start_.push_back(0);
    for (size_t doc : doc_indices_) {
      packed_start_.push_back(packed_start_.back() + static_cast<int64_t>(cache.document(doc).size) + separator);
    }
    num_examples_ = packed_start_.back() / T;
  }
}

void ExampleSet::fill(int64_t example, int64_t* input_ids_out, int64_t* labels_out) const {
  if (example < 0 || example >= num_examples_) {
    throw std::out_of_range("example " + std::to_string(example) + " of " + std::to_string(num_examples_));
  }
  const int64_t T = settings_.context_length;
  if (settings_.mode == BatchMode::Chunked) {
    // Row j of document k: its tokens [j*T, (j+1)*T).
    const auto k = static_cast<size_t>(std::upper_bound(chunk_start_.begin(), chunk_start_.end(), example) -
                                       chunk_start_.begin() - 1);
    const TokenSpan tokens = cache_->document(doc_indices_[k]);
    const auto first = static_cast<size_t>((example - chunk_start_[k]) * T);
    for (int64_t t = 0; t < T; ++t) input_ids_out[t] = tokens[first + static_cast<size_t>(t)];
    std::copy(input_ids_out, input_ids_out + T, labels_out);
    return;
  }
  if (settings_.mode == BatchMode::Packed) {
    fillPacked(example, input_ids_out);
    std::copy(input_ids_out, input_ids_out + T, labels_out);
    return;
  }
  const TokenSpan tokens = cache_->document(doc_indices_[static_cast<size_t>(example)]);
  const int64_t n = std::min<int64_t>(T, static_cast<int64_t>(tokens.size));
  const int64_t first = settings_.padding_side == PaddingSide::Left ? T - n : 0;  // where the tokens start
  for (int64_t t = 0; t < T; ++t) {
    const bool is_token = t >= first && t < first + n;
    input_ids_out[t] = is_token ? tokens[static_cast<size_t>(t - first)] : settings_.pad_id;
    // HF's collator rule: the id decides, so a real token equal to the pad id is no target either.
    labels_out[t] = input_ids_out[t] == settings_.pad_id ? kIgnoreLabel : input_ids_out[t];
  }
}

void ExampleSet::fillPacked(int64_t example, int64_t* input_ids_out) const {
  const int64_t T = settings_.context_length;
  int64_t pos = example * T;  // position in the concatenated stream
  // The document holding `pos`: the last k with packed_start_[k] <= pos.
  size_t k =
      static_cast<size_t>(std::upper_bound(packed_start_.begin(), packed_start_.end(), pos) - packed_start_.begin()) -
      1;
  for (int64_t t = 0; t < T; ++t, ++pos) {
    while (pos >= packed_start_[k + 1]) ++k;
    const int64_t offset = pos - packed_start_[k];
    const TokenSpan tokens = cache_->document(doc_indices_[k]);
    // Past the document's tokens only when a separator follows it (empty documents are skipped above).
    input_ids_out[t] =
        offset < static_cast<int64_t>(tokens.size) ? tokens[static_cast<size_t>(offset)] : settings_.eos_id;
  }
}

Batch ExampleSet::batch(const std::vector<int64_t>& examples) const {
  const auto B = static_cast<int64_t>(examples.size());
  const int64_t T = settings_.context_length;
  Batch batch;
  batch.input_ids = torch::empty({B, T}, torch::kInt64);
  batch.labels = torch::empty({B, T}, torch::kInt64);
  int64_t* ids = batch.input_ids.data_ptr<int64_t>();
  int64_t* labels = batch.labels.data_ptr<int64_t>();
  for (int64_t b = 0; b < B; ++b) fill(examples[static_cast<size_t>(b)], ids + b * T, labels + b * T);
  batch.num_tokens = B * T;
  batch.num_target_tokens =
      static_cast<int64_t>(std::count_if(labels, labels + B * T, [](int64_t l) { return l != kIgnoreLabel; }));
  return batch;
}

BatchIterator::BatchIterator(const ExampleSet& examples, uint64_t seed, bool shuffle, DataPosition start,
                             BatchShard shard)
    : examples_(&examples), seed_(seed), shuffle_(shuffle), shard_(shard), position_(start) {
  const int64_t B = examples.settings().batch_size;
  if (shard.world_size < 1 || shard.rank < 0 || shard.rank >= shard.world_size || B % shard.world_size != 0) {
    throw MixerLabError("train.batch_size " + std::to_string(B) + " cannot be split evenly over " +
                            std::to_string(shard.world_size) + " data-parallel ranks",
                        "use a batch size divisible by the number of ranks (batch_size is the global batch)");
  }
  if (examples.numExamples() < B) {
    throw MixerLabError(
        "only " + std::to_string(examples.numExamples()) + " examples for a batch size of " + std::to_string(B),
        "use a smaller batch size or context length, or more data");
  }
  if (position_.epoch < 0 || position_.index < 0) {
    throw MixerLabError("data position (epoch " + std::to_string(position_.epoch) + ", index " +
                            std::to_string(position_.index) + ") is negative",
                        "resume from a checkpoint written by MixerLab, or start from epoch 0, index 0");
  }
  skipPartialBatch();
}

void BatchIterator::skipPartialBatch() {
  if (position_.index + examples_->settings().batch_size > examples_->numExamples()) {
    position_ = {position_.epoch + 1, 0};
  }
}

const std::vector<int64_t>& BatchIterator::order() {
  if (order_epoch_ != position_.epoch) {
    order_ = epochOrder(examples_->numExamples(), seed_, position_.epoch, shuffle_);
    order_epoch_ = position_.epoch;
  }
  return order_;
}

Batch BatchIterator::next() {
  const int64_t B = examples_->settings().batch_size;
  const int64_t rows = B / shard_.world_size;  // this rank's share of the global batch
  const auto first = order().begin() + position_.index + shard_.rank * rows;
  Batch batch = examples_->batch(std::vector<int64_t>(first, first + rows));
  position_.index += B;
  skipPartialBatch();
  return batch;
}

PrefetchingLoader::PrefetchingLoader(const ExampleSet& examples, uint64_t seed, bool shuffle, DataPosition start,
                                     int depth, BatchShard shard)
    : iterator_(examples, seed, shuffle, start, shard), depth_(static_cast<size_t>(std::max(1, depth))) {
  thread_ = std::thread([this] { run(); });
}

PrefetchingLoader::~PrefetchingLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  not_full_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PrefetchingLoader::run() {
  while (true) {
    std::pair<Batch, DataPosition> item;
    try {
      item.first = iterator_.next();
      item.second = iterator_.position();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
      not_empty_.notify_all();
      return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [this] { return stop_ || ready_.size() < depth_; });
    if (stop_) return;
    ready_.push_back(std::move(item));
    not_empty_.notify_one();
  }
}

std::pair<Batch, DataPosition> PrefetchingLoader::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  not_empty_.wait(lock, [this] { return !ready_.empty() || error_ != nullptr; });
  if (ready_.empty()) std::rethrow_exception(error_);
  std::pair<Batch, DataPosition> item = std::move(ready_.front());
  ready_.pop_front();
  not_full_.notify_one();
  return item;
}

std::vector<Batch> makeEvalBatches(const ExampleSet& examples, int64_t batch_size, int64_t max_batches) {
  if (batch_size < 1) throw MixerLabError("eval batch size " + std::to_string(batch_size) + " must be at least 1");
  std::vector<Batch> batches;
  for (int64_t first = 0; first < examples.numExamples(); first += batch_size) {
    if (max_batches > 0 && static_cast<int64_t>(batches.size()) >= max_batches) break;
    std::vector<int64_t> ids;
    for (int64_t e = first; e < std::min(examples.numExamples(), first + batch_size); ++e) ids.push_back(e);
    batches.push_back(examples.batch(ids));
  }
  return batches;
}

}  // namespace mixerlab
