#!/usr/bin/env bash
# Builds the core, the CLI and the core's tests for AArch64 with Debian's cross toolchain, runs the tests under
# qemu-user, and checks that the arm64 CLI's analysis JSON of every real trace in ../shared/data (when present) is
# byte-identical to the x86-64 one given as $1 (e.g. build/dev/app/sightline-cli; optional).
#   packaging/cross-aarch64.sh [X86_CLI]
# Installs its packages with apt-get when run as root (arm64 multiarch: the cross compiler, qemu-user and the arm64
# -dev packages of the core's libraries). No GUI: Qt is not needed to answer what the core answers.
set -euo pipefail
cd "$(dirname "$0")/.."
x86_cli="${1:-}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
# libmuparser-dev and libsimdjson-dev are not co-installable across architectures (installing the arm64 ones
# removes the amd64 ones the native build needs), so those two are unpacked into a private sysroot instead.
if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null ||
   ! dpkg -s libsimdjson14:arm64 libmuparser2v5:arm64 libsqlite3-dev:arm64 >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends g++-aarch64-linux-gnu qemu-user \
    libsqlite3-dev:arm64 zlib1g-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 libcurl4-openssl-dev:arm64 \
    libsimdjson14:arm64 libmuparser2v5:arm64 nlohmann-json3-dev
fi
build=build/aarch64
sysroot="$PWD/$build/sysroot"   # inside the cross build folder: build/ holds only build folders
if ! [ -e "$sysroot/usr/lib/aarch64-linux-gnu/libsimdjson.so" ] || ! [ -e "$sysroot/usr/lib/aarch64-linux-gnu/libre2.so" ]; then
  mkdir -p "$sysroot/debs"
  (cd "$sysroot/debs" && apt-get download libsimdjson-dev:arm64 libsimdjson14:arm64 libmuparser-dev:arm64 libmuparser2v5:arm64 \
    libre2-dev:arm64 libre2-9:arm64 2>/dev/null)
  for d in "$sysroot"/debs/*.deb; do dpkg-deb -x "$d" "$sysroot"; done
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/packaging/aarch64-toolchain.cmake" "${launcher[@]}" \
  -DSIGHTLINE_AARCH64_SYSROOT="$sysroot" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIGHTLINE_BUILD_GUI=OFF -DSIGHTLINE_BUILD_BENCH=OFF \
  -DSIGHTLINE_SHARED_DATA="$PWD/../shared/data"
# The core's tests (analysis_*) and the CLI; the CLI tests spawn the CLI directly, which needs binfmt_misc.
targets=$(ninja -C "$build" -t targets all | sed -n 's/^\(analysis_tst_[a-z0-9_]*\): .*/\1/p' | sort -u)
cmake --build "$build" --target sightline-cli $targets
file "$build/app/sightline-cli"
# A failing test does not stop the real-trace comparison below; the script's status says both.
status=0
ctest --test-dir "$build" -R '^analysis_' --output-on-failure -j "$(nproc)" || status=1
if [ -n "$x86_cli" ] && [ -d ../shared/data ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  n=0; same=0
  # Both read this tree's resources: the JSON names the rules and classes files it used, and an x86-64 CLI built in
  # another checkout would otherwise name that checkout's (and could read other rules).
  export SIGHTLINE_RESOURCES="$PWD/resources"
  while IFS= read -r f; do
    "$x86_cli" analyze "$f" --format json -o "$tmp/x86.json" >/dev/null 2>&1 || true
    qemu-aarch64 -L / "$build/app/sightline-cli" analyze "$f" --format json -o "$tmp/arm.json" >/dev/null 2>&1 || true
    if ! cmp -s "$tmp/x86.json" "$tmp/arm.json"; then
      echo "DIFFERS: $f"; diff <(head -c 2000 "$tmp/x86.json") <(head -c 2000 "$tmp/arm.json") | head -20; status=1
    else
      same=$((same + 1))
    fi
    n=$((n + 1))
  done < <(find ../shared/data -name '*.json.gz' -o -name '*.sqlite' | sort)
  echo "analysis JSON identical on x86-64 and aarch64 for $same of $n real traces"
fi
exit $status
