/**
 * `GET /metrics` of a real `voice-agent serve` (docs/OPERATIONS.md): after two campaign calls
 * (one answered and ended by the person, one busy) the output holds the documented names with
 * the calls counted by direction and termination reason, the HTTP requests by route pattern,
 * and `promtool check metrics` (Debian's `prometheus` package) accepts it. With
 * `VOICE_AGENT_METRICS_TOKEN` set, a scrape without it is 401 in the API's error shape.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as Daemon from "../support/Daemon.ts"

const promtool = process.env["PROMTOOL"] ?? "/usr/bin/promtool"
const noPromtool = fs.existsSync(promtool) ? undefined : `no promtool at ${promtool} (apt-get install prometheus)`

const scrape = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/metrics`, init)
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() }
  })

/** The value of the sample `series` (name and labels as printed), if present. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe("GET /metrics", () => {
  it.live("counts a daemon's calls and requests, in a format promtool accepts", () =>
    Effect.gen(function*() {
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
        VOICE_AGENT_METRICS_TOKEN: "scrape-secret"
      })
      const key = Option.getOrThrow(daemon.apiKey)
      const code = yield* Daemon.campaignWithContacts(daemon.url, key, "metrics", [
        { phone_number: "+12025550101" },
        { phone_number: "+12025550151" }
      ])
      yield* daemon.waitFor(/Call \S+ to \+12025550101 ended/)
      yield* daemon.waitFor(/Call \S+ to \+12025550151 ended/)
      assert.strictEqual((yield* Daemon.request(`${daemon.url}/v2/campaigns/${code}`, Daemon.bearer(key))).status, 200)
      assert.strictEqual((yield* Daemon.request(`${daemon.url}/v2/campaigns/nope`, Daemon.bearer(key))).status, 404)
      assert.strictEqual((yield* Daemon.request(`${daemon.url}/no/such/path`, Daemon.bearer(key))).status, 404)
      const invalid = yield* Daemon.request(`${daemon.url}/v2/campaigns`, Daemon.postJson(key, { name: 7 }))
      assert.strictEqual(invalid.status, 422)

      const refused = yield* Daemon.request(`${daemon.url}/metrics`)
      assert.strictEqual(refused.status, 401)
      assert.isString((refused.body as { detail?: unknown }).detail)
      assert.strictEqual((yield* scrape(daemon.url, Daemon.bearer("wrong"))).status, 401)

      const { status, type, text } = yield* scrape(daemon.url, Daemon.bearer("scrape-secret"))
      assert.strictEqual(status, 200)
      assert.strictEqual(type, "text/plain; version=0.0.4; charset=utf-8")
      for (
        const [name, kind] of [
          ["voice_agent_calls_active", "gauge"],
          ["voice_agent_calls_total", "counter"],
          ["voice_agent_calls_placed_total", "counter"],
          ["voice_agent_dialer_claims_total", "counter"],
          ["voice_agent_dialer_leases_recovered_total", "counter"],
          ["voice_agent_turn_latency_seconds", "histogram"],
          ["voice_agent_media_frame_lag_seconds", "histogram"],
          ["voice_agent_recording_write_errors_total", "counter"],
          ["voice_agent_webhook_deliveries_pending", "gauge"],
          ["voice_agent_webhook_oldest_pending_age_seconds", "gauge"],
          ["voice_agent_http_requests_total", "counter"],
          ["voice_agent_http_request_duration_seconds", "histogram"]
        ]
      ) assert.include(text, `# TYPE ${name} ${kind}\n`, name)
      assert.strictEqual(sample(text, `voice_agent_calls_active{direction="outbound"}`), 0)
      assert.strictEqual(
        sample(text, `voice_agent_calls_total{direction="outbound",termination_reason="user-hangup"}`),
        1,
        text
      )
      assert.strictEqual(sample(text, `voice_agent_calls_total{direction="outbound",termination_reason="busy"}`), 1)
      assert.strictEqual(sample(text, "voice_agent_calls_placed_total"), 2)
      assert.strictEqual(sample(text, "voice_agent_dialer_claims_total"), 2)
      assert.isAbove(sample(text, "voice_agent_media_frame_lag_seconds_count")!, 0)
      assert.isAbove(sample(text, "voice_agent_turn_latency_seconds_count")!, 0)
      assert.strictEqual(
        sample(text, `voice_agent_http_requests_total{method="GET",route="/v2/campaigns/:campaign_code",status="200"}`),
        1,
        text
      )
      assert.strictEqual(
        sample(text, `voice_agent_http_requests_total{method="GET",route="/metrics",status="401"}`),
        2
      )
      // A route's refusal under its route, with the status its client got; a path no route has
      // as `unmatched`.
      assert.strictEqual(
        sample(text, `voice_agent_http_requests_total{method="POST",route="/v2/campaigns",status="422"}`),
        1
      )
      assert.strictEqual(
        sample(text, `voice_agent_http_requests_total{method="GET",route="/v2/campaigns/:campaign_code",status="404"}`),
        1
      )
      assert.strictEqual(
        sample(text, `voice_agent_http_requests_total{method="GET",route="unmatched",status="404"}`),
        1,
        text
      )
      assert.isAbove(
        sample(
          text,
          `voice_agent_http_request_duration_seconds_count{method="GET",route="/v2/campaigns/:campaign_code"}`
        )!,
        1
      )

      // Without promtool (outside CI) the format check is skipped with a notice; in CI it fails.
      if (noPromtool !== undefined && process.env["CI"] !== "true") {
        console.warn(`Skipping promtool check metrics: ${noPromtool}`)
      } else {
        const checked = spawnSync(promtool, ["check", "metrics"], { input: text, encoding: "utf8" })
        assert.strictEqual(checked.status, 0, `promtool check metrics:\n${checked.stdout}${checked.stderr}\n${text}`)
      }

      assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
    }).pipe(Effect.scoped), { timeout: 90_000 })

  it.live("is absent with VOICE_AGENT_METRICS=off", () =>
    Effect.gen(function*() {
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], { VOICE_AGENT_METRICS: "off" })
      assert.strictEqual((yield* scrape(daemon.url)).status, 404)
      assert.strictEqual((yield* Daemon.request(`${daemon.url}/healthz`)).status, 200)
      assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
