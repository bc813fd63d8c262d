#!/bin/sh
# Runs the demo, Caddyfile.example, as `make run` does: builds Caddy with
# the gateway (bin/caddy, from tools/cmd/caddy), runs it, and once it
# listens prints the URL to connect to. The three upstreams are npm
# packages that the gateway starts with npx (fetched on the first run).
# Ctrl-C stops Caddy and the upstreams.
#
# Needs Go and Node.js 20+ with npm. Ports: GATEWAY_PORT (8080),
# CADDY_ADMIN_PORT (2019). State: MEMORY_FILE_PATH (bin/demo/memory.jsonl,
# the memory server's knowledge graph); DEMO_FILES (examples/demo, the
# folder the files upstream reads).
set -eu
cd "$(dirname "$0")/.."

need() {
	if ! command -v "$1" >/dev/null 2>&1; then
		echo "run-example: $1 not found; $2" >&2
		exit 1
	fi
}
need go "install Go: https://go.dev/dl/"
need node "install Node.js 20 or later (with npm): https://nodejs.org/"
need npx "install npm (it comes with Node.js): https://nodejs.org/"

export GATEWAY_PORT="${GATEWAY_PORT:-8080}"
export CADDY_ADMIN_PORT="${CADDY_ADMIN_PORT:-2019}"
mkdir -p bin/demo
export MEMORY_FILE_PATH="${MEMORY_FILE_PATH:-$PWD/bin/demo/memory.jsonl}"
export DEMO_FILES="${DEMO_FILES:-$PWD/examples/demo}"

echo "run-example: building bin/caddy (Caddy with the gateway)" >&2
(cd tools && go build -o ../bin/caddy ./cmd/caddy)

bin/caddy run --config Caddyfile.example --adapter caddyfile &
caddy=$!
stop() {
	kill "$caddy" 2>/dev/null || true
	wait "$caddy" 2>/dev/null || true
	exit 130
}
trap stop INT TERM

# Wait until Caddy accepts connections (or exits), then say where it is.
url="http://localhost:$GATEWAY_PORT/mcp"
until node -e '
	const s = require("net").connect(Number(process.argv[1]), "127.0.0.1");
	s.on("connect", () => process.exit(0));
	s.on("error", () => process.exit(1));
' "$GATEWAY_PORT" 2>/dev/null; do
	if ! kill -0 "$caddy" 2>/dev/null; then
		wait "$caddy" || exit $?
		exit 1
	fi
	sleep 0.2
done
cat >&2 <<MSG

==> MCP gateway ready: $url
    Try: npx @modelcontextprotocol/inspector --cli $url --transport http --method tools/call --tool-name discover_tools  (Node.js 22.19+; other clients: README.md)

MSG
wait "$caddy"
