#!/usr/bin/env bash
# Installs what the cluster tests start without Docker (server/test/cluster/): Debian's PostgreSQL server and nginx,
# the proxy the compose file names. Idempotent and quiet. Unlike the browser test, these tests cannot run without
# them, so a failed install fails here with the reason (the tests say the same if run alone).
set -u
have_pg() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }
have_nginx() { command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; }
if have_pg && have_nginx; then exit 0; fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-postgresql: PostgreSQL or nginx is missing and this is not root with apt-get: install Debian's postgresql and nginx packages" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# One apt-get at a time: `npm run test:all` runs layers side by side, and each installs what it needs.
exec 9>/tmp/project-data-api-apt.lock && flock 9
if have_pg && have_nginx; then exit 0; fi
# policy-rc.d: the packages must not start their own services (the tests start their own, in temp directories).
if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && trap 'rm -f /usr/sbin/policy-rc.d' EXIT; fi
pkgs=()
have_pg || pkgs+=(postgresql)
have_nginx || pkgs+=(nginx)
if ! (apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null)); then
  echo "install-postgresql: apt-get could not install ${pkgs[*]}" >&2
  exit 1
fi
have_pg && have_nginx
