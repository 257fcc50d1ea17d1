#!/usr/bin/env bash
# Side-by-side check of MixerLab's byte-level BPE tokenizer.json support (GPT-2 and Llama-3 forms) against
# Hugging Face tokenizers, pinned below. Not a unit test: it needs PyPI and a built `mixerlab`. Makes a
# virtual environment under /tmp, trains a 2048-token GPT-2-style tokenizer on the demo corpus, derives the
# other forms from it, and compares ids and decoded text document by document
# (check_byte_level_bpe.py says what exactly). docs/fidelity.md records the last result.
#
#   tools/reference/check_byte_level_bpe.sh [BUILD_DIR]     (default: build; exits 1 on any difference)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
tokenizers_version=0.23.3
mixerlab=$build/app/cli/mixerlab
[[ -x $mixerlab ]] || { echo "error: $mixerlab not found: build it first (ninja -C $build mixerlab)" >&2; exit 1; }

venv=/tmp/mixerlab-reference-tokenizers-$tokenizers_version
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "tokenizers==$tokenizers_version"
fi
work=$(mktemp -d /tmp/check-byte-level-bpe.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" tools/reference/check_byte_level_bpe.py --mixerlab "$mixerlab" --work "$work" \
  projects/demo/data/stories-a.txt projects/demo/data/stories-b.txt
