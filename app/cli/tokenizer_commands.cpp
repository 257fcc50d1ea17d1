// `mixerlab tokenizer train | encode | decode`: train a sentencepiece BPE tokenizer on a corpus; inspect it
// or a Hugging Face tokenizer.json (encode a text or every document of a corpus, decode ids).
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "core/data/tokenizer.h"
#include "core/data/tokenizer_sample.h"

namespace mixerlab::cli {

void addTokenizerCommands(CLI::App& app, Action& action) {
  struct Options {
    std::string corpus, format = "auto", out, model, text;
    std::vector<int> ids;
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

  auto* encode = tokenizer->add_subcommand(
      "encode", "Print the token ids and pieces of a text (JSON), or the ids of every document of a corpus");
  encode->add_option("--model", o->model, "Tokenizer file: a sentencepiece .model or a Hugging Face tokenizer.json")
      ->required()
      ->check(CLI::ExistingFile);
  auto* text = encode->add_option("--text", o->text, "Text to encode");
  auto* corpus = encode
                     ->add_option("--corpus", o->corpus,
                                  "Corpus file: prints one JSON line per document: its text, ids and decoded ids")
                     ->check(CLI::ExistingFile);
  encode->add_option("--format", o->format, "The corpus format: auto, endoftext, blank_line or jsonl");
  text->excludes(corpus);
  encode->callback([o, &action, text, corpus]() {
    if (text->count() == 0 && corpus->count() == 0) throw CLI::ValidationError("give --text or --corpus");
    action = [o]() {
      const auto tok = Tokenizer::load(o->model);
      // Invalid UTF-8 (a SentencePiece decode of stray byte pieces) is printed as U+FFFD, not refused.
      const auto print = [](const nlohmann::json& value, int indent) {
        std::cout << value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      };
      if (o->corpus.empty()) {
        nlohmann::json out = nlohmann::json::array();
        for (int id : tok.encode(o->text)) out.push_back({{"id", id}, {"piece", tok.piece(id)}});
        print(out, 2);
        return 0;
      }
      for (const auto& document : readCorpus(o->corpus, parseCorpusFormat(o->format))) {
        const std::vector<int> ids = tok.encode(document);
        print({{"text", document}, {"ids", ids}, {"decoded", tok.decode(ids)}}, -1);
      }
      return 0;
    };
  });

  auto* decode = tokenizer->add_subcommand("decode", "Print the text of token ids");
  decode->add_option("--model", o->model, "Tokenizer file: a sentencepiece .model or a Hugging Face tokenizer.json")
      ->required()
      ->check(CLI::ExistingFile);
  decode->add_option("--ids", o->ids, "Token ids, separated by spaces")->required();
  decode->callback([o, &action]() {
    action = [o]() {
      std::cout << Tokenizer::load(o->model).decode(o->ids) << "\n";
      return 0;
    };
  });
}

}  // namespace mixerlab::cli
