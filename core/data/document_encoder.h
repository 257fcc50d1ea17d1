// Documents -> token ids, the one place that turns corpus text into the ids a run trains on: the
// newline convention, long documents encoded piece by piece, and many documents on every core.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/tokenizer.h"

namespace mixerlab {

// How "\n" inside a document becomes tokens. Token: the tokenizer's own encoding (MixerLab's tokenizer
// has a newline token). Unk: as the research's TinyStories tokenizer, which had no newline: every run
// of "\n" becomes one <unk> id, and consecutive <unk>s are fused into one (HF BPE with fuse_unk).
enum class NewlineMode { Token, Unk };
NewlineMode parseNewlineMode(const std::string& name);  // "token" / "unk"; else MixerLabError
std::string newlineModeName(NewlineMode mode);

// Documents longer than piece_bytes are encoded in pieces cut just after a "\n" that is followed by a
// character other than whitespace. Each later piece is encoded with that "\n" in front and the ids up to
// it dropped, so the ids equal those of the whole document for every tokenizer that starts a new token
// after such a newline (MixerLab's and the research's do; this is checked on every piece, and a piece
// where it does not hold is encoded together with the next one). A stretch longer than max_line_bytes
// without such a newline is refused naming the document, since encoding it whole can take gigabytes.
struct EncodeLimits {
  size_t piece_bytes = size_t{1} << 20;
  size_t max_line_bytes = size_t{16} << 20;
};

class DocumentEncoder {
 public:
  DocumentEncoder(const Tokenizer& tokenizer, NewlineMode mode, EncodeLimits limits = {});
  // The token ids of one document (no BOS/EOS). `name` says which document in errors ("file.txt,
  // document 12").
  std::vector<int> operator()(std::string_view text, const std::string& name = "a document") const;

 private:
  std::vector<int> encodeWhole(std::string_view text) const;
  std::vector<int> encodePieces(std::string_view text, const std::string& name) const;

  const Tokenizer& tokenizer_;
  NewlineMode mode_;
  EncodeLimits limits_;
  int newline_id_ = -1;                  // Unk mode: the tokenizer's standalone newline token, if any
  std::vector<int> newline_prefix_ids_;  // encodeWhole("\n"): what a piece's leading "\n" encodes to
};

// The token ids of one document (a DocumentEncoder with default limits).
std::vector<int> encodeDocument(const Tokenizer& tokenizer, std::string_view text, NewlineMode newline);

// Encodes documents[k] for every k on num_threads threads; result[k] holds document k. An error in any
// thread is rethrown here after every thread has finished. (*names)[k] names document k in errors. When
// `stop` is set, the threads end after their current document and PreparationStopped is thrown.
std::vector<std::vector<int>> encodeDocuments(const std::vector<std::string>& documents, const DocumentEncoder& encode,
                                              unsigned num_threads, const std::vector<std::string>* names = nullptr,
                                              const std::atomic<bool>* stop = nullptr);

}  // namespace mixerlab
