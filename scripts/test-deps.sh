#!/bin/sh
# Installs what the tests need beyond Go and Node: Debian's Chromium, for
# the operator page's headless-browser test. Go modules and the Node peers
# (internal/e2e/node/package-lock.json) are installed by the tests
# themselves.
set -eu
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "test-deps: install Chromium (the operator page test runs it headless)" >&2
	exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo -n"
	else
		echo "test-deps: run as root, or: sudo apt-get install chromium" >&2
		exit 0
	fi
fi
echo "test-deps: installing Debian's chromium" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
