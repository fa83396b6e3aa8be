#!/usr/bin/env python3
"""Latency of fcast serve under concurrent single-series forecast requests.

    python3 bench/serve_latency.py PORT MODEL [--requests N] [--clients C] [--points P]

Sends N JSON requests (one series of P points each, the model's frequency
taken as monthly) from C concurrent clients over loopback, each client on
one kept-alive connection, and prints one line:

    requests 2000 clients 16 ok 2000 p50_ms 5.50 p90_ms 9.10 p99_ms 13.0 max_ms 20.1 per_s 2650

Standard library only, so it runs where wrk does not (a bare GPU machine:
scripts/gpu-check.sh compares the CUDA server's tail with the CPU's).
Exit status 1 when a request fails."""
import argparse
import http.client
import json
import threading
import time


def request_body(points):
    ds = ["%04d-%02d-01" % (2000 + i // 12, i % 12 + 1) for i in range(points)]
    y = [100.0 + 10.0 * ((i * 7) % 12) + i for i in range(points)]
    return json.dumps({"series": [{"unique_id": "s", "ds": ds, "y": y}]}).encode()


def client(port, model, body, n, out, failures):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    path = "/v1/models/%s/forecast" % model
    for _ in range(n):
        t0 = time.perf_counter()
        try:
            conn.request("POST", path, body, {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            ok = r.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        out.append((time.perf_counter() - t0) * 1e3)
        if not ok:
            failures.append(1)
    conn.close()


def quantile(sorted_ms, q):
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("model")
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--points", type=int, default=24)
    a = p.parse_args()
    body = request_body(a.points)
    per = [a.requests // a.clients + (1 if k < a.requests % a.clients else 0) for k in range(a.clients)]
    times, failures = [], []
    threads = [threading.Thread(target=client, args=(a.port, a.model, body, n, times, failures)) for n in per]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    ms = sorted(times)
    print("requests %d clients %d ok %d p50_ms %.2f p90_ms %.2f p99_ms %.2f max_ms %.2f per_s %.0f" %
          (len(ms), a.clients, len(ms) - len(failures), quantile(ms, 0.5), quantile(ms, 0.9), quantile(ms, 0.99),
           ms[-1], len(ms) / wall))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
