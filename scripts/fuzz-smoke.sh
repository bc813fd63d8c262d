#!/bin/sh
# Runs every fuzz target (func FuzzXxx in a _test.go file) of both modules,
# the plugin and tools/, with `go test -fuzz` for FUZZTIME each (default
# 5s): a smoke run that finds what a few seconds of fuzzing finds, beyond
# the committed corpora that `go test` always runs. A failing input is
# saved under the package's testdata/fuzz/<target>/, as go test does;
# commit it with the fix. Every target runs; the script fails if any did.
set -eu
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
failed=""
count=0
for module in . tools; do
	for dir in $(cd "$module" && go list -f '{{.Dir}}' ./...); do
		for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
			count=$((count + 1))
			echo "fuzz-smoke: $target in $dir for $fuzztime"
			if ! (cd "$dir" && go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" .); then
				failed="$failed $target($dir)"
			fi
		done
	done
done
if [ "$count" -eq 0 ]; then
	echo "fuzz-smoke: no fuzz targets found" >&2
	exit 1
fi
if [ -n "$failed" ]; then
	echo "fuzz-smoke: failed:$failed" >&2
	exit 1
fi
echo "fuzz-smoke: $count targets passed"
