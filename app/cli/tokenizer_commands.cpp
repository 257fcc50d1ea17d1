// `mixerlab tokenizer train | encode`: train a sentencepiece BPE tokenizer on a corpus; inspect it or a
// Hugging Face tokenizer.json.
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "core/data/tokenizer.h"
#include "core/data/tokenizer_sample.h"

namespace mixerlab::cli {

void addTokenizerCommands(CLI::App& app, Action& action) {
  struct Options {
    std::string corpus, format = "auto", out, model, text;
    TokenizerSettings settings;
  };
  auto o = std::make_shared<Options>();
  auto* tokenizer =
      app.add_subcommand("tokenizer", "Train sentencepiece tokenizers; inspect them or tokenizer.json files");
  tokenizer->require_subcommand(1);

  auto* train = tokenizer->add_subcommand("train", "Train a BPE tokenizer (byte fallback, newline token, pad id 3)");
  train->add_option("--corpus", o->corpus, "Corpus: a file, folder or glob (.gz and .zst read as they are)")
      ->required();
  train->add_option("--format", o->format, "auto, endoftext, blank_line or jsonl");
  train->add_option("--vocab-size", o->settings.vocab_size, "Vocabulary size (default 4096)");
  train->add_option("--model-type", o->settings.model_type, "bpe or unigram");
  train->add_option("--out", o->out, "Output .model file")->required();
  train->callback([o, &action]() {
    action = [o]() {
      PrepareLimits limits;  // a bounded, streamed sample, as a project's tokenizer
      limits.log = [](const std::string& line) { std::cout << line << "\n"; };
      const auto documents = sampleTokenizerDocuments(expandCorpusSources({o->corpus}, parseCorpusFormat(o->format)),
                                                      "text", o->settings, limits);
      trainTokenizer(documents, o->settings, o->out, o->corpus);  // the same input check as `train`
      const auto tok = Tokenizer::load(o->out);
      std::cout << "wrote " << o->out << ": " << tok.vocabSize() << " tokens from " << documents.size()
                << " documents (unk " << tok.unkId() << ", bos " << tok.bosId() << ", eos " << tok.eosId() << ", pad "
                << tok.padId() << ")\n";
      return 0;
    };
  });

  auto* encode = tokenizer->add_subcommand("encode", "Print the token ids and pieces of a text (JSON)");
  encode->add_option("--model", o->model, "Tokenizer file: a sentencepiece .model or a Hugging Face tokenizer.json")
      ->required()
      ->check(CLI::ExistingFile);
  encode->add_option("--text", o->text, "Text to encode")->required();
  encode->callback([o, &action]() {
    action = [o]() {
      const auto tok = Tokenizer::load(o->model);
      nlohmann::json out = nlohmann::json::array();
      for (int id : tok.encode(o->text)) out.push_back({{"id", id}, {"piece", tok.piece(id)}});
      std::cout << out.dump(2) << "\n";
      return 0;
    };
  });
}

}  // namespace mixerlab::cli
