// Document encoding: newline conventions, piecewise encoding of long documents, parallel encoding
// (see document_encoder.h).
#include "core/data/document_encoder.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "core/data/preparation_lock.h"
#include "core/util/enum_names.h"
#include "core/util/error.h"

namespace mixerlab {

namespace {
constexpr EnumName<NewlineMode> kNewlineModeNames[] = {{NewlineMode::Token, "token"}, {NewlineMode::Unk, "unk"}};

bool isAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// A cut after text[p - 1] == '\n' with text[p] not whitespace.
bool isPieceCut(std::string_view text, size_t p) {
  return p > 0 && p < text.size() && text[p - 1] == '\n' && !isAsciiSpace(text[p]);
}

std::string megabytes(size_t bytes) { return std::to_string((bytes + (size_t{1} << 19)) >> 20) + " MB"; }
}  // namespace

NewlineMode parseNewlineMode(const std::string& name) {
  if (const auto mode = enumFromName(kNewlineModeNames, name)) return *mode;
  throw MixerLabError("unknown newline mode \"" + name + "\"", "use \"token\" or \"unk\"");
}

std::string newlineModeName(NewlineMode mode) { return enumName(kNewlineModeNames, mode, "token"); }

DocumentEncoder::DocumentEncoder(const Tokenizer& tokenizer, NewlineMode mode, EncodeLimits limits)
    : tokenizer_(tokenizer), mode_(mode), limits_(limits) {
  newline_prefix_ids_ = tokenizer_.encode("\n");
  if (mode_ != NewlineMode::Unk) return;
  if (tokenizer_.unkId() < 0) {  // a byte-level tokenizer.json has no unknown token
    throw MixerLabError(tokenizer_.modelPath().string() + " has no unknown token, so newlines cannot become one",
                        "set train.newline to \"token\" (the default) for this tokenizer");
  }
  for (int id : newline_prefix_ids_) {
    if (tokenizer_.piece(id) == "\n") newline_id_ = id;
  }
}

std::vector<int> DocumentEncoder::encodeWhole(std::string_view text) const { return tokenizer_.encode(text); }

std::vector<int> DocumentEncoder::encodePieces(std::string_view text, const std::string& name) const {
  if (text.size() <= limits_.piece_bytes) return encodeWhole(text);
  std::vector<int> out;
  std::string with_newline;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.size();
    if (text.size() - start > limits_.piece_bytes) {
      // The last cut within piece_bytes, else the first one after it.
      end = start + limits_.piece_bytes;
      while (end > start && !isPieceCut(text, end)) --end;
      if (end == start) {
        end = start + limits_.piece_bytes;
        const size_t last = std::min(text.size(), start + limits_.max_line_bytes);
        while (end <= last && end < text.size() && !isPieceCut(text, end)) ++end;
        if (end > last) {
          throw MixerLabError(name + " (" + megabytes(text.size()) + ") has more than " +
                                  megabytes(limits_.max_line_bytes) +
                                  " of text without a line break, too long to tokenize",
                              "split that document into lines or smaller documents, or leave it out of the corpus");
        }
      }
    }
    const std::string_view piece = text.substr(start, end - start);
    if (start == 0) {
      out = encodeWhole(piece);
    } else {
      with_newline.assign("\n").append(piece);
      const std::vector<int> ids = encodeWhole(with_newline);
      if (ids.size() < newline_prefix_ids_.size() ||
          !std::equal(newline_prefix_ids_.begin(), newline_prefix_ids_.end(), ids.begin())) {
        // This tokenizer joins a line break with the next line: only the whole document gives its ids.
        if (text.size() > limits_.max_line_bytes) {
          throw MixerLabError(name + " (" + megabytes(text.size()) + ") cannot be tokenized in pieces with " +
                                  tokenizer_.modelPath().string() + " and is too long to tokenize whole",
                              "split that document into smaller documents, or leave it out of the corpus");
        }
        return encodeWhole(text);
      }
      out.insert(out.end(), ids.begin() + static_cast<std::ptrdiff_t>(newline_prefix_ids_.size()), ids.end());
    }
    start = end;
  }
  return out;
}

std::vector<int> DocumentEncoder::operator()(std::string_view text, const std::string& name) const {
  if (mode_ == NewlineMode::Token) return encodePieces(text, name);
  const auto newlines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  const int unk = tokenizer_.unkId();
  std::vector<int> out;
  auto push = [&](int id) {
    if (!(id == unk && !out.empty() && out.back() == unk)) out.push_back(id);  // fuse <unk>s
  };
  if (newlines == 0 || newline_id_ >= 0) {
    const std::vector<int> ids = encodePieces(text, name);
    if (newlines == 0 || static_cast<size_t>(std::count(ids.begin(), ids.end(), newline_id_)) == newlines) {
      for (int id : ids) push(id == newline_id_ ? unk : id);
      return out;
    }
  }
  // No standalone newline token: encode the parts between newline runs, join them with <unk>.
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) {
      for (int id : encodePieces(text.substr(start, end - start), name)) push(id);
    }
    if (end == text.size()) break;
    push(unk);
    start = end + 1;
  }
  return out;
}

std::vector<int> encodeDocument(const Tokenizer& tokenizer, std::string_view text, NewlineMode newline) {
  return DocumentEncoder(tokenizer, newline)(text);
}

std::vector<std::vector<int>> encodeDocuments(const std::vector<std::string>& documents, const DocumentEncoder& encode,
                                              unsigned num_threads, const std::vector<std::string>* names,
                                              const std::atomic<bool>* stop) {
  std::vector<std::vector<int>> result(documents.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    try {
      for (size_t i = next++; i < documents.size() && !failed; i = next++) {
        checkPreparationStop(stop);
        result[i] = encode(documents[i], names ? (*names)[i] : "document " + std::to_string(i + 1));
      }
    } catch (...) {  // kept for the caller: an exception must never leave a thread
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < std::max(1u, num_threads); ++t) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();
  if (error) std::rethrow_exception(error);
  return result;
}

}  // namespace mixerlab
