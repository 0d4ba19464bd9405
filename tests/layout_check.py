#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layout rules of docs/architecture.md ("Module map") that read the sources, for
tests/integration/layout.bats.

    tests/layout_check.py RULE TOP [ALLOW]

prints one line per offender ("RULE key: detail") of RULE under the tree TOP,
less those the allowlist ALLOW names, and one line "stale: ..." per allowlist
entry of RULE that no longer offends (so each removal is checked).  Exit 1 when
it printed anything.  RULE is one of:

  include-cycle   no cycle of includes between the files of one folder
  comment-path    every repository path a C comment names exists
  long-function   no function over 80 lines (key: file:function)
  option-name     no "--option" in a string literal outside cli/ (key: file:--option)
  error-buffer    no header declares a "char *why, size_t len" error buffer: errors go
                  into struct iso_err (key: file:function)
  prefix          a header's functions carry its folder's prefix (PREFIX below;
                  key: file:function)
  bats-background every command a test file puts in the background closes bats'
                  fd 3 ("3>&-"): what outlives a failed test would hold the TAP
                  stream open, and the suite waits on it (key: file:line)
  primitive       common/ holds each primitive once: outside it, no monotonic
                  clock read (iso_now_ms()), no kernel sigaction layout (struct
                  iso_ksigaction) and no read() retried on EINTR (iso_read_all())
                  (key: file:what)

ALLOW has one entry a line, "RULE key  # reason"; blank lines and lines
starting with # are ignored.
"""
import os
import re
import sys

FOLDERS = ["common", "ns", "policy", "tree", "cgroup", "launcher", "selftest", "cli"]
MAX_LINES = 80


def sources(top, folders=FOLDERS):
    for d in folders:
        path = os.path.join(top, d)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if name.endswith((".c", ".h")):
                yield d, name, os.path.join(path, name)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def include_cycle(top):
    """Nodes are a folder's files by stem (x.c and x.h are one)."""
    for d in FOLDERS:
        edges = {}
        for _, name, path in sources(top, [d]):
            stem = name.rsplit(".", 1)[0]
            for inc in re.findall(r'^#include "%s/([a-z0-9_]+)\.h"' % d, read(path), re.M):
                if inc != stem:
                    edges.setdefault(stem, set()).add(inc)
        for cycle in cycles(edges):
            yield "%s/: %s" % (d, " -> ".join(cycle + [cycle[0]])), ""


def cycles(edges):
    """Each elementary cycle once, as found by a depth-first walk from its least node."""
    found = set()
    for start in sorted(edges):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    key = tuple(path)
                    if key not in found:
                        found.add(key)
                        yield list(path)
                elif nxt > start and nxt not in path:
                    stack.append((nxt, path + [nxt]))


PATH_RE = re.compile(
    r"(?<![\w/.$-])((?:common|ns|policy|tree|cgroup|launcher|selftest|cli|tests|docs|bench|"
    r"packaging|examples)/[\w./-]*\w\.(?:c|h|md|bats|sh|bash|txt|policy|py|json|awk|xsd))\b")


def comments(text):
    """The text of each C comment, with the line it starts on."""
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S):
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def comment_path(top):
    for d, name, path in sources(top):
        for line, c in comments(read(path)):
            for p in PATH_RE.findall(c):
                if not os.path.exists(os.path.join(top, p)):
                    yield "%s/%s: %s" % (d, name, p), " (line %d)" % line


FUNC_START = re.compile(r"^(?!#|static const|struct|enum|union|typedef)[A-Za-z_].*\(")


def long_function(top):
    for d, name, path in sources(top):
        if not name.endswith(".c"):
            continue
        start = fname = None
        for n, line in enumerate(read(path).split("\n"), 1):
            if start is None and FUNC_START.match(line) and not line.rstrip().endswith(";"):
                m = re.search(r"(\w+)\s*\(", line.split("(")[0] + "(")
                start, fname = n, m.group(1) if m else "?"
            elif start is not None and line.startswith("}"):
                if n - start > MAX_LINES:
                    yield "%s/%s:%s" % (d, name, fname), " %d lines" % (n - start)
                start = None
            elif start is not None and line.rstrip().endswith(";") and line[:1].isalpha():
                start = None  # a declaration over several lines, not a definition


OPTION_RE = re.compile(r'"(?:[^"\\\n]|\\.)*?(?<![\w-])(--[a-z][a-z0-9-]*)')


def option_name(top):
    for d, name, path in sources(top, [f for f in FOLDERS if f != "cli"]):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"),
                      read(path), flags=re.S)
        seen = {}
        for n, line in enumerate(text.split("\n"), 1):
            for s in re.findall(r'"(?:[^"\\\n]|\\.)*"', line):
                for opt in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", s):
                    seen.setdefault(opt, n)
        for opt, n in sorted(seen.items()):
            yield "%s/%s:%s" % (d, name, opt), " (line %d)" % n


ERROR_BUFFER = re.compile(r"\bchar\s*\*\s*(why|err|errbuf|error|reason|msg)\s*,\s*size_t\b")


