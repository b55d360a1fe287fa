#!/usr/bin/env bash
# Checks that packaging/install-deps.sh installs everything the build actually used, so that a fresh Debian
# machine can build what this machine built. It lists every file from outside the source and build trees that the
# build read:
#   - the CMake files configure read (the implicit inputs of build.ninja's RERUN_CMAKE edge: Qt6*Config.cmake, ...),
#   - the programs the build runs (its command lines, and the tools CMakeCache.txt names: compiler, ccache, ld, moc),
#   - every library on a link line of build.ninja (absolute paths and -lNAME),
#   - every header a compile read (`ninja -t deps`, present once something was built),
# finds the Debian package owning each (`dpkg -S`, following symlinks such as /usr/bin/c++ → alternatives), and
# fails when a package is neither named in install-deps.sh nor pulled in by what it names
# (`apt-cache depends --recurse --no-recommends`, plus the Essential/Priority: required base of every Debian system).
# Example of what it catches: qt6-charts-dev needs Qt6OpenGL's CMake files (libqt6opengl6-dev), which Debian's
# package does not depend on.
#
# Usage: packaging/check-install-closure.sh [BUILD_DIR] [--deps-script FILE] [-v]
#   BUILD_DIR    a configured Ninja build tree (default: build/dev)
#   --deps-script  the install script to judge (default: packaging/install-deps.sh)
#   -v           list every package used and the file that made it needed
# Exit status: 0 closed, 1 a package is missing from the closure (each is printed with a file that needs it),
#              2 usage or environment error (no build tree, not Ninja, no dpkg/apt-cache).
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="" deps_script="$src/packaging/install-deps.sh" verbose=0
while [ $# -gt 0 ]; do
  case "$1" in
    --deps-script) deps_script="${2:?--deps-script needs a file}"; shift 2 ;;
    -v) verbose=1; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-install-closure: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) build="$1"; shift ;;
  esac
done
build="${build:-$src/build/dev}"
build="$(cd "$build" 2>/dev/null && pwd)" || { echo "check-install-closure: no build directory '$build'" >&2; exit 2; }
for f in "$build/build.ninja" "$build/CMakeCache.txt" "$deps_script"; do
  [ -f "$f" ] || { echo "check-install-closure: $f is missing (configure with -G Ninja first)" >&2; exit 2; }
