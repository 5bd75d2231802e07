#!/usr/bin/env bash
# Checks the Grafana dashboard (examples/grafana/squall-dashboard.json) for real: starts `squall serve` with
# disaggregated prefill and small KV tiers, scrapes its gateway and workers with a real Prometheus (Debian's
# `prometheus` package), loads it with `squall bench serve`, then runs every dashboard query against
# Prometheus's HTTP API and prints what each returns. Exits non-zero if a query fails to evaluate, or if one
# that this setup must feed returns no series. Everything listens on 127.0.0.1; it stops what it started.
#
#   bench/dashboard-check.sh            (needs: prometheus, python3, curl; builds the CLI on first use)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DASHBOARD=$ROOT/examples/grafana/squall-dashboard.json
WORK=$(mktemp -d)
HTTP_PORT=${HTTP_PORT:-18000}
PROM_PORT=${PROM_PORT:-19090}
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

command -v prometheus >/dev/null || { echo "dashboard-check: install Debian's prometheus package first" >&2; exit 2; }

echo "dashboard-check: starting squall serve on 127.0.0.1:$HTTP_PORT" >&2
"$ROOT/squall" serve --http-port "$HTTP_PORT" --rsocket-port $((HTTP_PORT - 1000)) --rsocket-ws-port $((HTTP_PORT + 1)) \
  --grid-port $((HTTP_PORT - 2299)) --prefill-workers 1 --decode-workers 1 --disagg-min-tokens 48 \
  --kv-blocks 96 --kv-host-bytes 8388608 --kv-disk-dir "$WORK/kv" --kv-disk-bytes 16777216 \
  >"$WORK/serve.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 600); do
  curl -sf "http://127.0.0.1:$HTTP_PORT/v1/models" >/dev/null && break
  kill -0 "${PIDS[0]}" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 1
done
WORKERS=$(grep -o 'listening: http 127.0.0.1:[0-9]*' "$WORK/serve.log" | sed 's/.*://' | sort -u)
[ -n "$WORKERS" ] || { echo "dashboard-check: no worker HTTP port in the log" >&2; cat "$WORK/serve.log" >&2; exit 1; }
TARGETS="'127.0.0.1:$HTTP_PORT'"
for port in $WORKERS; do TARGETS="$TARGETS, '127.0.0.1:$port'"; done

cat >"$WORK/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: squall
    static_configs: [{targets: [$TARGETS]}]
YAML
echo "dashboard-check: Prometheus on 127.0.0.1:$PROM_PORT scraping $TARGETS" >&2
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PIDS+=($!)

echo "dashboard-check: load from squall bench serve" >&2
"$ROOT/squall" bench serve --url "http://127.0.0.1:$HTTP_PORT" --model auto --concurrency 6 --requests 120 \
  --isl 96 --osl 24 --prefix-share 0.5 --seed 7 --out "$WORK/bench.json" >"$WORK/bench.out" 2>"$WORK/bench.log"

# wait until Prometheus has two scrapes of the load, so rate() has data; bounded by the loop
for _ in $(seq 60); do
  value=$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode 'query=sum(increase(squall_worker_generated_tokens_total[1m]))' \
    | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
  python3 -c "import sys; sys.exit(0 if float('$value') > 0 else 1)" && break
  sleep 1
done

python3 - "$DASHBOARD" "http://127.0.0.1:$PROM_PORT" <<'PY'
import json, sys, urllib.parse, urllib.request
dashboard, prometheus = sys.argv[1], sys.argv[2]
# Series this setup cannot produce: the planner does not run here, and these counters count rare events.
MAY_BE_EMPTY = ("squall_planner_", "squall_worker_request_errors_total", "squall_gateway_generation_cancellations_total",
                "squall_worker_remote_prefill_fallbacks_total", "squall_gateway_client_disconnects_total")
failed = 0
panels = [p for p in json.load(open(dashboard))["panels"] if p.get("type") != "row"]
for panel in panels:
    for target in panel["targets"]:
        expr = target["expr"].replace("$__rate_interval", "1m").replace("$model", ".*")
        url = prometheus + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            reply = json.load(urllib.request.urlopen(url, timeout=30))
        except Exception as e:
            reply = {"status": "error", "error": str(e)}
        if reply.get("status") != "success":
            failed += 1
            print(f"FAIL  {panel['title']} [{target['refId']}]: {reply.get('error')}\n      {expr}")
            continue
        series = reply["data"]["result"]
        optional = any(name in expr for name in MAY_BE_EMPTY)
        state = "ok   " if series else ("empty" if optional else "FAIL ")
        if not series and not optional:
            failed += 1
        sample = ", ".join(f"{s['metric'].get('instance', s['metric'].get('tier', s['metric'].get('status', '')))}={float(s['value'][1]):.4g}"
                           for s in series[:3])
        print(f"{state} {len(series):3d} series  {panel['title']} [{target['refId']}]  {sample}")
print(f"{len(panels)} panels; {failed} failed")
sys.exit(1 if failed else 0)
PY
