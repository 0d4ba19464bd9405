#!/usr/bin/env bats
# Reports many runs share (--report DIR/, --junit DIR/) and `isorun report`, which
# merges them into one verdict (issue 38).

load helpers

# The files of DIR whose names end in EXT, one a line.
files() {
	find "$1" -maxdepth 1 -type f -name "*$2" -printf '%f\n' | sort
}

@test "8 runs in parallel into one --report DIR/ and --junit DIR/ write 8 files each, named by the test binary, then the tree's name" {
	local pids=() i f id
	cp /bin/true "$W/pkg.test"
	for i in 1 2 3 4 5 6 7 8; do
		iso --report "$W/out/" --junit "$W/out/" -- "$W/pkg.test" -test.paniconexit0 \
			-test.timeout=10m0s 3>&- &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
	done
	[ "$(files "$W/out" .json | wc -l)" -eq 8 ]
	[ "$(files "$W/out" .xml | wc -l)" -eq 8 ]
	# the name a person knows first, then the tree's name: no two runs share one
	for f in $(files "$W/out" .json); do
		[[ "$f" =~ ^pkg\.test-[0-9]{8}T[0-9]{6}Z-[a-z2-7]{20}\.json$ ]]
		[ -f "$W/out/${f%.json}.xml" ]
		id=$(python3 -c 'import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "passed", r["verdict"]
assert r["invocation"] == {"runner": "go test", "binary": sys.argv[2], "test": "pkg.test",
                           "name": "pkg.test"}, r["invocation"]
print(os.path.basename(r["tree"]["path"]))' "$W/out/$f" "$W/pkg.test")
		[ "$f" = "pkg.test-$id.json" ]
	done
	assert_report_valid "$W"/out/*.json
	assert_junit_valid "$W"/out/*.xml
	assert_no_tree
}

@test "an existing directory without its slash gets a file per run too; the runner's own test name comes first" {
	mkdir "$W/out" "$W/t"
	printf 'echo ok 1\n' >"$W/t/basic.t"
	run env TEST_TARGET=//pkg:unit "$ISORUN" --no-config --root "$R" --report "$W/out" -- /bin/true
	[ "$status" -eq 0 ]
	[[ "$(files "$W/out" .json)" =~ ^__pkg_unit-[0-9]{8}T[0-9]{6}Z-[a-z2-7]{20}\.json$ ]]
	cd "$W"
	run env HARNESS_ACTIVE=1 "$ISORUN" --no-config --root "$R" --report out/ -- sh t/basic.t
	[ "$status" -eq 0 ]
	python3 - "$W/out" <<'PY'
import json, os, sys
got = {}
for f in os.listdir(sys.argv[1]):
    got[f.split("-")[0]] = json.load(open(os.path.join(sys.argv[1], f)))["invocation"]
assert got["__pkg_unit"] == {"runner": "bazel", "binary": "/bin/true", "test": "//pkg:unit",
                             "name": "//pkg:unit"}, got
assert got["t_basic.t"] == {"runner": "prove", "binary": "sh", "test": "t/basic.t",
                            "name": "t/basic.t"}, got
PY
	# the provisional report names its invocation too: a killed run is still known by it
	run env MESON_TEST_ITERATION=1 "$ISORUN" --no-config --root "$R" --report "$W/m/" -- \
		sh -c 'grep -q "\"runner\": \"meson test\"" "$1"/*.json' sh "$W/m"
	[ "$status" -eq 0 ]
}
