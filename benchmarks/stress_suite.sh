#!/usr/bin/env bash
# The README's test command (the fast suite) N times (default 3) with both cores kept busy
# by two CPU burners: a test whose outcome depends on the wall clock fails here.
#
#     bash benchmarks/stress_suite.sh [N] [LOG_DIR]
#
# Prints one line per run: its exit status, seconds, and pytest's last line; each run's
# output is in LOG_DIR/stress-<i>.log (default: a new temporary directory).
set -u
cd "$(dirname "$0")/.."
runs=${1:-3}
logs=${2:-$(mktemp -d)}
mkdir -p "$logs"
for i in $(seq 1 "$runs"); do
  ( while :; do :; done ) & b1=$!
  ( while :; do :; done ) & b2=$!
  start=$(date +%s)
  python -m pytest -q -p no:cacheprovider > "$logs/stress-$i.log" 2>&1; rc=$?
  kill "$b1" "$b2"
  echo "run $i: rc=$rc $(( $(date +%s) - start )) s $(tail -1 "$logs/stress-$i.log")"
done
