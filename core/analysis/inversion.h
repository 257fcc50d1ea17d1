// Representation inversion (docs/inversion.md, paper 2.1/2.3): how much of its input a layer's hidden state
// still carries. For each input (padded to the context), gradient descent on an input embedding z
// minimises the summed L1 distance between layer k's output for z and for the true embedding, with
// a step size decaying linearly from eta to eta/10; z is then decoded with the pseudo-inverse of the
// embedding matrix (after subtracting learned position embeddings), and the normalised Hamming
// distance counts the non-pad positions whose reference token is not recovered. Torch-free header.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/analysis/model_source.h"

namespace mixerlab {

enum class InversionInit {
  kStandardNormal,  // z0 ~ N(0, 1): the research code
  kPaperNormal,     // z0 ~ N(1/2, 1/20): the paper's text
};

enum class InversionObjective {
  kAllPositions,  // L = sum over every position and feature (the research's measurement)
  kLastPosition,  // only the last position's output (the paper's "non-self tokens", Fig. 3b)
};

// The scale of the descent. The L1 loss's gradient is a sum of signs, whatever the size of the
// embedding, so a fixed start N(0, 1) and step eta are large against a 0.02-scale embedding and small
// against a 1-scale one: the research's settings are not scale-free.
enum class InversionScale {
  kResearch,   // z0 and eta as given (the research)
  kEmbedding,  // z0 and eta multiplied by s, the standard deviation of the token embedding matrix: for a
               // model whose blocks are linear, scaling its embedding then gives the same relative descent
};

// Which token each position must recover.
enum class InversionReference {
  kInput,               // the input's own token; pad positions are the padding added (default)
  kNoisyPseudoInverse,  // the research code: argmax of (e + noise) . pinv(W_E), and positions whose
                        // reference is the pad id are not counted. With small embeddings (Llama's
                        // N(0, 0.02) init against the 0.05 noise) the reference itself is mostly noise.
};

struct InversionSettings {
  std::vector<int64_t> layers = {-1};  // block outputs: 0 = the embedding itself, k = block k, -1 = the last
  int64_t iterations = 500;            // N
  double learning_rate = 0.02;         // eta_0; step n uses eta_0 (N-n)/N + (eta_0/10) n/N
  InversionInit init = InversionInit::kStandardNormal;
  InversionObjective objective = InversionObjective::kAllPositions;
  InversionReference reference = InversionReference::kInput;
  InversionScale scale = InversionScale::kResearch;
  double reference_noise = 0.05;  // e' = e + noise N(0,1): the epsilon check (and the research's reference tokens)
  int64_t top_k = 5;              // a position matches when its reference token is among the top_k decoded
  uint64_t seed = 1;
  bool pad_to_context = true;   // pad every input to the context length (research); else to the longest input
  std::string device = "auto";  // auto (a GPU when present), cpu, cuda
};

// Throws MixerLabError naming the bad setting.
void validateInversion(const InversionSettings& settings);

struct InvertedToken {
  int original_id = 0;
  std::string original_text;
  int reference_id = 0;         // the token to recover (see InversionReference)
  std::vector<int> candidates;  // decoded from the recovered embedding, most likely first (top_k)
  std::vector<std::string> candidate_texts;
  int64_t reference_rank = 0;  // 1-based rank of reference_id among all V decoded scores
  bool counted = true;         // false at pad positions
  bool exact = false;          // candidates[0] == reference_id
  bool top_k_match = false;    // reference_id among the candidates
};

struct InversionResult {
  std::string model_label;
  std::string text;
  int64_t layer = 0;  // resolved: 0..representation layers
  int64_t counted_positions = 0;
  double hamming_top_k = 0;        // (C - M) / C with M = top-k matches: the research code's definition
  double hamming_exact = 0;        // the same with exact matches (the paper's Eq. 6 reading)
  double epsilon_l1 = 0;           // summed L1 between the layer outputs of e' and e (the epsilon check)
  double target_l1 = 0;            // summed |output of e|, to put the losses in scale
  double final_loss = 0;           // summed L1 after the last step
  double embedding_std = 0;        // s: the standard deviation of the token embedding matrix
  double start_std = 1;            // the start's scale: s with InversionScale::kEmbedding, else 1
  double learning_rate = 0;        // the eta_0 the descent used: the setting, times s when scale-aware
  std::vector<double> loss_curve;  // summed L1 at each step, before its update
  std::vector<InvertedToken> tokens;
  bool cancelled = false;
  double elapsed_ms = 0;
  std::string device;
};

struct InversionProgress {
  int64_t layer = 0;        // the layer being inverted
  int64_t layer_index = 0;  // its index in the settings' list
  int64_t layer_count = 0;
  int64_t iteration = 0;  // steps done for this layer
  int64_t iterations = 0;
  double loss = 0;  // summed over the batch of inputs
};
using InversionProgressFn = std::function<void(const InversionProgress&)>;

// Inverts every text at every requested layer: one result per (layer, text), layers outermost. The
// texts of one layer descend together as one batch (each input's loss and update are its own).
// `cancel` is polled every iteration; a cancelled layer's results carry cancelled = true and
// decode the embedding reached so far; later layers are skipped.
std::vector<InversionResult> invertTexts(const ModelSource& source, const std::vector<std::string>& texts,
                                         const InversionSettings& settings, const InversionProgressFn& progress = {},
                                         const std::atomic<bool>* cancel = nullptr);

struct AnalysisModel;
// The same on a loaded model (moved to the settings' device and back to the CPU).
std::vector<InversionResult> invertTexts(AnalysisModel& model, const std::vector<std::string>& texts,
                                         const InversionSettings& settings, const InversionProgressFn& progress = {},
                                         const std::atomic<bool>* cancel = nullptr);

}  // namespace mixerlab
