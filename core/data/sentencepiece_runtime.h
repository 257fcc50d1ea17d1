// SentencePiece, loaded at run time in a symbol scope of its own.
//
// Why: Debian's libsentencepiece bundles (and exports) protobuf 3.14, while libtorch_cpu loads the system
// libprotobuf 3.21. Linked normally, both copies share one global symbol scope and the process dies before
// main() (libprotobuf's start-up code runs sentencepiece's protobuf) or aborts with a protobuf version
// mismatch. dlopen(RTLD_LOCAL | RTLD_DEEPBIND) keeps SentencePiece bound to its own protobuf and hidden
// from libtorch. Therefore nothing in MixerLab may reference a sentencepiece symbol at link time: create
// processors and train only through this file (virtual member calls on a processor are fine).
#pragma once
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <memory>
#include <string>
#include <unordered_map>

namespace mixerlab::spm {

// A new, empty processor (call LoadFromSerializedProto on it). Throws MixerLabError if the SentencePiece
// libraries cannot be loaded.
std::shared_ptr<sentencepiece::SentencePieceProcessor> newProcessor();

// SentencePieceTrainer::Train(kwargs, iterator, serialized_model_proto).
sentencepiece::util::Status train(const std::unordered_map<std::string, std::string>& kwargs,
                                  sentencepiece::SentenceIterator* sentences, std::string* serialized_model);

}  // namespace mixerlab::spm
