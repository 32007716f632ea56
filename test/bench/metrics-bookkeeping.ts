/**
 * What counting one HTTP request costs, without the noise of a whole request on a shared machine
 * (test/bench/http-metrics.ts measures that): the bookkeeping daemon/src/instruments/HttpMetrics
 * does per request (the route noted and read back in a weak map, the labelled counter and
 * histogram found and updated in the default registry), two million times, in three rounds.
 *
 *     node test/bench/metrics-bookkeeping.ts
 */
import * as Metrics from "@voice-agent/core/Metrics"
import { Metric } from "effect"
import { performance } from "node:perf_hooks"

const cached = <I, S>(metric: Metric.Metric<I, S>) => {
  const instances = new Map<string, Metric.Metric<I, S>>()
  return (key: string, labels: Readonly<Record<string, string>>) => {
    let found = instances.get(key)
    if (found === undefined) {
      found = Metric.withAttributes(metric, labels)
      instances.set(key, found)
    }
    return found
  }
}

const requests = cached(Metrics.httpRequests)
const durations = cached(Metrics.httpRequestDuration)
const routes = new WeakMap<object, string>()
const n = 2_000_000

for (let round = 0; round < 3; round++) {
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    const source = {}
    routes.set(source, "/v2/campaigns/:campaign_code")
    const method = "GET"
    const route = routes.get(source) ?? "unmatched"
    const status = String(200)
    Metrics.observeUnsafe(requests(`${method} ${route} ${status}`, { method, route, status }), 1)
    Metrics.observeUnsafe(durations(`${method} ${route}`, { method, route }), 0.0012)
  }
  console.log(`metrics bookkeeping: ${((performance.now() - start) * 1000 / n).toFixed(2)} µs per request`)
}
