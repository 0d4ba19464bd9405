#!/usr/bin/env bats
# docs/use/prove.md: `prove --exec` runs each test script in a tree of its own,
# and `isorun report` merges their reports (docs_use.bash runs the page;
# docs_runners.bash reads the reports).

load helpers
load docs_use
load docs_runners

@test "prove.md: the leaking script fails by its own name, a skip stays a skip, prove exits 1, the merge 122" {
	require "prove (perl)" debian_tool prove
	run_page prove.md prove
	assert_page_ok
	[ "$(grep -c '^isorun: leaked: ' <<<"$output")" -eq 1 ]
	[[ "$output" == *$'`sleep 300`'*$'); killed\nisorun:   during prove: t/stock.t\n'* ]]
	assert_leaks_dead 1
	[[ "$output" == *"t/tax.t .... skipped: SHOP_TAX_TABLE is not set"* ]]
	# the report's leak is the script's too, whatever its chain says
	python3 -c 'import glob, json, sys
l = json.load(open(glob.glob(sys.argv[1] + "/t_stock.t-*.json")[0]))["leaks"]
assert [x["attribution"]["test"] for x in l] == [{"runner": "prove", "id": "t/stock.t", "phase": None}], l
' "$W/examples/use/prove/reports"
	run reports_in "$W/examples/use/prove/reports"
	[ "$status" -eq 0 ]
	[ "$output" = $'t_cart.t|passed|0|prove|t/cart.t\nt_stock.t|failed|122|prove|t/stock.t\nt_tax.t|passed|0|prove|t/tax.t' ]
	assert_checkout prove reports
	assert_no_tree
}

@test "prove.md: clean scripts are silent; a script's failures and its exit status are prove's, bare or wrapped, also with -j2" {
	require "prove (perl)" debian_tool prove
	run_page prove.md prove-clean
	assert_page_ok
	! grep -v '^isorun report: ' <<<"$output" | grep -q 'isorun'
	# a script that fails one test of two exits 1, one that dies 255: prove
	# prints the same verdicts bare and through isorun
	cd "$W/examples/use/prove"
	printf 'use Test::More tests => 2;\nok(1);\nok(0, "broken on purpose");\n' >t/broken.t
	printf 'use Test::More tests => 1;\ndie "died on purpose\\n";\n' >t/dies.t
	local bare
	run --separate-stderr env PATH=/usr/bin:/bin prove t/broken.t t/dies.t t/tax.t
	[ "$status" -eq 1 ]
	bare=$(grep -e '^t/' -e 'Dubious' -e 'Failed' -e 'Wstat' -e '^Result' <<<"$output")
	[[ "$bare" == *"Dubious, test returned 1 "*"Failed 1/2 subtests"*"Dubious, test returned 255 "* ]]
	run --separate-stderr env PATH=/usr/bin:/bin prove \
		--exec "$ISORUN --root $R --report $W/failed/ -- perl" t/broken.t t/dies.t t/tax.t
	[ "$status" -eq 1 ]
	[ "$(grep -e '^t/' -e 'Dubious' -e 'Failed' -e 'Wstat' -e '^Result' <<<"$output")" = "$bare" ]
	[[ "$stderr" == *"isorun: FAILED (exit 1): command exited 1"* ]]
	[[ "$stderr" == *"isorun: FAILED (exit 255): command exited 255"* ]]
	[[ "$stderr" != *"leaked"* ]]
	run reports_in "$W/failed"
	[ "$output" = $'t_broken.t|failed|1|prove|t/broken.t\nt_dies.t|failed|255|prove|t/dies.t\nt_tax.t|passed|0|prove|t/tax.t' ]
	run "$ISORUN" report "$W/failed"
	[ "$status" -eq 255 ]
	# in parallel, each script has its own tree and its own report
	run env PATH=/usr/bin:/bin prove -j2 \
		--exec "$ISORUN --root $R --report $W/parallel/ -- perl" t/broken.t t/dies.t t/tax.t
	[ "$status" -eq 1 ]
	run reports_in "$W/parallel"
	[ "$output" = $'t_broken.t|failed|1|prove|t/broken.t\nt_dies.t|failed|255|prove|t/dies.t\nt_tax.t|passed|0|prove|t/tax.t' ]
	assert_no_tree
}
