// Anchor for the GUI tests' precompiled header (tests/CMakeLists.txt): a target needs a source file.
