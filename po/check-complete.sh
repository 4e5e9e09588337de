#!/bin/sh
# po/check-complete.sh SOURCE_ROOT LANG — fails when the sources have a
# user-visible string that LANG.po does not translate (the committed
# heatscope.pot may be stale; this extracts the strings afresh).
# Fix: meson compile -C BUILD heatscope-pot && po/fill-po.py LANG (after
# adding the new strings to po/LANG-strings.py).
set -eu
root=$1
lang=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
xgettext --package-name=heatscope -f po/POTFILES -D "$root" -o "$tmp/fresh.pot" \
  --from-code=UTF-8 -k_ -kN_ -kC_:1c,2 -kNC_:1c,2 -kg_dngettext:2,3 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
msgcmp "po/$lang.po" "$tmp/fresh.pot"
