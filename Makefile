.PHONY: run test

# Run the gateway on Caddyfile.example (builds Caddy with the gateway and
# starts the example HTTP upstream). MCP endpoint: http://localhost:8080/mcp
run:
	./scripts/run-example.sh

# Run every test: vet, then unit and end-to-end tests with the race
# detector. The end-to-end tests build Caddy and install their Node peers
# (npm ci, from internal/e2e/node/package-lock.json) themselves;
# scripts/test-deps.sh installs Debian's chromium for the operator page
# test.
test:
	./scripts/test-deps.sh
	go vet ./...
	go test -race -count=1 -timeout 30m ./...
