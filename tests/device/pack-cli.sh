#!/bin/bash
# pack-cli.sh CLI DIR [EXTRA...]: copies a CLI-only sightline-cli (and any EXTRA executables, e.g. the scale
# benchmarks and the sqlite3 tool) and the shared libraries they need beyond glibc and the C++ runtime into DIR
# (DIR/lib), with an RPATH of $ORIGIN/lib that reaches the libraries' own dependencies too (DT_RPATH, not RUNPATH),
# so they run on a machine without them and nothing they start inherits them.
set -eu
cli=${1:?usage: pack-cli.sh CLI DIR [EXTRA...]}
dir=${2:?usage: pack-cli.sh CLI DIR [EXTRA...]}
shift 2
rm -rf "$dir"; mkdir -p "$dir/lib"
for exe in "$cli" "$@"; do
    name=$(basename "$exe")
    [[ "$exe" == "$cli" ]] && name=sightline-cli
    cp "$exe" "$dir/$name"
    strip "$dir/$name"
    ldd "$exe" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
        case $(basename "$lib") in
            libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|libutil.so*|libanl.so*|libnss*) ;;
            *) cp -L "$lib" "$dir/lib/" ;;
        esac
    done
    patchelf --force-rpath --set-rpath '$ORIGIN/lib' "$dir/$name"
done
for l in "$dir"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$l"; done
du -sh "$dir"
