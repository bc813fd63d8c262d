#!/bin/sh
# Runs every fuzz target (func FuzzXxx in a _test.go file) of both modules,
# the plugin and tools/, with `go test -fuzz` for FUZZTIME each (default
# 5s): a smoke run that finds what a few seconds of fuzzing finds, beyond
# the committed corpora that `go test` always runs. A failing input is
# saved under the package's testdata/fuzz/<target>/, as go test does;
# commit it with the fix. A target that fails without saving an input
# (Go's own deadline race, see below) runs once more. Every target runs;
# the script fails if any did.
set -eu
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
failed=""
count=0

# fuzz runs one target for fuzztime, first noting its saved inputs.
fuzz() {
	before=$(corpus "$1" "$2")
	(cd "$1" && go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" .)
}

# corpus lists the inputs saved for a target in its package's testdata.
corpus() {
	ls "$1/testdata/fuzz/$2" 2>/dev/null || true
}

for module in . tools; do
	for dir in $(cd "$module" && go list -f '{{.Dir}}' ./...); do
		for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
			count=$((count + 1))
			echo "fuzz-smoke: $target in $dir for $fuzztime"
			if fuzz "$dir" "$target"; then
				continue
			fi
			if [ "$(corpus "$dir" "$target")" != "$before" ]; then
				failed="$failed $target($dir)" # a failing input: the fuzzer saved it
				continue
			fi
			# Failed without saving an input: Go's fuzzing coordinator can
			# report its own -fuzztime deadline as a failure ("context
			# deadline exceeded", golang/go#75804, fixed in Go 1.27). Run
			# the target once more; a second such failure counts.
			echo "fuzz-smoke: $target failed without a failing input; running it once more"
			if ! fuzz "$dir" "$target"; then
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