def error_buffer(top):
    """Each declaration (a header's text between ';', '{' and '}') taking such a buffer."""
    for d, name, path in sources(top):
        if not name.endswith(".h"):
            continue
        text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", read(path), flags=re.S)
        for decl in re.split(r"[;{}]", text):
            m = ERROR_BUFFER.search(decl)
            if m:
                f = re.search(r"(\w+)\s*\(", decl)
                yield "%s/%s:%s" % (d, name, f.group(1) if f else "?"), " char *%s" % m.group(1)


# One prefix per folder (docs/architecture.md, "Module map"): a name says where it comes from.
PREFIX = {"common": "iso", "ns": "ns", "policy": "pol", "tree": "tree", "cgroup": "cg",
          "launcher": "sup", "selftest": "st", "cli": "cli"}


def declarations(text):
    """A header's top-level declarations: comments, directives and bodies blanked."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    # a directive with its continued lines: a macro's body declares nothing
    text = re.sub(r"^[ \t]*#(?:\\\n|[^\n])*", " ", text, flags=re.M)
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", text)
    out, depth, cur = [], 0, []
    for c in text:
        if c == "{":
            if depth == 0:
                out.append("".join(cur) + "{")
                cur = []
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            if c == ";":
                out.append("".join(cur))
                cur = []
            else:
                cur.append(c)
    return out


def prefix(top):
    for d, name, path in sources(top):
        if not name.endswith(".h") or d not in PREFIX:
            continue
        for decl in declarations(read(path)):
            decl = decl.strip()
            if re.match(r"(typedef|struct|union|enum)\b[^(]*$", decl) or "=" in decl or \
                    decl.startswith("typedef"):
                continue
            # a prototype, or a function declared through a function type ("x_fn name")
            m = re.match(r"[A-Za-z_][\w\s\*]*?[\s\*](\w+)\s*\(", decl) or \
                re.fullmatch(r"(?:extern\s+)?\w+_fn\s+(\w+)", decl)
            if m and not re.match(r"(%s)_" % PREFIX[d], m.group(1)):
                yield "%s/%s:%s" % (d, name, m.group(1)), " not %s_" % PREFIX[d]


BACKGROUND = re.compile(r"(?<![&|>])&\s*$")


def bats_background(top):
    """Each logical line (continuations joined) of tests/integration/*.bats and
    *.bash that ends in a background '&' without closing fd 3."""
    d = os.path.join(top, "tests", "integration")
    if not os.path.isdir(d):
        return
    for name in sorted(os.listdir(d)):
        if not name.endswith((".bats", ".bash")):
            continue
        lines = read(os.path.join(d, name)).split("\n")
        i = 0
        while i < len(lines):
            j = i
            while lines[j].endswith("\\") and j + 1 < len(lines):
                j += 1
            logical = " ".join(lines[i:j + 1])
            if not lines[j].lstrip().startswith("#") and BACKGROUND.search(lines[j]) \
                    and "3>&-" not in logical:
                yield "tests/integration/%s:%d" % (name, j + 1), " no 3>&-"
            i = j + 1


PRIMITIVES = [
    ("monotonic-clock", re.compile(r"\bclock_gettime\s*\(\s*CLOCK_MONOTONIC\b")),
    ("kernel-sigaction", re.compile(r"\brestorer\b")),
]


def primitive(top):
    """Comments blanked; a read() with EINTR on its line or the two after it."""
    for d, name, path in sources(top, [f for f in FOLDERS if f != "common"]):
        text = re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"),
                      read(path), flags=re.S)
        lines = text.split("\n")
        for what, pattern in PRIMITIVES:
            hits = [n for n, line in enumerate(lines, 1) if pattern.search(line)]
            if hits:
                yield "%s/%s:%s" % (d, name, what), " (line %d)" % hits[0]
        hits = [n for n, line in enumerate(lines, 1) if re.search(r"(?<![\w.>])read\s*\(", line)
                and "EINTR" in " ".join(lines[n - 1:n + 2])]
        if hits:
            yield "%s/%s:read-eintr" % (d, name), " (line %d)" % hits[0]


RULES = {"include-cycle": include_cycle, "comment-path": comment_path,
         "long-function": long_function, "option-name": option_name,
         "error-buffer": error_buffer, "prefix": prefix,
         "bats-background": bats_background, "primitive": primitive}


def allowed(path, rule):
    keys = set()
    if path:
        for line in read(path).split("\n"):
            line = line.split("#", 1)[0].strip()
            if line.startswith(rule + " "):
                keys.add(line[len(rule) + 1:].strip())
    return keys


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in RULES:
        sys.exit(__doc__)
    rule, top = sys.argv[1], sys.argv[2]
    allow = allowed(sys.argv[3] if len(sys.argv) > 3 else None, rule)
    bad = 0
    hit = set()
    for key, detail in RULES[rule](top):
        if key in allow:
            hit.add(key)
            continue
        print("%s %s:%s" % (rule, key, detail))
        bad += 1
    for key in sorted(allow - hit):
        print("stale: %s %s (it no longer offends: remove it from the allowlist)" % (rule, key))
        bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
