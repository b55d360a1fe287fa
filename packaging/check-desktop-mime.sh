#!/bin/sh
# check-desktop-mime.sh DESKTOP MIME_XML: the .desktop entry's MimeType list holds only the types Sightline reads —
# those sightline-mime.xml defines, and the SQLite database an nsys export is — and every type that file defines.
# Nothing broader: application/json or application/gzip would offer Sightline for every JSON or gzip file.
set -eu
desktop=$1
mime=$2
lines=$(grep -c '^MimeType=' "$desktop" || true)
[ "$lines" = 1 ] || { echo "$desktop: expected one MimeType= line, found $lines" >&2; exit 1; }
types=$(sed -n 's/^MimeType=//p' "$desktop" | tr ';' '\n' | sed '/^$/d')
status=0
for t in $types; do
  [ "$t" = application/vnd.sqlite3 ] && continue
  grep -q "<mime-type type=\"$t\">" "$mime" ||
    { echo "$desktop: MimeType $t is neither defined in $mime nor an nsys export's SQLite type" >&2; status=1; }
done
for d in $(sed -n 's/.*<mime-type type="\([^"]*\)">.*/\1/p' "$mime"); do
  echo "$types" | grep -qx "$d" || { echo "$desktop: $d is defined in $mime but not in MimeType" >&2; status=1; }
done
[ $status = 0 ] && echo "MimeType: $(echo $types)"
exit $status
