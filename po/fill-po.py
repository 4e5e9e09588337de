#!/usr/bin/env python3
"""Writes PODIR/<lang>.po from PODIR/<domain>.pot and PODIR/<lang>-strings.py.

Usage: po/fill-po.py de   (after `meson compile -C BUILD heatscope-pot`)
       po/fill-po.py de po-lib   (the library's domain, heatscope-lib; after
                                  `meson compile -C BUILD heatscope-lib-pot`)
PODIR holds one template; its name is the gettext domain.
Fails, naming them, when strings of the template have no translation, so a
translation is either complete or the build tells which strings are new."""
import glob, os, re, sys

lang = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 2:
    here = os.path.join(os.path.dirname(here), sys.argv[2])
templates = glob.glob(os.path.join(here, "*.pot"))
if len(templates) != 1:
    sys.exit("%s: expected one .pot template, found %d" % (here, len(templates)))
domain = os.path.basename(templates[0])[:-len(".pot")]
ns = {}
exec(open(os.path.join(here, lang + "-strings.py"), encoding="utf-8").read(), ns)
table = ns["T"]

def unquote(lines):
    return "".join(eval(l) for l in lines)  # C-style quoted strings as in .po

def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'

pot = open(templates[0], encoding="utf-8").read()
blocks = pot.strip().split("\n\n")
out = ['# German translation of Heatscope.',
       '# This file is distributed under the same license as the heatscope package.',
       'msgid ""', 'msgstr ""',
       '"Project-Id-Version: %s\\n"' % domain,
       '"Report-Msgid-Bugs-To: \\n"',
       '"PO-Revision-Date: 2026-11-22 06:00+0000\\n"',
       '"Last-Translator: The Heatscope developers\\n"',
       '"Language-Team: German\\n"',
       '"Language: de\\n"',
       '"MIME-Version: 1.0\\n"',
       '"Content-Type: text/plain; charset=UTF-8\\n"',
       '"Content-Transfer-Encoding: 8bit\\n"',
       '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"', '']
missing = []
for block in blocks[1:]:
    comments, fields, cur = [], {}, None
    for line in block.split("\n"):
        if line.startswith("#"):
            comments.append(line)
            continue
        m = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) (".*")$', line)
        if m:
            cur = m.group(1)
            fields[cur] = [m.group(2)]
        elif line.startswith('"') and cur:
            fields[cur].append(line)
    ctxt = unquote(fields["msgctxt"]) if "msgctxt" in fields else None
    msgid = unquote(fields["msgid"])
    plural = unquote(fields["msgid_plural"]) if "msgid_plural" in fields else None
    key = (msgid, plural) if plural else ((ctxt, msgid) if ctxt else msgid)
    if key not in table:
        missing.append(key)
        continue
    out += [c for c in comments if not c.startswith("#,") or "format" in c]
    if ctxt is not None:
        out.append("msgctxt " + quote(ctxt))
    out.append("msgid " + quote(msgid))
    if plural:
        out.append("msgid_plural " + quote(plural))
        for i, form in enumerate(table[key]):
            out.append("msgstr[%d] %s" % (i, quote(form)))
    else:
        out.append("msgstr " + quote(table[key]))
    out.append("")
if missing:
    sys.exit("untranslated strings for %s:\n  %s" % (lang, "\n  ".join(map(repr, missing))))
open(os.path.join(here, lang + ".po"), "w", encoding="utf-8").write("\n".join(out))
print("wrote", os.path.join(here, lang + ".po"))
