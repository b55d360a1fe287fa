#!/usr/bin/env bash
# Installs the .deb into a clean Debian 12 root (debootstrap --variant=minbase: nothing but the Priority: required
# base) and runs the installed programs there, where no build tree exists: sightline-cli must find its rules, GPU
# specs and the bundled sample under /usr/share/sightline, and apt must resolve every runtime dependency from the
# package's Depends (shlibdeps) alone.
# Needs root, debootstrap and Debian's mirror. The root is kept (pass the same ROOT again to skip debootstrap);
# the package and the dependencies it pulled in are removed again at the end, so the next run starts from the
# same minimal root and again proves that Depends is complete.
# Usage: sudo packaging/test-deb-in-clean-root.sh sightline_VERSION_amd64.deb [ROOT] [MIRROR]
set -euo pipefail
deb="$(readlink -f "${1:?usage: test-deb-in-clean-root.sh DEB [ROOT] [MIRROR]}")"
root="${2:-/var/tmp/sightline-clean-root}"
mirror="${3:-http://deb.debian.org/debian}"
[ -f "$deb" ] || { echo "test-deb-in-clean-root: no such package $deb" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "test-deb-in-clean-root: needs root (debootstrap, chroot)" >&2; exit 2; }
if [ ! -f "$root/etc/debian_version" ]; then
  command -v debootstrap >/dev/null || { echo "test-deb-in-clean-root: apt-get install debootstrap" >&2; exit 2; }
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

name="$(basename "$deb")"
cp "$deb" "$root/tmp/$name"
echo "== installing $name and its Depends into $root"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "/tmp/$name" >/dev/null
in_root dpkg -s sightline | grep -E '^(Version|Depends):'

echo "== installed files"
for f in /usr/bin/sightline /usr/bin/sightline-cli /usr/share/sightline/gpus.json /usr/share/sightline/rules \
         /usr/share/sightline/samples/llm_decode_sample.sqlite /usr/share/applications/sightline.desktop \
         /usr/share/metainfo/org.sightline.Sightline.metainfo.xml /usr/share/mime/packages/sightline.xml \
         /usr/share/icons/hicolor/scalable/apps/sightline.svg /usr/share/icons/hicolor/48x48/apps/sightline.png \
         /usr/share/bash-completion/completions/sightline-cli /usr/share/man/man1/sightline-cli.1.gz \
         /usr/share/man/man1/sightline.1.gz; do
  [ -e "$root$f" ] || { echo "MISSING $f" >&2; exit 1; }
  echo "ok $f"
done

echo "== sightline-cli in the clean root (no build tree, no SIGHTLINE_RESOURCES)"
# No program's output is piped into head or grep -q here: they exit at the first line they need, the writer then
# dies of SIGPIPE (exit 141), and pipefail makes that the script's failure. Each output is captured whole first.
in_root sightline-cli --version
help="$(in_root sightline-cli analyze --help)"
printf '%s\n' "${help%%$'\n'*}"
out="$(in_root sh -c 'cd / && sightline-cli analyze /usr/share/sightline/samples/llm_decode_sample.sqlite \
        --model /usr/share/sightline/samples/llm_decode_sample.config.json --prompt 512')"
printf '%s\n' "$out" | sed -n 1,40p
case "$out" in *Findings*) ;; *) echo "analyze printed no findings (rules not found?)" >&2; exit 1 ;; esac
json="$(in_root sh -c 'cd / && sightline-cli analyze /usr/share/sightline/samples/llm_decode_sample.sqlite --format json')"
grep -q '"schema": *"sightline.analysis/1"' <<<"$json" || { echo "analyze --format json failed" >&2; exit 1; }
echo "== sightline (GUI) --version, offscreen"
in_root env QT_QPA_PLATFORM=offscreen sightline --version

in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq --autoremove sightline >/dev/null
echo "test-deb-in-clean-root: $name installs into a clean bookworm root and analyses the bundled sample there."
