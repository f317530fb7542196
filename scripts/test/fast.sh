#!/usr/bin/env bash
# `npm test`: the type check beside vitest's unit and in-process tests, then the mobile library under Jest. The type
# check is one thread for about 40 s; run first, it held back the tests that long while a core was free. Its output
# (errors only) is printed whole after vitest's, and the run fails when either fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
npm run --silent typecheck > "$log" 2>&1 &
typecheck=$!
npx vitest run
tests=$?
wait "$typecheck"
types=$?
if [ "$types" != 0 ]; then
  cat "$log"
  echo "----- npm run typecheck FAILED (exit $types) -----"
fi
[ "$types" = 0 ] && [ "$tests" = 0 ] || exit 1
npm run test:native
