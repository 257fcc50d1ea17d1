// Import of a checkpoint trained by the research code (docs/fidelity.md: safetensors with the research's
// tensor names, fp32/fp16/bf16) into a MixerLab run folder that eval, score, export, fork and the
// GUI use like any trained run: run.json, a finished status, and checkpoints/step-0 with the
// weights (converted to fp32, research names), a fresh optimizer state, config.json and the
// tokenizer (a SentencePiece model or, where the tokenizer loader supports it, an HF tokenizer.json).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

namespace mixerlab {

struct ResearchImportRequest {
  std::filesystem::path safetensors;   // the research checkpoint's model.safetensors
  std::filesystem::path model_config;  // JSON: a MixerLab model config ({"arch": ..., ...}) or {"model": {...}}
  std::filesystem::path tokenizer;     // the tokenizer the checkpoint was trained with
  std::filesystem::path out_dir;       // the run folder to create (must not exist or be empty)
  std::filesystem::path corpus;        // optional: text for `mixerlab eval` (empty: eval is unavailable)
};

struct ResearchImportResult {
  std::filesystem::path run_dir, checkpoint;
  int64_t tensors_loaded = 0;   // tensors of the file the model took
  int64_t tensors_skipped = 0;  // tensors the research saved but never used (e.g. wrapped models' heads)
  int64_t parameters = 0;
};

// Throws MixerLabError naming the file and the fix: unreadable files, an invalid model config, a
// tokenizer larger than vocab_size, a missing or extra tensor (by its research name), a shape
// mismatch (both shapes), an existing non-empty out_dir.
ResearchImportResult importResearchCheckpoint(const ResearchImportRequest& request);

}  // namespace mixerlab
