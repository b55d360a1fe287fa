#!/bin/bash
# pack-cli.sh CLI DIR: copies a CLI-only sightline-cli and the shared libraries it needs beyond glibc and the C++
# runtime into DIR (DIR/lib), with an RPATH of $ORIGIN/lib that reaches the libraries' own dependencies too
# (DT_RPATH, not RUNPATH), so it runs on a machine without them and nothing it starts inherits them.
set -eu
cli=${1:?usage: pack-cli.sh CLI DIR}
dir=${2:?usage: pack-cli.sh CLI DIR}
rm -rf "$dir"; mkdir -p "$dir/lib"
cp "$cli" "$dir/sightline-cli"
strip "$dir/sightline-cli"
ldd "$cli" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case $(basename "$lib") in
        libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|libutil.so*|libanl.so*|libnss*) ;;
        *) cp -L "$lib" "$dir/lib/" ;;
    esac
done
patchelf --force-rpath --set-rpath '$ORIGIN/lib' "$dir/sightline-cli"
for l in "$dir"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$l"; done
du -sh "$dir"
