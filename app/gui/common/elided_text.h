// One-line previews of long texts for combo boxes and labels (an eval document, a prompt, a story):
// whitespace runs and line breaks folded to single spaces, cut to `chars` characters with an
// ellipsis. One owner, so every panel shortens text the same way.
#pragma once
#include <QString>

#include <string>

namespace mixerlab::gui {

inline QString elidedOneLine(const QString& text, int chars) {
  const QString flat = text.simplified();
  return flat.size() <= chars ? flat : flat.left(chars - 1) + QChar(0x2026);
}

inline QString elidedOneLine(const std::string& text, int chars) {
  return elidedOneLine(QString::fromStdString(text), chars);
}

}  // namespace mixerlab::gui
