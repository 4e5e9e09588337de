#!/bin/sh
# po/check-complete.sh SOURCE_ROOT LANG [PODIR] — fails when the sources have
# a user-visible string that PODIR/LANG.po does not translate (the committed
# template may be stale; this extracts the strings of PODIR/POTFILES afresh).
# PODIR is po (the application's domain, heatscope; the default) or po-lib
# (the library's, heatscope-lib).
# Fix: meson compile -C BUILD heatscope-pot && po/fill-po.py LANG (after
# adding the new strings to po/LANG-strings.py); for po-lib:
# meson compile -C BUILD heatscope-lib-pot && po/fill-po.py LANG po-lib.
set -eu
root=$1
lang=$2
podir=${3:-po}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
xgettext --package-name=heatscope -f "$podir/POTFILES" -D "$root" -o "$tmp/fresh.pot" \
  --from-code=UTF-8 -k_ -kN_ -kC_:1c,2 -kNC_:1c,2 -kg_dngettext:2,3 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
msgcmp "$podir/$lang.po" "$tmp/fresh.pot"
