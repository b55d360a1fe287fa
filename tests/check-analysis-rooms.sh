#!/usr/bin/env bash
# The rooms of analysis/ are layered: trace ← io ← timeline ← roofline ← critpath ← diagnosis ← report ← (root)
# pipeline.
# A file may include its own room and rooms below it, never one above. Prints each upward include; exit 1 if any.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root/analysis" || exit 2
level() {
  case "$1" in
    trace) echo 0 ;; io) echo 1 ;; timeline) echo 2 ;; roofline) echo 3 ;; critpath) echo 4 ;; diagnosis) echo 5 ;;
    report) echo 6 ;; .) echo 7 ;; *) echo "" ;;
  esac
}
bad=0 files=0
while IFS= read -r f; do
  files=$((files + 1))
  # A room's sub-folder (diagnosis/binders) is that room.
  from=$(dirname "$f"); from=${from#./}; from=${from%%/*}; [ "$from" = "" ] && from=.
  lf=$(level "$from")
  if [ -z "$lf" ]; then echo "$f: in no room (trace io timeline roofline critpath diagnosis report, or the root)"; bad=1; continue; fi
  while IFS= read -r inc; do
    rest=${inc#analysis/}
    case "$rest" in */*) to=${rest%%/*} ;; *) to=. ;; esac
    lt=$(level "$to")
    if [ -z "$lt" ]; then echo "$f includes $inc: not in a room"; bad=1
    elif [ "$lt" -gt "$lf" ]; then echo "$f ($from) includes $inc ($to): points upward"; bad=1; fi
  done < <(grep -oE '^#include "analysis/[^"]+"' "$f" | sed -E 's/^#include "(.*)"/\1/')
done < <(find . -name '*.h' -o -name '*.cpp' -o -name '*.inl' | sort)
[ "$files" -gt 0 ] || { echo "no sources under $root/analysis"; exit 2; }
[ "$bad" -eq 0 ] && echo "analysis rooms ok: $files files, no include points upward"
exit $bad
