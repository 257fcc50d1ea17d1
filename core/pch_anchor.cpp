// Anchor of the shared precompiled header (torch + nlohmann-json): the torch layers reuse the PCH
// this target builds, so the heavy headers are parsed once per build. Holds no code.
