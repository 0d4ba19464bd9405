#!/bin/sh
# SPDX-License-Identifier: MIT
# The installed documentation's links, rewritten for where the files went.
#
#   doclinks.sh DOCDIR PKGDATADIR   (make install)
#     README.md, contract.md, architecture.md, use/*.md and decisions/*.md in
#     DOCDIR link as in the source tree: docs/use/X becomes use/X, docs/X.md
#     X.md, docs/decisions/X decisions/X, policy/GRAMMAR.txt GRAMMAR.txt, the
#     report's schema its installed path; a link to what is not installed
#     (bench/, packaging/, examples/, the sources) keeps its words and loses
#     its target.
#   doclinks.sh --gz DOCDIR          (the Debian package, before dh_compress)
#     every relative link to a .md or .txt names its .gz: the package
#     compresses every such file (packaging/debian/rules).
# tests/integration/package.bats and package_deb.bats follow every link.
set -eu

if [ "$1" = --gz ]; then
	find "$2" -name '*.md' -type f -exec sed -i -E \
		's,\]\(([^/):#][^):#]*\.(md|txt))(#[^)]*)?\),](\1.gz\3),g' {} +
	exit 0
fi
doc=$1 data=$2
sed -i -E \
	-e 's,\]\(docs/use/,](use/,g' \
	-e 's,\]\(docs/(contract|architecture)\.md,](\1.md,g' \
	-e 's,\]\(docs/decisions/,](decisions/,g' \
	-e 's,\]\(policy/GRAMMAR\.txt,](GRAMMAR.txt,g' \
	-e "s,\\]\\(docs/report\\.schema\\.json\\),]($data/report.schema.json),g" \
	-e 's,\[([^]]*)\]\((bench|packaging|examples)/[^)]*\),\1,g' \
	"$doc/README.md"
sed -i -E \
	-e "s,\\]\\(\\.\\./report\\.schema\\.json\\),]($data/report.schema.json),g" \
	-e 's,\[([^]]*)\]\(\.\./\.\./[^)]*\),\1,g' \
	"$doc"/use/*.md
# docs/*.md went up a level beside README.md; docs/decisions/ kept its place
sed -i -E \
	-e 's,\]\(\.\./README\.md,](README.md,g' \
	-e 's,\]\(\.\./policy/GRAMMAR\.txt\),](GRAMMAR.txt),g' \
	-e "s,\\]\\(report\\.schema\\.json\\),]($data/report.schema.json),g" \
	-e 's,\[([^]]*)\]\(\.\./[^)]*\),\1,g' \
	"$doc/contract.md" "$doc/architecture.md"
sed -i -E \
	-e 's,\]\(\.\./\.\./README\.md,](../README.md,g' \
	-e 's,\]\(\.\./\.\./policy/GRAMMAR\.txt\),](../GRAMMAR.txt),g' \
	-e "s,\\]\\(\\.\\./report\\.schema\\.json\\),]($data/report.schema.json),g" \
	-e 's,\[([^]]*)\]\(\.\./\.\./[^)]*\),\1,g' \
	"$doc"/decisions/*.md
