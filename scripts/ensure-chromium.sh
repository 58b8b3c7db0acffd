#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (never a downloaded browser). Install it when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
echo "Installing Debian's chromium for the browser tests…" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
