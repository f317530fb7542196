#!/usr/bin/env bash
# Installs Debian's Chromium for the API reference page test, when missing. Idempotent and quiet;
# never fails the build: without Chromium the page test skips itself and says why.
set -u
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: not root or no apt-get; the API reference page test will be skipped" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# One apt-get at a time: `npm run test:all` runs layers side by side, and each installs what it needs.
exec 9>/tmp/project-data-api-apt.lock && flock 9
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then exit 0; fi
(apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null) \
  || echo "install-chromium: apt-get failed; the API reference page test will be skipped" >&2
exit 0
