#!/usr/bin/env bash
# Writes the man pages of sightline-cli and sightline from their --help with help2man. sightline-cli's page gets a
# COMMANDS section with every command's own --help.
# Writes OUT_DIR/sightline-cli.1.gz and OUT_DIR/sightline.1.gz (compressed as Debian policy asks).
# Usage: make-man.sh SIGHTLINE_CLI SIGHTLINE_GUI|- OUT_DIR VERSION
set -euo pipefail
cli="$1" gui="$2" out="$3" version="$4"
mkdir -p "$out"
inc="$(mktemp)"
trap 'rm -f "$inc"' EXIT
{
  echo "[COMMANDS]"
  "$cli" --help | sed -n 's/^  sightline-cli \([a-z][a-z-]*\).*/\1/p' | while read -r cmd; do
    echo ".SS $cmd"
    echo ".nf"
    "$cli" "$cmd" --help | sed 's/\\/\\e/g; s/^\./\\\&./; s/^'"'"'/\\\&'"'"'/'
    echo ".fi"
  done
  echo "[FILES]"
  echo ".TP"
  echo ".I /usr/share/sightline"
  echo "rules, GPU specs, kernel classes, JSON schemas and the bundled sample trace"
  echo ".TP"
  echo ".I \$XDG_DATA_HOME/sightline/knowledge.db"
  echo "the knowledge base of runs, findings and suggestions"
  echo "[SEE ALSO]"
  echo ".BR sightline (1),"
  echo ".BR nsys (1)"
} > "$inc"
# help2man reflows the top-level help's one-line synopses into a paragraph; the page shows them under COMMANDS
# instead, so it reads the top-level help without them, through a stand-in named like the program.
wrap="$(mktemp -d)"
trap 'rm -f "$inc"; rm -rf "$wrap"' EXIT
cat > "$wrap/sightline-cli" <<WRAP
#!/bin/sh
if [ "\$1" = "--version" ]; then exec "$cli" --version; fi
"$cli" --help | grep -v '^  sightline-cli '
WRAP
chmod +x "$wrap/sightline-cli"
help2man --no-info --no-discard-stderr --version-string="$version" --section=1 \
  --name="diagnose GPU traces of LLM inference from the command line" --include="$inc" \
  --output="$out/sightline-cli.1" "$wrap/sightline-cli"
if [ "$gui" != "-" ]; then
  printf '[SEE ALSO]\n.BR sightline-cli (1)\n' > "$inc"
  QT_QPA_PLATFORM=offscreen help2man --no-info --no-discard-stderr --version-string="$version" --section=1 \
    --name="workbench that diagnoses GPU traces of LLM inference" --include="$inc" \
    --output="$out/sightline.1" "$gui"
fi
gzip -9nf "$out/sightline-cli.1"
if [ "$gui" != "-" ]; then gzip -9nf "$out/sightline.1"; fi
