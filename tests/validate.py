#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Validate isorun's outputs with real parsers (Debian's python3-jsonschema,
python3-lxml and python3-junitparser; run with /usr/bin/python3).

  validate.py report FILE...   each against docs/report.schema.json (draft 2020-12)
  validate.py found FILE...    the same for each FILE that is shaped as a report
                               (an object with a key only reports have), other
                               JSON (selftest --json, config --json) is skipped
  validate.py junit FILE...    each against tests/junit.xsd, then read by junitparser
  validate.py scan DIR...      every report and JUnit file anywhere below each DIR,
                               told by its content, whatever its name; a directory
                               named invalid-on-purpose is passed over

Exit 0 when all are valid; otherwise each error on stderr and exit 1.
"""
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Keys that only a report has at its top level, of isorun's JSON outputs.
REPORT_KEYS = {"schema", "verdict", "result", "output_tail"}


def found(paths):
    keep = []
    for p in paths:
        text = open(p, encoding="utf-8", errors="replace").read()
        try:
            doc = json.loads(text)
        except ValueError:
            # a broken report is reported as not JSON; other files (go test
            # -json's stream of objects, say) are not reports at all
            if any('"%s":' % k in text for k in REPORT_KEYS):
                keep.append(p)
            continue
        if isinstance(doc, dict) and REPORT_KEYS & doc.keys():
            keep.append(p)
    return reports(keep) if keep else 0


def reports(paths):
    import jsonschema

    schema = json.load(open(os.path.join(TOP, "docs", "report.schema.json")))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for p in paths:
        try:
            doc = json.load(open(p, encoding="utf-8"))
        except ValueError as e:
            print(f"{p}: not JSON: {e}", file=sys.stderr)
            bad += 1
            continue
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(x) for x in e.absolute_path) or "(top)"
            print(f"{p}: {where}: {e.message}", file=sys.stderr)
            bad += 1
    return bad


def junits(paths):
    from lxml import etree
    import junitparser

    xsd = etree.XMLSchema(etree.parse(os.path.join(TOP, "tests", "junit.xsd")))
    bad = 0
    for p in paths:
        try:
            doc = etree.parse(p)
        except etree.XMLSyntaxError as e:
            print(f"{p}: not XML: {e}", file=sys.stderr)
            bad += 1
            continue
        if not xsd.validate(doc):
            for e in xsd.error_log:
                print(f"{p}:{e.line}: {e.message}", file=sys.stderr)
            bad += 1
            continue
        # a real consumer reads it too, and agrees on the counts
        xml = junitparser.JUnitXml.fromfile(p)
        for suite in xml:
            cases = list(suite)
            failed = sum(1 for c in cases for r in c.result if isinstance(r, junitparser.Failure))
            if suite.tests != len(cases) or suite.failures != failed:
                print(f"{p}: counts disagree: tests={suite.tests} failures={suite.failures}, "
                      f"cases={len(cases)} failing={failed}", file=sys.stderr)
                bad += 1
    return bad


# A file bigger than this is no output of isorun's (a report is bounded: its tails
# are 4 KiB, its lists capped); reading it would only slow the scan down.
SCAN_MAX = 16 << 20


def kind(path):
    """'report', 'junit' or None, from the first bytes of a regular file."""
    try:
        st = os.lstat(path)
        if not (st.st_mode & 0o170000 == 0o100000) or not 0 < st.st_size <= SCAN_MAX:
            return None
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError:
        return None
    text = head.lstrip()
    if text.startswith(b"{") and any(b'"%s":' % k.encode() in head for k in REPORT_KEYS):
        return "report"
    if text.startswith(b"<") and b"<testsuite" in head:
        return "junit"
    return None


def scan(dirs):
    found_reports, found_junits = [], []
    for top in dirs:
        for root, subdirs, files in os.walk(top, onerror=lambda e: None):
            subdirs[:] = [d for d in subdirs if d != "invalid-on-purpose"]
            for name in files:
                p = os.path.join(root, name)
                k = kind(p)
                if k == "report":
                    found_reports.append(p)
                elif k == "junit":
                    found_junits.append(p)
    bad = found(found_reports) if found_reports else 0
    return bad + (junits(found_junits) if found_junits else 0)


def main():
    fns = {"report": reports, "found": found, "junit": junits, "scan": scan}
    if len(sys.argv) < 3 or sys.argv[1] not in fns:
        print(__doc__, file=sys.stderr)
        return 2
    fn = fns[sys.argv[1]]
    return 1 if fn(sys.argv[2:]) else 0


if __name__ == "__main__":
    sys.exit(main())
