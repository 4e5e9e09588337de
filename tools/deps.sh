#!/usr/bin/env bash
# tools/deps.sh — installs the Debian 12 packages Heatscope needs, only when missing.
# Sourced by tools/run and tools/test.
set -euo pipefail

HS_BUILD_PACKAGES=(
  meson ninja-build pkg-config gcc
  libglib2.0-dev libglib2.0-bin libgtk-4-dev libcairo2-dev libpng-dev libjpeg62-turbo-dev zlib1g-dev
  libjson-glib-dev gettext appstream desktop-file-utils
  g++ cmake libgdcm-dev
  libxtst-dev libepoxy-dev
)
HS_TEST_PACKAGES=(
  xvfb xauth libgl1-mesa-dri dbus dbus-x11 imagemagick fonts-dejavu-core fonts-noto-mono xdotool
  python3-numpy python3-sklearn python3-opencv python3-torch python3-pil python3-torchvision python3-pandas
  python3-jsonschema parallel poppler-utils librsvg2-bin python3-matplotlib locales
  strace dconf-service dconf-gsettings-backend libglib2.0-bin
  python3-pydicom python3-pil dcmtk
  python3-skimage python3-scipy
)
# The libFuzzer harnesses (tools/fuzz, tools/fuzz-all; CI fuzzes every target briefly):
# clang with its sanitizer and fuzzer runtimes, llvm-symbolizer for readable reports.
HS_FUZZ_PACKAGES=(
  clang libclang-rt-dev llvm
)

# tools/test --stress N: keeps every core busy while the suite runs.
HS_STRESS_PACKAGES=(
  stress-ng
)

hs_install_packages () {
  local missing=()
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}
