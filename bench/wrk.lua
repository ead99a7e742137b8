-- Static request (wrk's fast path: no per-request Lua) configured from the environment, and one
-- machine-readable summary line at the end. Latencies are in microseconds.
wrk.method = os.getenv("BENCH_METHOD") or "GET"
local auth = os.getenv("BENCH_AUTH")
if auth and auth ~= "" then wrk.headers["Authorization"] = auth end
local body = os.getenv("BENCH_BODY")
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH-RESULT {\"requests\":%d,\"durationUs\":%d,\"p50Us\":%d,\"p99Us\":%d,\"maxUs\":%d,\"non2xx\":%d,\"socketErrors\":%d}\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
