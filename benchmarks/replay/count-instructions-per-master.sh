#!/usr/bin/env bash
# Counts the instructions each master of a --cluster run executes: records what every master receives (MONITOR on
# each, started as soon as the benchmark's cluster answers), then replays each master's trace into a redis-server
# under callgrind (count-instructions.sh). Divide by the jobs of the whole run, warm-up rounds included
# (warmupRounds × --warmup + --jobs): the traces cover it all. Needs valgrind; MONITOR slows the run, not the counts.
#
#   benchmarks/replay/count-instructions-per-master.sh <benchmarks.jar> --scenario=e2e --cluster=3 --shards=3 ...
#
# Leaves each master's trace, replay and callgrind profile in $REPLAY_DIR (default: a new temporary folder).
set -euo pipefail
jar=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
dir=${REPLAY_DIR:-$(mktemp -d)}
mkdir -p "$dir"
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
java -jar "$jar" "$@" >"$dir/benchmark.txt" 2>&1 &
benchmark=$!
ports=()
for _ in $(seq 1 1200); do
	# the cluster's redis-server processes are the benchmark's children, titled <host>:<port> [cluster]
	mapfile -t ports < <(pgrep -P "$benchmark" -a redis-server | grep -o ':[0-9]*' | tr -d : || true)
	[[ ${#ports[@]} -gt 0 ]] && redis-cli -p "${ports[-1]}" cluster info 2>/dev/null | grep -q 'cluster_state:ok' && break
	sleep 0.05
done
monitors=()
for port in "${ports[@]}"; do
	redis-cli -p "$port" monitor >"$dir/trace-$port.txt" &
	monitors+=($!)
done
wait "$benchmark"
kill "${monitors[@]}" 2>/dev/null || true
grep -E '^RESULT' "$dir/benchmark.txt" | grep -o '"warmupRounds":[0-9]*,' || true
for port in "${ports[@]}"; do
	python3 "$here/monitor_to_resp.py" <"$dir/trace-$port.txt" >"$dir/trace-$port.resp"
	REPLAY_DIR="$dir/replay-$port" "$here/count-instructions.sh" "$dir/trace-$port.resp" >"$dir/count-$port.txt"
	echo "master $port: $(grep '^instructions:' "$dir/count-$port.txt")"
done
echo "traces and profiles: $dir"
