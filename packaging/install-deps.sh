#!/usr/bin/env bash
# Installs every build and runtime dependency of Sightline on a fresh Debian 12 (bookworm) machine.
# packaging/check-install-closure.sh (run by .ci/run) fails when the build uses a package this list does not bring.
# help2man and librsvg2-bin make the man pages and PNG icons of the package; appstream validates its metainfo.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends \
  build-essential cmake ninja-build ccache lld pkg-config git \
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-qpa-plugins qt6-translations-l10n libgl-dev \
  libsqlite3-dev sqlite3 nlohmann-json3-dev libsimdjson-dev zlib1g-dev libmuparser-dev libre2-dev libcurl4-openssl-dev \
  libgtest-dev libgmock-dev libbenchmark-dev \
  xvfb xauth poppler-utils fonts-noto-cjk python3 \
  help2man librsvg2-bin appstream desktop-file-utils
