# Sourced (not run) by the bench scripts that replay a trace against a fresh `squall serve` of mock workers per run:
#
#   mock_serve_start LOG PORT ARGS...   starts `squall serve` on PORT (its RSocket, WebSocket and grid ports are the
#                                       three above) with ARGS, output to LOG; returns once /readyz answers, or prints
#                                       LOG's tail and exits if the server dies or is not ready within 300 s
#   mock_serve_stop                     stops it; also runs on exit
#
# ROOT must name the checkout. SQUALL_AOT and the rest of the caller's environment reach the server.
serve_pid=
mock_serve_stop() {
  [ -n "$serve_pid" ] || return 0
  kill "$serve_pid" 2>/dev/null || true
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=
}
trap mock_serve_stop EXIT

mock_serve_start() {
  local log=$1 port=$2
  shift 2
  "$ROOT/squall" serve --http-port "$port" --rsocket-port $((port + 1)) --rsocket-ws-port $((port + 2)) \
    --grid-port $((port + 3)) --engine mock "$@" >"$log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 600); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/readyz" && return 0
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "squall serve did not become ready; the end of $log:" >&2
  tail -20 "$log" >&2
  exit 1
}
