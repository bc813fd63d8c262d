#!/bin/sh
# Runs the gateway on Caddyfile.example, as `make run` does: builds Caddy
# with the gateway (cmd/caddy) and the example HTTP upstream, starts the
# upstream in the background, then Caddy in the foreground. Ctrl-C stops
# both. Ports: GATEWAY_PORT (8080), EVERYTHING_PORT (9101),
# CADDY_ADMIN_PORT (2019).
set -eu
cd "$(dirname "$0")/.."
mkdir -p bin
(cd tools && go build -o ../bin/caddy ./cmd/caddy)
(cd tools && go build -o ../bin/everything-server github.com/modelcontextprotocol/go-sdk/conformance/everything-server)

bin/everything-server -http "127.0.0.1:${EVERYTHING_PORT:-9101}" -stateless=false &
upstream=$!
trap 'kill "$upstream" 2>/dev/null || true' EXIT INT TERM

export MEMORY_FILE_PATH="${MEMORY_FILE_PATH:-$PWD/memory.jsonl}"
bin/caddy run --config Caddyfile.example --adapter caddyfile
