#!/usr/bin/env bash
# What tests/fuzz/run.sh needs on top of install-deps.sh (Debian 12): clang 14 and its libFuzzer / sanitizer
# runtimes: -fsanitize=fuzzer links libclang-rt-14-dev's libclang_rt.fuzzer; libfuzzer-14-dev (the standalone
# libFuzzer.a the issue names) is installed too for building a target by hand without clang's driver.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends clang libclang-rt-14-dev libfuzzer-14-dev
