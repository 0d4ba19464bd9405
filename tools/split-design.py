#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Split the old docs/design.md into the pages that replace it (issue 37).

    tools/split-design.py [--design FILE] [--contract] [--pointer] [TOP]

Reads FILE (default TOP/docs/design.md, TOP the checkout, default .), which
must be the whole old page: the contract, then "## Decisions where the
contract was silent" and its "### Title (issue N)" sections.  Writes, under
TOP/docs:

  decisions/NNNN-slug.md   one record per decision section, numbered in the
                           order the sections appear (0001: the list before
                           the first section); each says its date (the first
                           commit whose docs/design.md has its heading, from
                           `git log -S`), its issue, what it superseded where
                           its text says so, and the text as it was, with the
                           titles it quotes turned into links;
  decisions/README.md      the index;
  contract.md              with --contract only: the contract part, less its
                           "## Layout" (docs/architecture.md has the module
                           map).  contract.md was edited by hand after the
                           split; a re-run overwrites those edits;
  design.md                with --pointer: the short page that points to the
                           three.

Run on the old page kept apart, e.g. `git show REV:docs/design.md >/tmp/d.md;
tools/split-design.py --design /tmp/d.md`, when a decision section was added
to it after the split.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

DECISIONS = "## Decisions where the contract was silent"

# Issues of the sections whose titles name none: from the commit that added
# each and the issue texts (`issues show N`).
ISSUE_OF = {
    "": "2 (the launcher core); later items name issues 26, 27, 29 and 39",
    "Ceilings and the run's cgroup": "15",
    "Reaping, storms and deadlines": "11",
    "Output": "11",
    "Startup and delivery": "11",
    "Policy": "4",
    "Namespaces": "3",
    "isorun.conf": "5",
    "ls and gc": "5",
    "selftest": "5",
    "Packaging": "5",
    "The per-use pages": "5",
    "Protections: inherited descriptors, service guard options, socket identity": "11",
}

# Where one record replaced another's decision in part, and says so in words
# the sentence search below does not catch.
SUPERSEDES_ALSO = {
    "The release proof, and the shield by handle": [
        "Holders without reading the host (issue 25)",
    ],
    "The gate: an ordinary user's tree proven by its overlay": [
        "Holders without reading the host (issue 25)",
    ],
    "One membership rule for every call that names a process": [
        "Signals stay inside the run (issue 27)",
    ],
    "One row per ceiling": ["One description per option (issue 28)"],
}

# Records written after the split, kept here so that a re-run keeps them last.
EXTRA = [(
    "The design page split in three (issue 37)", "2026-12-07", "37",
    """\
`docs/design.md` had grown to 3,976 lines: the contract, then 57 decision
sections appended in the order they arrived, with the architecture spread over
nine of them. A newcomer could not tell what holds now from what was decided on
the way. Issue 37 asked for pages a newcomer reads in an hour.

- **Three pages.** `docs/contract.md` says what users can rely on (the old
  page up to its decisions, less "Layout"). `docs/architecture.md` is one
  current picture of a run and the module map, under 300 lines, rewritten when
  the code changes and never appended to. `docs/decisions/` holds one record per
  decision, numbered in the order the old page had them; the list before the
  first section of the old page is record 0001. `docs/design.md` only points to
  the three.
- **Moved, not rewritten.** `tools/split-design.py` moved the text of each
  section into its record as it was. It dated each record by the first commit
  whose `docs/design.md` had its heading (`git log -S`), took the issue from the
  title, or else from the commit that added the section and the issue texts,
  quoted the sentences that say what the section replaced, and turned the
  titles it quotes into links. A record of the old page keeps its words; only
  `contract.md` was rewritten in plainer sentences afterwards.
- **New decisions are new records** (HACKING.md, "Add a decision record"); a
  change of mind is a new record that says what it supersedes.
- **The package installs the new pages** in place of `design.md`:
  `contract.md`, `architecture.md` and `decisions/` under `share/doc/isorun`,
  with their links rewritten by `packaging/doclinks.sh`.
- **Checked by** `tests/integration/docs_pages.bats`: every record has its
  number, title, date, issue and supersedes line and a row in the index;
  `architecture.md` stays under 300 lines; `design.md` gains no section and
  nothing else names it; every relative link of the pages resolves.
""",
    ["Packaging", "The package's documentation and AppArmor profile (issue 39)"],
)]

FIRST_TITLE = "The first decisions: signals, the terminal, the environment, output, the report"

