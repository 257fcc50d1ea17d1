// Field declarations of the project file's own sections (see project_fields.h).
#include "core/config/project_fields.h"

namespace mixerlab {
namespace {

// A path field: read as the text written in the file (resolved later against the project folder).
FieldSpec pathSpec(const std::string& key, const std::string& label, const std::string& help) {
  FieldSpec spec;
  spec.key = key;
  spec.type = FieldType::Text;
  spec.label = label;
  spec.help = help;
  return spec;
}

}  // namespace

const FieldSet<ProjectConfig>& projectFields() {
  static const auto fields = FieldSet<ProjectConfig>()
                                 .group("Project")
                                 .text("name", &ProjectConfig::name, "Project name", "shown in the window title")
                                 .derivedDefault("the project folder's name")
                                 .text("description", &ProjectConfig::description, "Description", "free text");
  return fields;
}

const FieldSet<CorpusConfig>& corpusFields() {
  static const auto fields = [] {
    FieldSpec train = pathSpec("train", "Training text",
                               "training text: a file, a folder of files or a glob (shard-*.jsonl.zst), relative to "
                               "the project file's folder; .gz and .zst files are read as they are");
    train.required = true;
    FieldSpec format;
    format.key = "format";
    format.type = FieldType::Choice;
    format.choices = {"auto", "endoftext", "blank_line", "jsonl"};
    format.default_value = "auto";
    format.label = "Format";
    format.help =
        "endoftext (TinyStoriesV2: stories separated by <|endoftext|>), blank_line (documents separated by blank "
        "lines), jsonl (one JSON object per line with a text field), or auto (by extension and content)";
    return FieldSet<CorpusConfig>()
        .group("Corpus")
        .custom(
            train, [](JsonFields& f, CorpusConfig& c) { c.train_path = f.requiredString("train"); },
            [](const CorpusConfig& c, nlohmann::json& j) { j["train"] = c.train_path.string(); })
        .custom(
            pathSpec("eval", "Evaluation text",
                     "evaluation file; without it eval_fraction of the training documents are split off"),
            [](JsonFields& f, CorpusConfig& c) {
              if (f.has("eval")) c.eval_path = f.string("eval", "");
            },
            [](const CorpusConfig& c, nlohmann::json& j) {
              if (!c.eval_path.empty()) j["eval"] = c.eval_path.string();
            })
        .custom(
            format,
            [choices = format.choices](JsonFields& f, CorpusConfig& c) {
              c.format = parseCorpusFormat(f.choice("format", corpusFormatName(c.format), choices));
            },
            [](const CorpusConfig& c, nlohmann::json& j) { j["format"] = corpusFormatName(c.format); })
        .number("eval_fraction", &CorpusConfig::eval_fraction, 0.0, 0.9, "Eval fraction",
                "share of documents held out when there is no eval file")
        .integer("split_seed", &CorpusConfig::split_seed, 0, kFieldMaxInteger, "Split seed", "seed of that split")
        .integer("max_examples", &CorpusConfig::max_examples, 0, kFieldMaxInteger, "Max train documents",
                 "train on the first N training documents only, in file order (0 = all; the research used the "
                 "first 2,000,000 TinyStories stories)")
        .text("json_field", &CorpusConfig::json_field, "JSON Lines field",
              "the string field of each JSON Lines record that holds the document's text")
        .integer("eval_documents", &CorpusConfig::eval_documents, 0, kFieldMaxInteger, "Eval documents",
                 "when above 0, the first N training documents are the eval split (the research's Fineweb "
                 "convention) and eval_fraction is unused")
        .integer("memory_mb", &CorpusConfig::memory_mb, 256, 1 << 20, "Data memory (MB)",
                 "memory bound of data preparation (tokenizer sample, encoding blocks), whatever the corpus size");
  }();
  return fields;
}

const FieldSet<TokenizerSettings>& tokenizerFields() {
  static const auto fields =
      FieldSet<TokenizerSettings>()
          .group("Tokenizer")
          .integer("vocab_size", &TokenizerSettings::vocab_size, 64, 1 << 20, "Vocabulary size",
                   "sentencepiece vocabulary (the research's TinyStories tokenizer uses 4096)")
          .choice("model_type", &TokenizerSettings::model_type, {"bpe", "unigram"}, "Model type", "sentencepiece model")
          .boolean("byte_fallback", &TokenizerSettings::byte_fallback, "Byte fallback",
                   "unknown characters become byte tokens instead of <unk>")
          .number("character_coverage", &TokenizerSettings::character_coverage, 0.9, 1.0, "Character coverage",
                  "sentencepiece character coverage")
          .integer("max_training_documents", &TokenizerSettings::max_training_documents, 1, kFieldMaxInteger,
                   "Training documents", "evenly spaced documents used to train the tokenizer")
          .text("file", &TokenizerSettings::file, "Tokenizer file",
                "a ready-made tokenizer to use instead of training one: a SentencePiece .model or a Hugging Face "
                "tokenizer.json of the research's kind (relative to the project file); vocab_size must equal its "
                "vocabulary");
  return fields;
}

const FieldSet<RunConfig>& runFields() {
  static const auto fields = FieldSet<RunConfig>().group("Run").requiredText(
      "name", &RunConfig::name, "Run name", "letters, digits, '-', '_' and '.' (it names the run's folder)");
  return fields;
}

}  // namespace mixerlab