done
for tool in dpkg dpkg-query apt-cache ninja; do
  command -v "$tool" >/dev/null || { echo "check-install-closure: needs $tool (a Debian system with ninja)" >&2; exit 2; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# 1. The packages install-deps.sh names: the words after `apt-get install` (continuation lines joined), options and
#    shell expansions left out.
sed -e ':a' -e '/\\$/{N;s/\\\n/ /;ba}' "$deps_script" | grep -E 'apt-get( +[^ ]+)* +install' \
  | sed -E 's/.*apt-get( +[^ ]+)* +install//' | tr ' \t' '\n\n' | grep -Ev '^(-|$)|[$"'"'"'&;|<>()]' \
  | sed 's/:.*$//' | sort -u > "$tmp/named"
[ -s "$tmp/named" ] || { echo "check-install-closure: found no 'apt-get install' packages in $deps_script" >&2; exit 2; }

# 2. Their closure, plus the base every Debian system has (Essential: yes, Priority: required — what debootstrap
#    --variant=minbase installs).
# shellcheck disable=SC2046
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
  $(cat "$tmp/named") 2>"$tmp/apt.err" | grep -v '^ ' | grep -v '^<' | sed 's/:.*$//' > "$tmp/closure.raw" \
  || { echo "check-install-closure: apt-cache depends failed:" >&2; cat "$tmp/apt.err" >&2; exit 2; }
if grep -q . "$tmp/apt.err"; then
  echo "check-install-closure: apt-cache does not know some named package (run apt-get update?):" >&2
  cat "$tmp/apt.err" >&2
  exit 1
fi
dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' | awk '$2 == "yes" || $3 == "required" {print $1}' \
  >> "$tmp/closure.raw"
sort -u "$tmp/closure.raw" > "$tmp/closure"

# 3. The files the build used, outside the source and build trees.
{
  # CMake files configure read: the implicit inputs of the edge that re-runs CMake.
  awk '/^build build\.ninja:/{p=1} p{print; if (!/\$$/) exit}' "$build/build.ninja" | tr ' ' '\n'
  # Link lines: absolute paths, and -lNAME resolved the way the compiler does.
  grep -E '^ +LINK_LIBRARIES = ' "$build/build.ninja" | tr ' ' '\n' | sort -u > "$tmp/linkwords"
  grep '^/' "$tmp/linkwords" || true
  sed -n 's/^-l\(.*\)$/\1/p' "$tmp/linkwords" | while read -r lib; do
    cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
    p="$("${cxx:-c++}" -print-file-name="lib$lib.so")"; if [ "$p" != "lib$lib.so" ]; then echo "$p"; fi
  done
  # Programs the build runs: those in its command lines (moc, rcc, lrelease, ...) and the tools CMakeCache.txt
  # names (compiler, ccache, ar, ld, pkg-config, ninja). Libraries the cache merely found (FindOpenGL's libEGL,
  # libGLU) are not used unless they are on a link line, so only executables are taken from it.
  grep -hoE '(^|[ ="])/[^ ":;$]+' "$build/build.ninja" "$build/CMakeFiles/rules.ninja" 2>/dev/null \
    | sed -E 's/^[ ="]//' | grep -Ev '\.(cmake|in|cpp|h|txt)$' | sort -u \
    | while IFS= read -r p; do if [ -x "$p" ] && [ -f "$p" ]; then echo "$p"; fi; done
  sed -nE 's/^[A-Za-z0-9_.+-]+:FILEPATH=(\/.*)$/\1/p' "$build/CMakeCache.txt" \
    | while IFS= read -r p; do if [ -x "$p" ] && [ -f "$p" ]; then echo "$p"; fi; done
  # Headers, once something was compiled.
  ninja -C "$build" -t deps 2>/dev/null | grep -E '^ +/' | sed 's/^ *//' | tee "$tmp/headers" || true
} | grep '^/' | grep -v -e "^$src/" -e "^$build/" -e '^/tmp/' -e '^/proc/' | sort -u > "$tmp/paths.all"
# Files only: a directory (/usr/include) is owned by dozens of packages and says nothing.
while IFS= read -r p; do if [ -f "$p" ]; then echo "$p"; fi; done < "$tmp/paths.all" > "$tmp/paths"
[ -s "$tmp/headers" ] || echo "check-install-closure: nothing compiled in $build yet: headers not checked (build first)" >&2
[ -s "$tmp/paths" ] || { echo "check-install-closure: $build lists no system file (is it configured?)" >&2; exit 2; }

# 4. Owners. dpkg -S knows the path as the package installed it: try it as given, then with symlinks resolved
#    (alternatives, usrmerge's /lib → /usr/lib), then the /usr-less spelling usrmerge hides.
owners() { # stdin: paths; stdout: "path<TAB>pkg[, pkg]" for the owned ones
  tr '\n' '\0' | xargs -0 -r dpkg -S 2>/dev/null | grep -v '^diversion by' \
    | sed -E 's/^(.*): (\/.*)$/\2\t\1/' || true
}
owners < "$tmp/paths" > "$tmp/own1"
cut -f1 "$tmp/own1" | sort -u > "$tmp/owned1"
sort -u "$tmp/paths" | comm -23 - "$tmp/owned1" > "$tmp/unowned1"
: > "$tmp/alias"
while IFS= read -r p; do
  r="$(readlink -f "$p")"
  printf '%s\t%s\n' "$r" "$p" >> "$tmp/alias"
  case "$r" in /usr/lib/*|/usr/bin/*|/usr/sbin/*) printf '%s\t%s\n' "${r#/usr}" "$p" >> "$tmp/alias" ;; esac
  case "$p" in /usr/lib/*|/usr/bin/*|/usr/sbin/*) printf '%s\t%s\n' "${p#/usr}" "$p" >> "$tmp/alias" ;; esac
done < "$tmp/unowned1"
cut -f1 "$tmp/alias" | sort -u | owners > "$tmp/own2"
# Map the second round back to the paths the build used.
awk -F'\t' 'NR == FNR {own[$1] = $2; next} ($1 in own) && !seen[$2]++ {print $2 "\t" own[$1]}' \
  "$tmp/own2" "$tmp/alias" > "$tmp/own2.mapped"
cat "$tmp/own1" "$tmp/own2.mapped" | sort -u > "$tmp/owned"
cut -f1 "$tmp/owned" | sort -u | comm -23 "$tmp/unowned1" - > "$tmp/unowned"

# 5. Judge: a file is covered when any of its owners is in the closure.
status=0
awk -F'\t' -v verbose="$verbose" '
  NR == FNR {ok[$1] = 1; next}
  {
    n = split($2, pk, /, */); hit = ""
    for (i = 1; i <= n; i++) { sub(/:[a-z0-9_-]+$/, "", pk[i]); if (pk[i] in ok) hit = pk[i] }
    if (hit == "") { if (!(pk[1] in missing)) missing[pk[1]] = $1 }
    else if (verbose && !(hit in used)) used[hit] = $1
  }
  END {
    for (p in used) printf "used     %-28s e.g. %s\n", p, used[p]
    for (p in missing) printf "MISSING  %-28s needed for %s\n", p, missing[p]
  }' "$tmp/closure" "$tmp/owned" | sort > "$tmp/report"
cat "$tmp/report"
if grep -q '^MISSING' "$tmp/report"; then
  echo "check-install-closure: the packages marked MISSING are used by the build in $build but neither named in" >&2
  echo "  $deps_script nor pulled in by what it names; a fresh Debian machine will not have them. Add them there." >&2
  status=1
fi
if [ -s "$tmp/unowned" ]; then
  echo "check-install-closure: files the build used that no Debian package owns (a fresh machine will not have them):" >&2
  sed 's/^/  /' "$tmp/unowned" >&2
  status=1
fi
if [ "$status" -eq 0 ]; then
  echo "check-install-closure: $(wc -l < "$tmp/paths") system files used by $build come from" \
       "$(cut -f2 "$tmp/owned" | tr ',' '\n' | sed 's/^ *//; s/:.*//' | sort -u | wc -l) packages, all installed by" \
       "$(basename "$deps_script") ($(wc -l < "$tmp/named") named, $(wc -l < "$tmp/closure") with their dependencies)."
fi
exit "$status"