MARKERS = re.compile(
    r"before this|before issue \d+|until issue \d+|\bused to\b|\bBefore,|\(before,|"
    r"before 20\d\d-\d\d-\d\d|earlier versions?|the scan it replace|"
    r"no longer (?:name|fields|shown|read|ha[sv]e?|show)"
)


def slug(title):
    bare = re.sub(r"\s*\(issues? [^)]*\)$", "", title)
    s = re.sub(r"[^a-z0-9]+", "-", bare.lower()).strip("-")
    if len(s) > 50:
        s = s[:50].rsplit("-", 1)[0]
    return s


def bare_title(title):
    return re.sub(r"\s*\(issues? [^)]*\)$", "", title)


def issue_of(title):
    m = re.search(r"\((issues? [^)]*)\)$", title)
    if m:
        return re.sub(r"^issues? ", "", m.group(1))
    return ISSUE_OF.get(title, "none named")


def first_date(top, heading):
    out = subprocess.run(
        ["git", "-C", top, "log", "--format=%as", "-S" + heading, "--", "docs/design.md"],
        capture_output=True, text=True, check=False).stdout.split()
    return out[-1] if out else None


def sentences(body):
    """The text's bullets and paragraphs as one line each, split in sentences."""
    blocks, cur, fence = [], [], False
    for line in body.splitlines():
        if line.strip().startswith("```"):
            fence = not fence
            continue
        if fence or line.lstrip().startswith("|"):
            continue
        if not line.strip() or re.match(r"^\s*- ", line):
            if cur:
                blocks.append(" ".join(cur))
            cur = [line.strip()[2:] if line.strip().startswith("- ") else line.strip()]
            if not line.strip():
                cur = []
            continue
        cur.append(line.strip())
    if cur:
        blocks.append(" ".join(cur))
    for b in blocks:
        for s in re.split(r"(?<=[.;:])\s+(?=[A-Z(`*\"])", b):
            yield s.replace("**", "").strip()


def supersedes(title, body, index, also):
    found = []
    for s in sentences(body):
        if MARKERS.search(s) and s not in found:
            found.append(s if len(s) <= 320 else s[:317].rsplit(" ", 1)[0] + " ...")
        if len(found) == 3:
            break
    lines = []
    for t in also.get(bare_title(title), []):
        num, name = index[t]
        lines.append(f"  - in part, [{num}. {t}]({name})")
    for s in found:
        lines.append(f"  - as its text says: \"{s}\"")
    if not lines:
        return "- Supersedes: nothing its text names\n"
    return "- Supersedes:\n" + "\n".join(lines) + "\n"


def linker(index, prefix):
    """Turn "Title" and *Title* of a record into links (full or bare title)."""
    names = []
    for t, (num, name) in index.items():
        names.append((t, prefix + name))
        b = bare_title(t)
        if b != t:
            names.append((b, prefix + name))
    names.sort(key=lambda n: -len(n[0]))

    def link(text):
        # a link inside a fenced block would show as its brackets
        parts = re.split(r"(^```.*?^```$)", text, flags=re.M | re.S)
        return "".join(p if p.startswith("```") else link_part(p) for p in parts)

    def link_part(text):
        for t, target in names:
            if t in ("Output", "Policy", "selftest", "Packaging", "Namespaces"):
                continue
            for q in ('"', "*"):
                lb, la = (r"(?<!\*)", r"(?!\*)") if q == "*" else ("", "")
                # "T" below, "T below", "T": a link says where, not "below"
                for pat in (lb + re.escape(q + t + q) + la + r" (?:below|above)\b",
                            lb + re.escape(q + t) + r"(?:\s+(?:below|above))?"
                            + re.escape(q) + la):
                    text = re.sub(pat, lambda m, t=t, target=target, q=q:
                                  f"{q}[{t}]({target}){q}", text)
        return text
    return link


def split(text):
    head, sep, rest = text.partition("\n" + DECISIONS + "\n")
    if not sep:
        sys.exit(f"split-design: no '{DECISIONS}' line: is this the whole old page?")
    parts = re.split(r"^### (.+)$", rest, flags=re.M)
    intro, sections = parts[0], []
    for i in range(1, len(parts), 2):
        sections.append((parts[i].strip(), parts[i + 1].strip("\n")))
    # the intro: one sentence, then the list of the first decisions
    first_par, _, first_list = intro.strip("\n").partition("\n\n")
    return head, first_par, first_list, sections


