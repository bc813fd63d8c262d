.PHONY: run test caddy bench quality fuzz

# Run the gateway on Caddyfile.example: builds Caddy with the gateway and
# starts it; the MCP endpoint is http://localhost:8080/mcp.
run:
	./scripts/run-example.sh

# Run every test: vet, then the plugin's unit tests and the tools module's
# end-to-end tests (real Caddy, real MCP peers), with the race detector;
# and the lean build (no word vectors, -tags mcpgateway_lean): vetted, and
# the search tests, which check it ranks by the words alone.
# The end-to-end tests build Caddy and install their Node peers (npm ci,
# from tools/internal/e2e/node/package-lock.json) themselves;
# scripts/test-deps.sh installs Debian's chromium for the operator page
# test (it says so before it does).
test:
	./scripts/test-deps.sh
	go vet ./...
	go vet -tags mcpgateway_lean ./...
	cd tools && go vet ./...
	go test -race -count=1 -timeout 20m ./...
	go test -count=1 -tags mcpgateway_lean ./search/
	cd tools && go test -race -count=1 -timeout 30m ./...

# Build bin/caddy (Caddy's standard modules, the gateway and
# caddy-ratelimit) and bin/echo-server, for the examples/ Caddyfiles.
caddy:
	mkdir -p bin
	cd tools && go build -o ../bin/caddy ./cmd/caddy
	cd tools && go build -o ../bin/echo-server ./examples/echo-server

# The benchmark's full run (latency, throughput, memory, tokens, search).
# It writes BENCH_OUT (default docs/benchmarks.md, with its charts).
BENCH_OUT ?= docs/benchmarks.md
bench:
	cd tools && go test -tags bench -count=1 -run TestQuickRun ./bench/
	cd tools && go run ./bench -out $(abspath $(BENCH_OUT))

# Search quality on the labelled request sets, against the floors.
quality:
	cd tools && go test -tags quality -count=1 -timeout 30m -v -run TestRetrievalQuality ./internal/livemcpbench/

# A few seconds of fuzzing (FUZZTIME, default 5s) for every fuzz target of
# both modules, beyond the committed corpora that make test runs.
fuzz:
	./scripts/fuzz-smoke.sh
