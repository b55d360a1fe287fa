#!/usr/bin/env bash
# Checks that the zh_CN catalogue is complete for the current sources, without touching the tree:
#   1. lupdate (into a temporary copy) finds no string of model/, widgets/, app/gui/ without a finished translation;
#   2. every translation keeps its source's placeholders (%1, %L1, %n), HTML tags, newlines and accelerator;
#   3. lrelease compiles it.
# Usage: packaging/check-translations.sh [LUPDATE_DIR]   (default: /usr/lib/qt6/bin). Exit status 1 on any problem.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-/usr/lib/qt6/bin}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp translations/sightline_zh_CN.ts "$tmp/zh.ts"
"$bin/lupdate" -silent -no-obsolete -locations none -I . model widgets app/gui -ts "$tmp/zh.ts"
"$bin/lrelease" -silent "$tmp/zh.ts" -qm "$tmp/zh.qm"
python3 - "$tmp/zh.ts" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
from collections import Counter
placeholder = re.compile(r'%L?\d+|%n')
tag = re.compile(r'</?[a-zA-Z][^>]*>')
problems = messages = 0
for ctx in ET.parse(sys.argv[1]).getroot().iter('context'):
    name = ctx.find('name').text
    for m in ctx.iter('message'):
        messages += 1
        src = m.find('source').text or ''
        tr = m.find('translation')
        forms = [f.text or '' for f in tr.iter('numerusform')] or [tr.text or '']
        why = []
        if tr.get('type') == 'unfinished' or not all(f.strip() for f in forms):
            why.append('not translated')
        for f in forms:
            if Counter(placeholder.findall(src)) != Counter(placeholder.findall(f)):
                why.append('placeholders differ: %r' % f)
            if Counter(tag.findall(src)) != Counter(tag.findall(f)):
                why.append('HTML tags differ: %r' % f)
            if src.count('\n') != f.count('\n'):
                why.append('line breaks differ: %r' % f)
            if ('&' in src.replace('&&', '')) != ('&' in f.replace('&&', '')):
                why.append('accelerator differs: %r' % f)
        for w in why:
            print('%s: %r: %s' % (name, src, w))
        problems += len(why)
print('zh_CN: %d messages, %d problems' % (messages, problems))
sys.exit(1 if problems else 0)
EOF
