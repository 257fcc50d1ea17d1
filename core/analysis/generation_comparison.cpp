// Saving a generation comparison as JSON and Markdown (see generation_comparison.h).
#include "core/analysis/generation_comparison.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "core/analysis/generation_json.h"
#include "core/util/atomic_file.h"

namespace mixerlab {

namespace {

// generate --json's "settings", plus the decoder and placement choices every column shared.
nlohmann::json comparisonSettingsJson(const GenerationSettings& s, int samples) {
  nlohmann::json out = generationSettingsJson(s);
  out["decoder"] = decoderChoiceName(s.decoder);
  out["placement"] = promptPlacementName(s.placement);
  out["samples"] = samples;
  return out;
}

uint64_t sampleSeed(const GenerationSettings& s, size_t sample) { return s.sampling.seed + sample; }

// The column's checkpoint, then generate --json's result fields: of its one story, or a list of its
// samples, each with its seed (or the error).
nlohmann::json columnJson(const ComparisonColumn& c, const GenerationSettings& settings) {
  nlohmann::json out;
  if (c.samples.empty()) {
    out = {{"error", c.error}};
  } else if (c.samples.size() == 1) {
    out = generationResultJson(c.samples.front());
  } else {
    nlohmann::json samples = nlohmann::json::array();
    for (size_t i = 0; i < c.samples.size(); ++i) {
      nlohmann::json sample = generationResultJson(c.samples[i]);
      sample["seed"] = sampleSeed(settings, i);
      samples.push_back(sample);
    }
    out["samples"] = samples;
  }
  out["checkpoint"] = c.checkpoint;
  out["run"] = c.run;
  out["step"] = c.step;
  out["architecture"] = c.architecture;
  return out;
}

std::string number(double value, const char* format = "%.1f") {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// A fenced block that no run of backticks inside `text` can close early.
std::string fenced(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char ch : text) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string body = text;
  if (body.empty() || body.back() != '\n') body += '\n';
  return fence + "text\n" + body + fence + "\n";
}

std::string cell(std::string text) {
  for (size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
  return text;
}

std::string settingsLine(const GenerationSettings& s) {
  std::string line;
  if (s.sampling.greedy) {
    line = "greedy";
  } else {
    line = "temperature " + number(s.sampling.temperature, "%g") + " · top-k " +
           (s.sampling.top_k > 0 ? std::to_string(s.sampling.top_k) : std::string("off")) + " · top-p " +
           number(s.sampling.top_p, "%g") + " · seed " + std::to_string(s.sampling.seed);
  }
  line += " · repetition penalty " + number(s.sampling.repetition_penalty, "%g");
  line += " · max_new_tokens " + std::to_string(s.max_new_tokens);
  if (!s.stop_string.empty()) line += " · stop string `" + s.stop_string + "`";
  line += s.stop_at_eos ? " · stops at end-of-text" : " · continues past end-of-text";
  line += " · decoder " + decoderChoiceName(s.decoder) + " · placement " + promptPlacementName(s.placement);
  return line;
}

}  // namespace

nlohmann::json comparisonJson(const GenerationComparison& comparison) {
  nlohmann::json columns = nlohmann::json::array();
  for (const ComparisonColumn& c : comparison.columns) columns.push_back(columnJson(c, comparison.settings));
  nlohmann::json out = {{"prompt", comparison.prompt},
                        {"settings", comparisonSettingsJson(comparison.settings, comparison.samples)},
                        {"columns", columns}};
  if (comparison.true_continuation) out["true_continuation"] = *comparison.true_continuation;
  return out;
}

std::string comparisonMarkdown(const GenerationComparison& comparison) {
  const GenerationSettings& settings = comparison.settings;
  std::string md = "# Generation comparison\n\n";
  md += comparison.true_continuation ? "**Prompt** (from the run's eval split):\n\n" : "**Prompt:**\n\n";
  md += fenced(comparison.prompt) + "\n";
  md += "**Settings** (the same for every column): " + settingsLine(settings);
  if (comparison.samples > 1) {
    md += " · " + std::to_string(comparison.samples) + " samples per column (seeds " +
          std::to_string(sampleSeed(settings, 0)) + " to " +
          std::to_string(sampleSeed(settings, static_cast<size_t>(comparison.samples - 1))) + ")";
  }
  md += "\n\n";
  md += "| # | checkpoint | architecture | decoder | tokens | tokens/s | finish |\n|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < comparison.columns.size(); ++i) {
    const ComparisonColumn& c = comparison.columns[i];
    const std::string checkpoint = cell(c.run + " · " + c.step) + " | " + cell(c.architecture) + " | ";
    if (c.samples.empty()) md += "| " + std::to_string(i + 1) + " | " + checkpoint + "| | | failed |\n";
    for (size_t k = 0; k < c.samples.size(); ++k) {
      const GenerationResult& r = c.samples[k];
      const std::string label = std::to_string(i + 1) + (c.samples.size() > 1 ? "." + std::to_string(k + 1) : "");
      md += "| " + label + " | " + checkpoint + r.decoder + " | " + std::to_string(r.tokens.size()) + " | " +
            number(r.tokens_per_s) + " | " + finishReasonName(r.finish) + " |\n";
    }
  }
  for (size_t i = 0; i < comparison.columns.size(); ++i) {
    const ComparisonColumn& c = comparison.columns[i];
    md += "\n## " + std::to_string(i + 1) + ". " + c.run + " · " + c.step + "\n\n";
    md += "Checkpoint `" + c.checkpoint + "`, architecture `" + c.architecture + "`.";
    if (c.samples.empty()) {
      md += " Failed: " + c.error + "\n";
      continue;
    }
    for (size_t k = 0; k < c.samples.size(); ++k) {
      const GenerationResult& r = c.samples[k];
      if (c.samples.size() > 1) {
        md += "\n\n### Sample " + std::to_string(k + 1) + " (seed " + std::to_string(sampleSeed(settings, k)) + ")\n\n";
      } else {
        md += " ";
      }
      md += "Decoder `" + r.decoder + "`: " + std::to_string(r.tokens.size()) + " tokens, " + number(r.tokens_per_s) +
            " tokens/s (prefill " + number(r.prefill_ms, "%.2f") + " ms, decode " + number(r.decode_ms, "%.2f") +
            " ms), finished: " + finishReasonName(r.finish) + ".";
      if (r.prompt_dropped_tokens > 0) {
        md += " The prompt's first " + std::to_string(r.prompt_dropped_tokens) + " tokens did not fit the window.";
      }
      md += "\n\n" + fenced(r.text);
    }
  }
  if (comparison.true_continuation) {
    md += "\n## True continuation (eval split)\n\n" + fenced(*comparison.true_continuation);
  }
  return md;
}

void saveComparison(const GenerationComparison& comparison, const std::filesystem::path& json_path,
                    const std::filesystem::path& markdown_path) {
  // A token cut inside a UTF-8 sequence must not make the file unwritable: such bytes become U+FFFD.
  writeFileAtomic(json_path,
                  comparisonJson(comparison).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  writeFileAtomic(markdown_path, comparisonMarkdown(comparison));
}

}  // namespace mixerlab
