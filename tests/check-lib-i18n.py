#!/usr/bin/env python3
"""tests/check-lib-i18n.py SOURCE_ROOT — fails when libheatscope builds a
user-visible message from a string literal that is not marked for
translation, or marks strings in a file po-lib/POTFILES does not list.

Messages are the format (or message) arguments of g_set_error,
g_set_error_literal, g_prefix_error, g_error_new, g_propagate_prefixed_error
and of every function in src/core declared G_GNUC_PRINTF (the library's own
error helpers such as hs_import_skip or model_error).  A literal counts as
marked inside _() or N_(); a literal without letters (after dropping its
printf conversions, as in "%s: %s") needs no translation.  Deliberate
exceptions are listed, with the reason, in tests/lib-i18n-exempt.txt as
"FILE<TAB>LITERAL" lines (the literal as written in the source, without
quotes)."""
import os, re, sys

root = sys.argv[1]
core = os.path.join(root, "src", "core")

FIXED = {
    "g_set_error": 4, "g_set_error_literal": 4,
    "g_prefix_error": 2, "g_prefix_error_literal": 2,
    "g_error_new": 3, "g_error_new_literal": 3,
    "g_propagate_prefixed_error": 3,
}


def strip_comments(text):
    """Blanks comments (keeping line breaks and string literals) so offsets map to lines."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def arguments(text, start):
    """The top-level arguments of the call whose '(' is at `start`, as (offset, text)."""
    args, depth, i, begin = [], 0, start, start + 1
    while i < len(text):
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append((begin, text[begin:i]))
                return args
        elif c == "," and depth == 1:
            args.append((begin, text[begin:i]))
            begin = i + 1
        i += 1
    return args


LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
CONVERSION = re.compile(r"%[-+ #0'*.\d]*(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcspn%]")
MARKER = re.compile(r"\b(?:N?C?_|g_dngettext|ngettext|g_dgettext)\s*\(")


def unmarked_literals(arg):
    """Literals with words in them that are not inside _() / N_()."""
    marked = []
    for m in MARKER.finditer(arg):
        inner = arguments(arg, m.end() - 1)
        if inner:
            marked.append((m.start(), inner[-1][0] + len(inner[-1][1]) + 1))
    found = []
    for m in LITERAL.finditer(arg):
        if any(a <= m.start() < b for a, b in marked):
            continue
        words = CONVERSION.sub("", m.group(1).replace("\\n", " "))
        # "PRIu64"-style macros sit between literals, not inside them.
        if re.search(r"[A-Za-z]{2,}", words):
            found.append(m.group(1))
    return found


sources = sorted(f for f in os.listdir(core) if f.endswith((".c", ".cc")))
texts = {f: strip_comments(open(os.path.join(core, f), encoding="utf-8").read()) for f in sources}

# The library's own printf-like helpers: name → index of the format argument.
# Those declared in a header apply everywhere, a .c file's (static) ones in it.
def helpers(text):
    found = {}
    for m in re.finditer(r"(\w+)\s*\([^;{}]*?\)\s*G_GNUC_PRINTF\s*\(\s*(\d+)", text):
        found[m.group(1)] = int(m.group(2))
    for m in re.finditer(r"G_GNUC_PRINTF\s*\(\s*(\d+)\s*,\s*\d+\s*\)\s*(?:\w+\s*\**\s*)*?\n(\w+)\s*\(", text):
        found[m.group(2)] = int(m.group(1))
    return found


shared = dict(FIXED)
for f in sorted(os.listdir(core)):
    if f.endswith(".h"):
        shared.update(helpers(strip_comments(open(os.path.join(core, f), encoding="utf-8").read())))

exempt = set()
exempt_path = os.path.join(root, "tests", "lib-i18n-exempt.txt")
for line in open(exempt_path, encoding="utf-8"):
    line = line.rstrip("\n")
    if line and not line.startswith("#"):
        exempt.add(tuple(line.split("\t", 1)))

problems, used_exemptions = [], set()
for f in sources:
    text = texts[f]
    calls = dict(shared)
    calls.update(helpers(text))
    call_re = re.compile(r"\b(" + "|".join(sorted(calls, key=len, reverse=True)) + r")\s*\(")
    for m in call_re.finditer(text):
        before = text[max(0, m.start() - 40):m.start()]
        # Skip the helpers' own definitions and prototypes ("type\nname (").
        if re.search(r"(?:\bstatic\b|\bgboolean|\bvoid|\bchar\s*\*|\bint)\s*$", before):
            continue
        args = arguments(text, m.end() - 1)
        index = calls[m.group(1)]
        if len(args) < index:
            continue
        offset, arg = args[index - 1]
        for literal in unmarked_literals(arg):
            key = ("src/core/" + f, literal)
            if key in exempt:
                used_exemptions.add(key)
                continue
            line = text.count("\n", 0, offset) + 1
            problems.append('src/core/%s:%d: %s(): "%s" is not marked with _()'
                            % (f, line, m.group(1), literal))

# Every file that marks strings must be extracted into the template.
potfiles = {l.strip() for l in open(os.path.join(root, "po-lib", "POTFILES"), encoding="utf-8")
            if l.strip() and not l.startswith("#")}
for f in sources:
    if re.search(r'\bN?_\s*\(\s*"', texts[f]) and "src/core/" + f not in potfiles:
        problems.append("src/core/%s: marks strings but is not listed in po-lib/POTFILES" % f)

for key in sorted(exempt - used_exemptions):
    problems.append('tests/lib-i18n-exempt.txt: "%s" is no longer used in %s; drop the line'
                    % (key[1], key[0]))

for p in problems:
    print(p)
if problems:
    print("%d problem(s); mark the strings with _() (src/core/hs-i18n-private.h), "
          "add the file to po-lib/POTFILES and German to po-lib/de-strings.py" % len(problems))
    sys.exit(1)
print("every library message in %d files is marked for translation" % len(sources))
