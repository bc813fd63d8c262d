#!/bin/sh
# Installs what `make test` needs beyond Go and Node.js: Debian's Chromium,
# which the operator page's end-to-end test runs headless to render the
# page (tools/internal/e2e/operator_page_test.go). Go modules and the Node
# peers (tools/internal/e2e/node/package-lock.json) are installed by the
# tests themselves.
#
# It never prompts: it says what it is about to install, and why, before it
# starts, then installs with apt-get as root or with passwordless sudo.
# Without either (or without apt-get) it says what to install and leaves
# it to you; the operator page test then fails, naming Chromium.
set -eu
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
	exit 0
fi
why="the operator page test renders the page in headless Chromium"
if ! command -v apt-get >/dev/null 2>&1; then
	echo "test-deps: Chromium not found, and this is no Debian system: install Chromium yourself ($why)" >&2
	exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo -n"
	else
		echo "test-deps: Chromium not found; run as root, or: sudo apt-get install chromium ($why)" >&2
		exit 0
	fi
fi
echo "test-deps: installing Debian's chromium package with apt-get (the package alone is about 80 MB to download and 290 MB installed, plus its dependencies), because $why. Nothing else is installed; this happens once." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "test-deps: chromium installed: $(command -v chromium)" >&2
