// Saving a generation comparison as JSON and Markdown (see generation_comparison.h).
#include "core/analysis/generation_comparison.h"

#include <algorithm>
#include <cstdio>

#include "core/analysis/generation_json.h"
#include "core/util/atomic_file.h"

namespace mixerlab {

namespace {

// generate --json's "settings", plus the decoder and placement choices every column shared.
nlohmann::json comparisonSettingsJson(const GenerationSettings& s) {
  nlohmann::json out = generationSettingsJson(s);
  out["decoder"] = decoderChoiceName(s.decoder);
  out["placement"] = promptPlacementName(s.placement);
  return out;
}

// The column's checkpoint, then generate --json's result fields (or the error).
nlohmann::json columnJson(const ComparisonColumn& c) {
  nlohmann::json out = c.result ? generationResultJson(*c.result) : nlohmann::json{{"error", c.error}};
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
  for (const ComparisonColumn& c : comparison.columns) columns.push_back(columnJson(c));
  nlohmann::json out = {
      {"prompt", comparison.prompt}, {"settings", comparisonSettingsJson(comparison.settings)}, {"columns", columns}};
  if (comparison.true_continuation) out["true_continuation"] = *comparison.true_continuation;
  return out;
}

std::string comparisonMarkdown(const GenerationComparison& comparison) {
  std::string md = "# Generation comparison\n\n";
  md += comparison.true_continuation ? "**Prompt** (from the run's eval split):\n\n" : "**Prompt:**\n\n";
  md += fenced(comparison.prompt) + "\n";
  md += "**Settings** (the same for every column): " + settingsLine(comparison.settings) + "\n\n";
  md += "| # | checkpoint | architecture | decoder | tokens | tokens/s | finish |\n|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < comparison.columns.size(); ++i) {
    const ComparisonColumn& c = comparison.columns[i];
    md += "| " + std::to_string(i + 1) + " | " + cell(c.run + " · " + c.step) + " | " + cell(c.architecture) + " | ";
    if (c.result) {
      md += c.result->decoder + " | " + std::to_string(c.result->tokens.size()) + " | " +
            number(c.result->tokens_per_s) + " | " + finishReasonName(c.result->finish) + " |\n";
    } else {
      md += "| | | failed |\n";
    }
  }
  for (size_t i = 0; i < comparison.columns.size(); ++i) {
    const ComparisonColumn& c = comparison.columns[i];
    md += "\n## " + std::to_string(i + 1) + ". " + c.run + " · " + c.step + "\n\n";
    md += "Checkpoint `" + c.checkpoint + "`, architecture `" + c.architecture + "`.";
    if (!c.result) {
      md += " Failed: " + c.error + "\n";
      continue;
    }
    const GenerationResult& r = *c.result;
    md += " Decoder `" + r.decoder + "`: " + std::to_string(r.tokens.size()) + " tokens, " + number(r.tokens_per_s) +
          " tokens/s (prefill " + number(r.prefill_ms, "%.2f") + " ms, decode " + number(r.decode_ms, "%.2f") +
          " ms), finished: " + finishReasonName(r.finish) + ".";
    if (r.prompt_dropped_tokens > 0) {
      md += " The prompt's first " + std::to_string(r.prompt_dropped_tokens) + " tokens did not fit the window.";
    }
    md += "\n\n" + fenced(r.text);
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
