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

# Debian packages the build needs: a C/C++ toolchain (bundled SQLite, llama.cpp, the C++ side of
# the CTranslate2 bindings), CMake (llama.cpp), libclang (bindgen, for llama.cpp's bindings) and
# pkg-config; then the CTranslate2 library itself (ensure_ctranslate2).
ensure_system_packages() {
  local missing=()
  command -v cc >/dev/null || missing+=(build-essential)
  command -v c++ >/dev/null || missing+=(g++)
  command -v cmake >/dev/null || missing+=(cmake)
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  # The unversioned libclang.so comes with the -dev package, as do the headers bindgen needs.
  compgen -G '/usr/lib/llvm-*/lib/libclang.so' >/dev/null || missing+=(libclang-dev)
  command -v curl >/dev/null || missing+=(curl)
  command -v python3 >/dev/null || missing+=(python3)
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
  ensure_ctranslate2
}

# A wheel from the package index into ~/.cache/callscope/downloads, resumed if cut short and
# checked against its pinned SHA-256: fetch_wheel PACKAGE WHEEL_FILE SHA256.
fetch_wheel() {
  local package="$1" wheel="$2" sha="$3"
  local cache="$HOME/.cache/callscope/downloads"
  mkdir -p "$cache"
  if [ -f "$cache/$wheel" ] && echo "$sha  $cache/$wheel" | sha256sum -c --status; then
    return 0
  fi
  local index="${CALLSCOPE_PACKAGE_INDEX:-https://pypi.org/simple}" url
  url="$(curl -fsSL "$index/$package/" | grep -o "href=\"[^\"]*$wheel[^\"]*\"" | head -n1 | sed 's/^href="//; s/"$//; s/#.*//')"
  [ -n "$url" ] || { say "$index does not list $wheel"; return 1; }
  case "$url" in http*) ;; *) url="$index/$package/$url" ;; esac
  curl -fL --progress-bar --retry 3 -C - -o "$cache/$wheel.part" "$url"
  mv "$cache/$wheel.part" "$cache/$wheel"
  if ! echo "$sha  $cache/$wheel" | sha256sum -c --status; then
    rm -f "$cache/$wheel"
    say "$wheel does not have the pinned SHA-256 $sha"
    return 1
  fi
}

# CTranslate2, the engine under our Whisper decoding, as a shared library in $ctranslate2_dir
# (made known to the dynamic loader through /etc/ld.so.conf.d). It is the library of PyPI's
# `ctranslate2` wheel, pinned by version and SHA-256: the same version as the headers bundled in
# the `ct2rs` crate, whose C++ bridge is compiled against them. That build carries Intel MKL and
# oneDNN kernels, about 1.7x faster on one core here than the ruy and OpenBLAS kernels a build
# from source can have offline (README, "Speech recognition"), and its own renamed OpenMP runtime.
#
# ct2rs' `system` mode links `ctranslate2` from the directories in CMAKE_LIBRARY_PATH (which
# .cargo/config.toml sets to $ctranslate2_dir) and names more libraries beside it, written for a
# static CTranslate2 built with CUDA: `cpu_features`, `cublas_static`, `cublasLt_static` and
# `culibos`. The shared library has cpu_features inside and loads CUDA itself when it finds a GPU,
# so empty archives of those names stand in for them; they add nothing to the link.
ctranslate2_version=4.8.4
ctranslate2_dir=/usr/local/lib/callscope
ensure_ctranslate2() {
  local wheel sha lib
  case "$(uname -m)" in
    x86_64)
      wheel="ctranslate2-$ctranslate2_version-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
      sha=1037b3f51d18f1546120686670d71fcdaf85a0500fffccc56d8439ded5d284e5 ;;
    aarch64)
      wheel="ctranslate2-$ctranslate2_version-cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl"
      sha=bd6ed9d10b46b9bc2ee801ea9624acf28bd53ffddfd5e92d23b2340dbc4d6474 ;;
    *) say "no CTranslate2 $ctranslate2_version build is pinned for $(uname -m)"; return 1 ;;
  esac
  local stamp="$ctranslate2_dir/.installed"
  if [ -e "$ctranslate2_dir/libctranslate2.so" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sha" ]; then
    return 0
  fi
  say "installing CTranslate2 $ctranslate2_version (the library of PyPI's $wheel) into $ctranslate2_dir"
  fetch_wheel ctranslate2 "$wheel" "$sha"
  local cache="$HOME/.cache/callscope/downloads"
  local staging
  staging="$(mktemp -d)"
  python3 - "$cache/$wheel" "$staging" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in wheel.namelist():
        if name.startswith("ctranslate2.libs/") and ".so" in name:
            wheel.extract(name, sys.argv[2])
PY
  lib="$(cd "$staging/ctranslate2.libs" && ls libctranslate2-*.so.*)"
  for name in cpu_features cublas_static cublasLt_static culibos; do
    # An ar archive with no members: its global header and nothing else.
    printf '!<arch>\n' > "$staging/ctranslate2.libs/lib$name.a"
  done
  as_root rm -rf "$ctranslate2_dir"
  as_root mkdir -p "$ctranslate2_dir"
  as_root cp "$staging"/ctranslate2.libs/* "$ctranslate2_dir/"
  as_root ln -s "$lib" "$ctranslate2_dir/libctranslate2.so"
  echo "$ctranslate2_dir" | as_root tee /etc/ld.so.conf.d/callscope.conf >/dev/null
  as_root ldconfig
  echo "$sha" | as_root tee "$stamp" >/dev/null
  rm -rf "$staging"
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
  # The web application's test drives Debian's headless Chromium over WebDriver.
  command -v chromium >/dev/null || missing+=(chromium)
  command -v chromedriver >/dev/null || missing+=(chromium-driver)
  # The web application's JavaScript is checked by Biome, installed from the npm registry.
  command -v npm >/dev/null || missing+=(nodejs npm)
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing ${missing[*]} (test audio, the browser, npm)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
}

# Biome, the formatter and linter of the web application's JavaScript and CSS, at the version
# tools/web-check/package-lock.json pins, into tools/web-check/node_modules (ignored by git).
ensure_web_check() {
  local dir="$repo_root/tools/web-check"
  local pinned
  pinned="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["devDependencies"]["@biomejs/biome"])' "$dir/package.json")"
  if [ "$("$dir/node_modules/.bin/biome" --version 2>/dev/null)" != "Version: $pinned" ]; then
    say "installing Biome (pinned) for the web application's checks"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
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
