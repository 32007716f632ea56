/**
 * Traces of a real `voice-agent serve` (docs/OPERATIONS.md), sent over OTLP/HTTP as JSON to a
 * receiver of the test's own on the loopback (a `node:http` server that keeps what it is
 * posted): after a campaign call and an API request, and the daemon's shutdown (which flushes
 * the exporter), the receiver holds the call's spans, every span of the call's traces carrying
 * its id, and a server span for the request with its method, route and status; the JSON log
 * lines written in a call's span carry its trace and span ids.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Daemon from "../support/Daemon.ts"

interface Attribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: string | number }
}
interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes?: ReadonlyArray<Attribute>
}
interface Export {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<Attribute> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<Span> }>
  }>
}

const attribute = (attributes: ReadonlyArray<Attribute> | undefined, key: string): string | undefined => {
  const value = attributes?.find((a) => a.key === key)?.value
  return value === undefined ? undefined : String(value.stringValue ?? value.intValue)
}

/** A receiver: answers 200 to every POST and keeps each body with its path and content type. */
const receiver = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly posts: Array<{ path: string; type: string; body: string }> }>(
    (resume) => {
      const posts: Array<{ path: string; type: string; body: string }> = []
      const server = http.createServer((request, response) => {
        let body = ""
        request.setEncoding("utf8")
        request.on("data", (chunk: string) => (body += chunk))
        request.on("end", () => {
          posts.push({ path: request.url ?? "", type: request.headers["content-type"] ?? "", body })
          response.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, posts, server }))
      })
    }
  ),
  (r) => Effect.sync(() => (r as unknown as { server: http.Server }).server.close())
)

describe("traces over OTLP", () => {
  it.live("carry the call id on every span of a call, and each request's route", () =>
    Effect.gen(function*() {
      const otlp = yield* receiver
      const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "voice-agent-test",
        LOG_FORMAT: "json"
      })
      const key = Option.getOrThrow(daemon.apiKey)
      const code = yield* Daemon.campaignWithContacts(daemon.url, key, "traces", [{ phone_number: "+12025550101" }])
      const ended = yield* daemon.waitFor(/Call \S+ to \+12025550101 ended/)
      const callId = /Call (\S+) to/.exec(ended)![1]!
      assert.strictEqual((yield* Daemon.request(`${daemon.url}/v2/campaigns/${code}`, Daemon.bearer(key))).status, 200)
      assert.strictEqual(yield* daemon.stop("SIGTERM"), 0)

      assert.isAbove(otlp.posts.length, 0, "nothing was exported")
      const exports = otlp.posts.map((post) => {
        assert.strictEqual(post.path, "/v1/traces")
        assert.include(post.type, "application/json")
        return JSON.parse(post.body) as Export
      })
      const services = new Set(
        exports.flatMap((e) => e.resourceSpans.map((r) => attribute(r.resource.attributes, "service.name")))
      )
      assert.deepStrictEqual([...services], ["voice-agent-test"])
      const spans = exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))
      const ofCall = (span: Span) => attribute(span.attributes, "voice_agent.call_id") === callId

      // The call's attempt and its media session, each a span of the call; every span of their
      // traces carries the call id.
      for (const name of ["call", "call.media"]) {
        const root = spans.find((span) => span.name === name && ofCall(span))
        assert.isDefined(root, `no span ${name} of call ${callId} among ${spans.map((s) => s.name).join(", ")}`)
        const trace = spans.filter((span) => span.traceId === root.traceId)
        assert.isAbove(trace.length, 1, `the trace of ${name} holds only it`)
        const without = trace.filter((span) => !ofCall(span)).map((span) => span.name)
        assert.deepStrictEqual(without, [], `spans of the trace of ${name} without the call id`)
      }

      // Log lines written inside a call's span carry its trace and span ids.
      for (
        const [name, pattern] of [["call", /Call \S+ to \+12025550101 ended/], [
          "call.media",
          /Media stream of call/
        ]] as const
      ) {
        const root = spans.find((span) => span.name === name && ofCall(span))!
        const line = daemon.stdout.find((l) => pattern.test(l) && l.includes(callId))
        assert.isDefined(line, `no log line ${pattern}`)
        const logged = JSON.parse(line) as { trace_id?: string; span_id?: string }
        assert.strictEqual(logged.trace_id, root.traceId, line)
        assert.isTrue(spans.some((span) => span.spanId === logged.span_id), line)
      }

      // The request: a server span (kind 2) with its method, route pattern and status.
      const request = spans.find((span) =>
        span.kind === 2 && attribute(span.attributes, "http.route") === "/v2/campaigns/:campaign_code"
      )
      assert.isDefined(request, `no server span for GET /v2/campaigns/:campaign_code`)
      assert.strictEqual(attribute(request.attributes, "http.request.method"), "GET")
      assert.strictEqual(attribute(request.attributes, "http.response.status_code"), "200")
    }).pipe(Effect.scoped), { timeout: 90_000 })
})
