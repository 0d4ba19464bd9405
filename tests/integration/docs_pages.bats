#!/usr/bin/env bats
# The pages a newcomer reads (issue 37): docs/contract.md, docs/architecture.md
# and one dated record per decision in docs/decisions/ (HACKING.md, "Add a
# decision record").  These read the files, and each check has a control that
# shows it can fail.

load helpers

TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}

# "file: what is wrong" for every record under $1/docs/decisions that lacks its
# title line, date, issue or supersedes line, is numbered out of turn, or is
# missing from the index.
bad_records() {
	local d=$1/docs/decisions f base num n=0
	for f in "$d"/[0-9][0-9][0-9][0-9]-*.md; do
		[ -e "$f" ] || continue
		base=${f##*/}
		num=${base%%-*}
		n=$((n + 1))
		[ "$((10#$num))" -eq "$n" ] || echo "$base: number $num, expected $(printf %04d "$n")"
		head -1 "$f" | grep -qE "^# $num\. [^ ].*" || echo "$base: no title line '# $num. Title'"
		grep -qE '^- Date: [0-9]{4}-[0-9]{2}-[0-9]{2}$' "$f" || echo "$base: no '- Date: YYYY-MM-DD' line"
		grep -qE '^- Issue: [^ ].*' "$f" || echo "$base: no '- Issue: N' line"
		grep -qE '^- Supersedes' "$f" || echo "$base: no '- Supersedes' line"
		grep -qF "]($base)" "$d/README.md" || echo "$base: not in docs/decisions/README.md"
	done
	[ "$n" -gt 0 ] || echo "docs/decisions: no record"
}

# Every relative link of the Markdown pages a reader follows in the checkout.
doc_pages() {
	local top=$1
	printf '%s\n' "$top/README.md" "$top/HACKING.md" "$top"/docs/*.md \
		"$top"/docs/use/*.md "$top"/docs/decisions/*.md "$top/packaging/README.md"
}

@test "docs/decisions: every record has its number, title, date, issue and supersedes line, and is in the index" {
	run bad_records "$TOP"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || {
		echo "$output" >&2
		false
	}
	# the index has a row per record, with its date and issue
	local f rows
	rows=$(grep -cE '^\| \[[0-9]{4}\]\([0-9]{4}-[^)]*\.md\) \| .+ \| [0-9]{4}-[0-9]{2}-[0-9]{2} \| .+ \|$' \
		"$TOP/docs/decisions/README.md")
	[ "$rows" -eq "$(find "$TOP/docs/decisions" -name '[0-9][0-9][0-9][0-9]-*.md' | wc -l)" ]
}

@test "docs/decisions: the check fails a record without a date or an issue, out of turn, or not indexed" {
	mkdir -p "$W/docs/decisions"
	printf '| [0001](0001-a.md) | A | 2026-12-07 | 37 |\n' >"$W/docs/decisions/README.md"
	printf '# 0001. A\n\n- Date: 2026-12-07\n- Issue: 37\n- Supersedes: nothing\n' \
		>"$W/docs/decisions/0001-a.md"
	run bad_records "$W"
	[ -z "$output" ]
	sed 's/^- Date: .*/- Date: soon/; /^- Issue/d' "$W/docs/decisions/0001-a.md" \
		>"$W/docs/decisions/0003-b.md"
	run bad_records "$W"
	[[ "$output" == *"0003-b.md: number 0003, expected 0002"* ]]
	[[ "$output" == *"0003-b.md: no title line '# 0003. Title'"* ]]
	[[ "$output" == *"0003-b.md: no '- Date: YYYY-MM-DD' line"* ]]
	[[ "$output" == *"0003-b.md: no '- Issue: N' line"* ]]
	[[ "$output" == *"0003-b.md: not in docs/decisions/README.md"* ]]
	[[ "$output" != *"0001-a.md"* ]]
}

@test "docs/architecture.md: at most 300 lines, and says it is rewritten, never appended to" {
	local n
	n=$(wc -l <"$TOP/docs/architecture.md")
	[ "$n" -le 300 ] || {
		echo "docs/architecture.md: $n lines" >&2
		false
	}
	head -5 "$TOP/docs/architecture.md" | tr '\n' ' ' | grep -q 'never append'
}

@test "docs/design.md only points to the pages that replaced it: no decision is added there" {
	[ "$(wc -l <"$TOP/docs/design.md")" -le 20 ]
	! grep -q '^##' "$TOP/docs/design.md"
	grep -qF '](contract.md)' "$TOP/docs/design.md"
	grep -qF '](architecture.md)' "$TOP/docs/design.md"
	grep -qF '](decisions/README.md)' "$TOP/docs/design.md"
	# nothing else in the checkout names the old page: its sections are gone
	# (build directories of any name hold installed copies of older pages)
	run grep -rlnI 'design\.md' "$TOP" --exclude-dir=.git --exclude-dir='build*' \
		--exclude-dir=decisions --exclude=design.md --exclude=split-design.py \
		--exclude=HACKING.md --exclude=docs_pages.bats
	[ "$status" -eq 1 ] || {
		echo "$output" >&2
		false
	}
}

@test "docs: every relative link of README.md, HACKING.md, docs/ and packaging/README.md finds its file" {
	local pages=()
	mapfile -t pages < <(doc_pages "$TOP")
	links_resolve "$TOP" "${pages[@]}"
	# control: a link to nothing fails
	mkdir -p "$W/docs"
	printf 'see [the contract](contract.md) and [x](../nowhere.md#a)\n' >"$W/docs/p.md"
	touch "$W/docs/contract.md"
	run links_resolve "$W" "$W/docs/p.md"
	[ "$status" -eq 1 ]
	[[ "$output" == *"link to ../nowhere.md: nothing there"* ]]
	[[ "$output" != *"contract.md"* ]]
}
