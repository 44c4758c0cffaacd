#!/usr/bin/env bash
# Counts the instructions Redis runs for one benchmark run: records the commands a run sends
# (MONITOR), replays them into a redis-server under callgrind and prints the total. The count
# repeats within about 0.5 % from run to run, where jobs/s on a shared machine move by 2x: use it
# to compare two builds of the scripts. Needs valgrind (apt-get install -y valgrind).
#
#   benchmarks/replay/count-instructions.sh <benchmarks.jar> [scenario options]
#   e.g. benchmarks/replay/count-instructions.sh benchmarks/target/benchmarks.jar --scenario=e2e --jobs=20000
#   benchmarks/replay/count-instructions.sh <trace.resp>   (replays a trace recorded before, see swap_scripts.py)
#
# Leaves the trace and callgrind's profile in $REPLAY_DIR (default: a new temporary folder);
# callgrind_annotate <dir>/callgrind.out shows where the instructions went.
set -euo pipefail
jar=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
dir=${REPLAY_DIR:-$(mktemp -d)}
mkdir -p "$dir"
# the servers this script starts end with it, whatever stops it
trap 'kill $(jobs -p) 2>/dev/null || true; [[ -n ${record:-} ]] && redis-cli -p "$record" shutdown nosave >/dev/null 2>&1; true' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
await_ping() { for _ in $(seq 1 300); do redis-cli -p "$1" ping >/dev/null 2>&1 && return; sleep 0.1; done; echo "redis on $1 did not start" >&2; exit 1; }

if [[ $jar == *.resp ]]; then
	cp "$jar" "$dir/trace.resp"
else
	record=$(free_port)
	redis-server --bind 127.0.0.1 --port "$record" --save '' --appendonly no --daemonize yes --logfile "$dir/record.log"
	await_ping "$record"
	redis-cli -p "$record" monitor >"$dir/trace.txt" &
	monitor=$!
	java -jar "$jar" "$@" --redis="redis://127.0.0.1:$record" >"$dir/benchmark.txt" 2>&1
	kill "$monitor"
	redis-cli -p "$record" shutdown nosave >/dev/null 2>&1 || true
	python3 "$here/monitor_to_resp.py" <"$dir/trace.txt" >"$dir/trace.resp"
fi

replay=$(free_port)
valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" \
	redis-server --bind 127.0.0.1 --port "$replay" --save '' --appendonly no >"$dir/replay.log" 2>&1 &
valgrind=$!
await_ping "$replay"
# the first call of each script is answered NOSCRIPT, as it was in the run; --pipe counts it an error
redis-cli -p "$replay" --pipe <"$dir/trace.resp" >"$dir/pipe.txt" 2>&1 || true
redis-cli -p "$replay" shutdown nosave >/dev/null 2>&1 || true
wait "$valgrind" || true
commands=$(grep -c '^\*' "$dir/trace.resp" || true)
instructions=$(callgrind_annotate "$dir/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
echo "commands replayed: $commands"
echo "instructions: $instructions"
echo "trace and profile: $dir"
