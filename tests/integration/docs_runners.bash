# Shared by docs_go_exec, docs_cargo_runner and docs_prove.bats: the per-run
# reports a runner's hook left in a directory.
# shellcheck shell=bash

# reports_in DIR: one line per report in DIR, in the order of their names:
# NAME|VERDICT|EXIT|RUNNER|TEST, NAME being the file's name before the run's
# time and tree id (what a person finds in the directory).
reports_in() {
	/usr/bin/python3 -c '
import glob, json, os, re, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    with open(f, encoding="utf-8") as r:
        d = json.load(r)
    inv = d.get("invocation") or {}
    name = re.sub(r"-[0-9]{8}T[0-9]{6}Z-[a-z0-9]+[.]json$", "", os.path.basename(f))
    print("|".join(str(x) for x in (name, d["verdict"], d["exit"], inv.get("runner"), inv.get("test"))))
' "$1"
}
