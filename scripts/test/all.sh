#!/usr/bin/env bash
# `npm run test:all` and .ci/run: every test layer of test/layers.ts, in three lanes, measured on the 2-core machine
# (user+system time over wall time):
# - the default run on ../shared/foreign (test:foreign) waits nine minutes on the seed's own retry schedule at 2% of
#   one core, with the proxy in front of ../shared/foreign (a minute of both cores) in its other worker. This lane
#   mostly waits, so it runs beside the others from the start;
# - the soak (five minutes of kills and light writes, about 80 s of CPU, judged with the stalls it measures), then the
#   store matrix (PostgreSQL's own tests wait for outcomes and never time them; 80 s of CPU in four minutes): both
#   mostly wait, so this lane too starts at once. The soak ran at the end beside the conformance layer, in the cluster
#   layer, where its seven minutes made that lane the longest of the run;
# - the other lane keeps the machine busy: `npm test`, then the processes layer, then the install matrices
#   (packages, which also wait on the npm registry), then the conformance layer (its runs wait on retry windows and
#   on their foreign servers much of the time, so it takes four workers) beside the cluster layer (two minutes of
#   several processes on one PostgreSQL, its files one at a time).
set -uo pipefail
cd "$(dirname "$0")/../.."
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
SECONDS=0
status=0
summary=""

# Runs `npm run <layer>` into its log, shown as it runs (`live`) or kept for report to print whole (`quiet`: a layer
# beside another); records its exit code, time and start in $logs/<layer>.status.
run_layer() {
  local layer=$1 mode=$2 start=$SECONDS code=0
  echo "----- npm run $layer: started at $start s -----"
  if [ "$mode" = live ]; then
    npm run "$layer" 2>&1 | tee "$logs/$layer.log" || code=$?
  else
    npm run "$layer" > "$logs/$layer.log" 2>&1 || code=$?
  fi
  echo "$code $((SECONDS - start)) $start $mode" > "$logs/$layer.status"
}

# Prints a kept log, the layer's verdict, and adds it to the summary.
report() {
  local layer=$1 code took started mode verdict
  read -r code took started mode < "$logs/$layer.status"
  [ "$mode" = live ] || cat "$logs/$layer.log"
  [ "$code" = 0 ] && verdict=passed || { verdict=FAILED; status=1; }
  echo "----- npm run $layer: $verdict in $took s (started at $started s; now $SECONDS s) -----"
  summary+="npm run $layer: $verdict in $took s"$'\n'
  # vitest marks a failed test with × and a failed file with FAIL; jest with ✕; colours are stripped.
  [ "$code" = 0 ] || summary+="$(sed 's/\x1b\[[0-9;]*m//g' "$logs/$layer.log" | grep -E '^ *(×|✕|FAIL) ' | sort -u | head -40)"$'\n'
  # And what each failure said (its error and its diff's lines, which name the seed): a CI page that keeps only the
  # end of the log still shows why.
  [ "$code" = 0 ] || summary+="$(sed 's/\x1b\[[0-9;]*m//g' "$logs/$layer.log" | grep -E '^ *([A-Za-z]*Error[:\[]|[-+] |Received|Expected)' | head -60)"$'\n'
}

run_layer test:foreign quiet &
waiting=$!
( run_layer test:soak quiet; run_layer test:stores quiet ) &
beside=$!
run_layer test live; report test
run_layer test:processes live; report test:processes
run_layer test:packages live; report test:packages
run_layer test:cluster quiet &
cluster=$!
run_layer test:conformance live
report test:conformance
wait "$cluster"
report test:cluster
wait "$beside"
report test:soak
report test:stores
wait "$waiting"
report test:foreign
echo "===== summary after ${SECONDS} s ====="
printf '%s' "$summary"
exit "$status"
