# Shared by scripts/up and scripts/test: system packages, the Rust toolchain, the build directory.
# shellcheck shell=bash

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Outside the clone, so that later runs (and CI on the same machine) reuse the build.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/callscope/target}"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "need root for: $*"; return 1; fi
}

# Debian packages the build needs: a C/C++ toolchain (bundled SQLite, CTranslate2, llama.cpp),
# CMake (CTranslate2, llama.cpp), libclang (bindgen, for llama.cpp's bindings), OpenBLAS (its
# float32 matrix products) and pkg-config.
ensure_system_packages() {
  local missing=()
  command -v cc >/dev/null || missing+=(build-essential)
  command -v c++ >/dev/null || missing+=(g++)
  command -v cmake >/dev/null || missing+=(cmake)
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  # The unversioned libclang.so comes with the -dev package, as do the headers bindgen needs.
  compgen -G '/usr/lib/llvm-*/lib/libclang.so' >/dev/null || missing+=(libclang-dev)
  command -v curl >/dev/null || missing+=(curl)
  pkg-config --exists openblas 2>/dev/null || missing+=(libopenblas-dev)
  # OpenBLAS links libgfortran; its unversioned .so comes with the Fortran compiler.
  command -v gfortran >/dev/null || missing+=(gfortran)
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
  # ct2rs builds CTranslate2 against these (.cargo/config.toml has Debian x86-64's paths).
  DEP_OPENBLAS_INCLUDE="$(pkg-config --variable=includedir openblas)"
  DEP_OPENBLAS_LIBRARY="$(pkg-config --variable=libdir openblas)"
  export DEP_OPENBLAS_INCLUDE DEP_OPENBLAS_LIBRARY
}

# Tools the tests use to make audio in every format (sox: µ-law, A-law, FLAC; ffmpeg: MP3,
# Vorbis, AAC), speech with a known script (espeak-ng), and real read speech with reference
# transcripts (LibriVox utterances in pocketsphinx-testdata).
ensure_test_packages() {
  local missing=()
  command -v sox >/dev/null || missing+=(sox libsox-fmt-all)
  command -v ffmpeg >/dev/null || missing+=(ffmpeg)
  command -v espeak-ng >/dev/null || missing+=(espeak-ng)
  [ -d /usr/share/pocketsphinx/test/data/librivox ] || missing+=(pocketsphinx-testdata)
  python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]} (test audio)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
}

# Python tools the tests talk to, in a virtual environment outside the clone: moto's
# S3-compatible server for the S3 storage test, and the standardwebhooks package, which checks
# our webhook signatures independently of our code.
ensure_test_python() {
  local venv="$HOME/.cache/callscope/venv"
  if [ ! -x "$venv/bin/moto_server" ] || ! "$venv/bin/python" -c 'import standardwebhooks' 2>/dev/null; then
    say "installing moto (S3-compatible test server) and standardwebhooks (signature verifier) into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'moto[server]==5.2.5' 'standardwebhooks==1.1.0'
  fi
  export CALLSCOPE_TEST_MOTO_SERVER="$venv/bin/moto_server"
  export CALLSCOPE_TEST_PYTHON="$venv/bin/python"
}

ensure_rust() {
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
  if ! command -v cargo >/dev/null; then
    say "no Rust toolchain: installing it with rustup"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    . "$HOME/.cargo/env"
  fi
}
