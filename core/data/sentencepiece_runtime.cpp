// Run-time loading of SentencePiece in an isolated symbol scope (see sentencepiece_runtime.h).
#include "core/data/sentencepiece_runtime.h"

#include <dlfcn.h>

#include <cstring>
#include <iostream>
#include <new>

#include "core/util/error.h"

// The few members of sentencepiece::util::Status that inline header code and by-value returns use.
// Defined here so that no MixerLab object needs libsentencepiece at link time. The layout of Rep
// (status code, then message) is the library's own; Status objects returned by the library are freed here.
namespace sentencepiece::util {

struct Status::Rep {
  StatusCode code;
  std::string error_message;
};

Status::Status() {}
Status::~Status() {}
const char* Status::error_message() const { return rep_ ? rep_->error_message.c_str() : ""; }
StatusCode Status::code() const { return rep_ ? rep_->code : StatusCode::kOk; }

}  // namespace sentencepiece::util

namespace mixerlab::spm {

namespace {

using ConstructFn = void (*)(sentencepiece::SentencePieceProcessor*);
using TrainFn = sentencepiece::util::Status (*)(const std::unordered_map<std::string, std::string>&,
                                                sentencepiece::SentenceIterator*, std::string*);

struct Library {
  ConstructFn construct = nullptr;
  TrainFn train = nullptr;
};

void* openIsolated(const char* soname, const char* fallback) {
  const int flags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
  void* handle = ::dlopen(soname, flags);
  if (handle == nullptr) handle = ::dlopen(fallback, flags);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw MixerLabError(std::string("cannot load the SentencePiece library ") + soname + ": " + (why ? why : "?"),
                        "install libsentencepiece0 / libsentencepiece-dev (installer/install-deps.sh)");
  }
  return handle;
}

void* findSymbol(void* handle, const char* mangled_name) {
  void* symbol = ::dlsym(handle, mangled_name);
  if (symbol == nullptr) {
    throw MixerLabError(std::string("the SentencePiece library lacks ") + mangled_name,
                        "install SentencePiece 0.1.9x (the version MixerLab was built against)");
  }
  return symbol;
}

// SentencePiece logs (and reports a failed CHECK before it exits) on std::cerr. With RTLD_DEEPBIND the
// library binds std::cerr to libstdc++'s own definition, but when the executable refers to std::cerr
// (ours do) the linker gave it a copy of the object, and libstdc++'s start-up code constructs only that
// copy: the library's std::cerr is zeroed memory, and its first log line was a SIGSEGV (a unigram
// "likelihood is NAN" CHECK, any LOG(ERROR)). Construct it over our stderr buffer. Skipped when both are
// one object, or when it is already constructed (its vtable pointer is set).
void giveLibraryAStderr(void* library) {
  void* library_cerr = ::dlsym(library, "_ZSt4cerr");
  if (library_cerr == nullptr || library_cerr == static_cast<void*>(&std::cerr)) return;
  void* vtable = nullptr;
  std::memcpy(&vtable, library_cerr, sizeof vtable);
  if (vtable != nullptr) return;
  auto* stream = new (library_cerr) std::ostream(std::cerr.rdbuf());  // never destroyed, like the library
  stream->setf(std::ios_base::unitbuf);                               // unbuffered, as std::cerr is
}

Library loadLibrary() {
  // Never closed: the processors and models created through it live until the process ends.
  void* core = openIsolated("libsentencepiece.so.0", "libsentencepiece.so");
  giveLibraryAStderr(core);
  void* trainer = openIsolated("libsentencepiece_train.so.0", "libsentencepiece_train.so");
  Library lib;
  lib.construct = reinterpret_cast<ConstructFn>(findSymbol(core, "_ZN13sentencepiece22SentencePieceProcessorC1Ev"));
  lib.train = reinterpret_cast<TrainFn>(findSymbol(
      trainer,
      "_ZN13sentencepiece20SentencePieceTrainer5TrainERKSt13unordered_mapINSt7__cxx1112basic_stringIcSt11char_"
      "traitsIcESaIcEEES7_St4hashIS7_ESt8equal_toIS7_ESaISt4pairIKS7_S7_EEEPNS_16SentenceIteratorEPS7_"));
  return lib;
}

const Library& library() {
  static const Library lib = loadLibrary();  // a failed load throws and is retried on the next call
  return lib;
}

}  // namespace

std::shared_ptr<sentencepiece::SentencePieceProcessor> newProcessor() {
  const ConstructFn construct = library().construct;
  void* memory = ::operator new(sizeof(sentencepiece::SentencePieceProcessor));
  auto* processor = static_cast<sentencepiece::SentencePieceProcessor*>(memory);
  try {
    construct(processor);
  } catch (...) {
    ::operator delete(memory);
    throw;
  }
  // The virtual (deleting) destructor runs inside the library and frees the memory allocated above.
  return std::shared_ptr<sentencepiece::SentencePieceProcessor>(processor);
}

sentencepiece::util::Status train(const std::unordered_map<std::string, std::string>& kwargs,
                                  sentencepiece::SentenceIterator* sentences, std::string* serialized_model) {
  return library().train(kwargs, sentences, serialized_model);
}

}  // namespace mixerlab::spm