def contract_text(head, link):
    # the module map is docs/architecture.md's now
    head = re.sub(r"\n## Layout\n.*?(?=\n## )", "\n", head, flags=re.S)
    head = head.replace(
        'the signal table in "Decisions"', 'the signal table in decision [0001](decisions/0001-'
        + slug(FIRST_TITLE) + '.md)')
    head = head.replace('"isorun.conf" under Decisions',
                        'decision "[isorun.conf](decisions/{isorun_conf})"')
    return link(head)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("top", nargs="?", default=".")
    ap.add_argument("--design")
    ap.add_argument("--contract", action="store_true")
    ap.add_argument("--pointer", action="store_true")
    a = ap.parse_args()
    top = a.top
    with open(a.design or os.path.join(top, "docs/design.md"), encoding="utf-8") as f:
        text = f.read()
    head, first_par, first_list, sections = split(text)

    records = [(FIRST_TITLE, first_list, "")] + [(t, b, t) for t, b in sections]
    records += [(x[0], x[3], None) for x in EXTRA]
    index = {}
    for n, (title, _, _) in enumerate(records, 1):
        index[title] = (f"{n:04d}", f"{n:04d}-{slug(title)}.md")
    extra = {x[0]: x for x in EXTRA}
    also = dict(SUPERSEDES_ALSO)
    for x in EXTRA:
        also[bare_title(x[0])] = x[4]
    superseded_by = {}
    for newer, olds in also.items():
        full = next(t for t in index if bare_title(t) == newer)
        for old in olds:
            superseded_by.setdefault(old, []).append(full)

    ddir = os.path.join(top, "docs/decisions")
    os.makedirs(ddir, exist_ok=True)
    for old in os.listdir(ddir):
        if re.match(r"^\d{4}-.*\.md$", old):
            os.remove(os.path.join(ddir, old))
    link = linker(index, "")
    rows = []
    for title, body, key in records:
        num, name = index[title]
        heading = "### " + title if key else DECISIONS
        if key is None:
            date, issue = extra[title][1], extra[title][2]
        else:
            # not in this checkout's history: the section's own date, else today
            m = re.search(r"\b(20\d\d-\d\d-\d\d)\b", body)
            date = (first_date(top, heading) or (m and m.group(1))
                    or datetime.date.today().isoformat())
            issue = issue_of(key)
        rows.append(f"| [{num}]({name}) | {title} | {date} | {issue} |")
        with open(os.path.join(ddir, name), "w", encoding="utf-8") as f:
            f.write(f"# {num}. {title}\n\n")
            f.write(f"- Date: {date}\n")
            f.write(f"- Issue: {issue}\n")
            f.write(supersedes(key or title, body, index, also))
            for newer in superseded_by.get(title, []):
                n2, f2 = index[newer]
                f.write(f"- Superseded in part by: [{n2}. {newer}]({f2})\n")
            if key is not None:
                f.write("- Moved from: `docs/design.md`, \"Decisions where the contract was "
                        "silent\" (issue 37)\n")
            f.write("\n")
            f.write(link(body.strip("\n")) + "\n")
    with open(os.path.join(ddir, "README.md"), "w", encoding="utf-8") as f:
        f.write("# Decisions\n\n")
        f.write("Each record is a decision taken where the contract "
                "([../contract.md](../contract.md)) was silent. "
                + first_par.strip().replace("\n", " ") + "\n\n")
        f.write("A record keeps the words it was written in; a later record that changes "
                "a decision says what it supersedes. HACKING.md says how to add one.\n\n")
        f.write("| number | title | date | issue |\n|---|---|---|---|\n")
        f.write("\n".join(rows) + "\n")

    if a.contract:
        conf = index.get("isorun.conf", ("", "0000-isorun-conf.md"))[1]
        out = contract_text(head, linker(index, "decisions/"))
        with open(os.path.join(top, "docs/contract.md"), "w", encoding="utf-8") as f:
            f.write(out.replace("{isorun_conf}", conf).rstrip("\n") + "\n")
    if a.pointer:
        with open(os.path.join(top, "docs/design.md"), "w", encoding="utf-8") as f:
            f.write(POINTER)


POINTER = """# isorun's design, in three pages

This page held the contract and every decision until issue 37 split it:

- [contract.md](contract.md): what a user can rely on (the command line, the
  exit codes, the tree, teardown, the report, "not measurable").
- [architecture.md](architecture.md): the pipeline of a run and the module map.
- [decisions/](decisions/README.md): one dated record per decision taken where
  the contract was silent, each saying its issue and what it superseded.

A new decision is a new record in `docs/decisions/` (HACKING.md says how), not
a section here.
"""

if __name__ == "__main__":
    main()
