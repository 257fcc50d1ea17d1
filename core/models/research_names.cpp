// Research tensor-name helpers (see research_names.h).
#include "core/models/research_names.h"

#include <cctype>

namespace mixerlab {

std::string replacePrefix(const std::string& name, const std::string& from, const std::string& to) {
  return startsWith(name, from) ? to + name.substr(from.size()) : name;
}

std::string splitStackName(const std::string& name, const std::string& stack, int64_t split, const std::string& first,
                           const std::string& second) {
  if (!startsWith(name, stack)) return name;
  size_t end = stack.size();
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end == stack.size()) return name;
  const int64_t index = std::stoll(name.substr(stack.size(), end - stack.size()));
  const std::string rest = name.substr(end);
  return index < split ? first + std::to_string(index) + rest : second + std::to_string(index - split) + rest;
}

std::string wrappedLlamaLayers(const std::string& wrapper) { return wrapper + ".model.model.layers."; }

bool isUnusedWrappedLlamaTensor(const std::string& name, const std::vector<std::string>& wrappers) {
  for (const auto& w : wrappers) {
    for (const char* unused :
         {".model.model.embed_tokens.", ".model.model.norm.", ".model.lm_head.", ".model.model.rotary_emb."}) {
      if (startsWith(name, w + unused)) return true;
    }
    if (startsWith(name, w + ".model.model.layers.") && name.find(".rotary_emb.") != std::string::npos) return true;
  }
  return false;
}

}  // namespace mixerlab
