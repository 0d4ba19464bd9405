#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Validate isorun's outputs with real parsers (Debian's python3-jsonschema,
python3-lxml and python3-junitparser; run with /usr/bin/python3).

  validate.py report FILE...   each against docs/report.schema.json (draft 2020-12)
  validate.py found FILE...    the same for each FILE that is shaped as a report
                               (an object with a key only reports have), other
                               JSON (selftest --json, config --json) is skipped
  validate.py junit FILE...    each against tests/junit.xsd, then read by junitparser

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


def main():
    fns = {"report": reports, "found": found, "junit": junits}
    if len(sys.argv) < 3 or sys.argv[1] not in fns:
        print(__doc__, file=sys.stderr)
        return 2
    fn = fns[sys.argv[1]]
    return 1 if fn(sys.argv[2:]) else 0


if __name__ == "__main__":
    sys.exit(main())
