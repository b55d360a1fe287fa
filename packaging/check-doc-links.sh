#!/usr/bin/env bash
# A newcomer's check of the documentation: every relative link and image in README.md, CHANGELOG.md and docs/*.md
# must resolve to a file or folder of the repository, and every #anchor to a heading of the target page (GitHub's
# slugs: lower case, punctuation dropped, spaces to hyphens, -1, -2, ... for repeated headings). Links with a scheme
# (https:, mailto:) are not fetched. Prints FILE:LINE: LINK: what is wrong for each bad link and exits 1; exits 0
# when every link resolves. Run by ctest as packaging_doc_links.
#   packaging/check-doc-links.sh [REPO_ROOT] [FILE.md...]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
shift || true
exec python3 - "$root" "$@" <<'EOF'
import os, re, sys, unicodedata
from urllib.parse import unquote

root = os.path.abspath(sys.argv[1])
files = sys.argv[2:]
if not files:
    files = [f for f in ("README.md", "CHANGELOG.md") if os.path.exists(os.path.join(root, f))]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        files += sorted("docs/" + f for f in os.listdir(docs) if f.endswith(".md"))

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)")
HTML = re.compile(r"<(?:a|img)\s[^>]*?(?:href|src)\s*=\s*\"([^\"]*)\"", re.I)
HTML_ID = re.compile(r"<[a-z][^>]*\s(?:id|name)\s*=\s*\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def strip_code_spans(line):
    """Blank out `code spans`, so links shown as code are not checked (lengths kept for nothing else)."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "`":
            n = len(line) - len(line[i:].lstrip("`"))
            ticks = line[i:i + n]
            end = line.find(ticks, i + n)
            if end < 0:
                out.append(line[i:])
                break
            out.append(" " * (end + n - i))
            i = end + n
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def slug(text):
    """GitHub's heading anchor: the rendered text, lower case, without punctuation, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)      # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)                          # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(^|\s)_+|_+(\s|$)", r"\1\2", text)          # _emphasis_ (not snake_case)
    text = text.strip().lower()
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " -_" or cat[0] in "LN" or cat in ("Mn", "Mc", "Me", "Pc"):
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def lines_outside_code(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                mark = m.group(1)
                if fence is None:
                    fence = mark[0] * len(mark)
                    continue
                if mark[0] == fence[0] and len(mark) >= len(fence) and line.strip() == mark:
                    fence = None
                    continue
            if fence is None:
                yield n, line.rstrip("\n")


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        found, seen = set(), {}
        for _, line in lines_outside_code(path):
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                k = seen.get(base, 0)
                seen[base] = k + 1
                found.add(base if k == 0 else f"{base}-{k}")
            for a in HTML_ID.findall(line):
                found.add(a)
        anchor_cache[path] = found
    return anchor_cache[path]


def check(src, target):
    """None when the link resolves, else why not."""
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target or SCHEME.match(target) or target.startswith("//"):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = unquote(path_part)
    if path_part.startswith("/"):
        return "absolute path: links must be relative to the page"
    dest = os.path.normpath(os.path.join(os.path.dirname(src), path_part)) if path_part else src
    if not (dest == root or dest.startswith(root + os.sep)):
        return "points outside the repository"
    if not os.path.exists(dest):
        return f"no such file or folder: {os.path.relpath(dest, root)}"
    if anchor:
        if os.path.isdir(dest) or not dest.endswith(".md"):
            return f"#{anchor} on a target that is not a Markdown page"
        if unquote(anchor).lower() not in anchors(dest):
            return f"no heading #{anchor} in {os.path.relpath(dest, root)}"
    return None


bad = checked = 0
for rel in files:
    src = os.path.join(root, rel)
    if not os.path.exists(src):
        print(f"{rel}: no such file", file=sys.stderr)
        bad += 1
        continue
    for n, line in lines_outside_code(src):
        text = strip_code_spans(line)
        targets = [m.group(2) for m in INLINE.finditer(text)]
        m = REFDEF.match(text)
        if m:
            targets.append(m.group(2))
        targets += HTML.findall(text)
        for t in targets:
            checked += 1
            why = check(src, t)
            if why:
                bad += 1
                print(f"{rel}:{n}: {t}: {why}", file=sys.stderr)

if bad:
    print(f"check-doc-links: {bad} bad link(s) of {checked} in {len(files)} file(s)", file=sys.stderr)
    sys.exit(1)
print(f"check-doc-links: {checked} relative and external links in {len(files)} file(s), every relative one resolves")
EOF
