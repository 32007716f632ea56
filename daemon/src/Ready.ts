/**
 * What `serve` says once it accepts requests: the demo key block when this start seeded one
 * (DemoSeed.ts), then one ready line with the URL; and the lines of a graceful shutdown. A
 * worker process of `serve --workers` (Workers.ts) tells the primary process instead, which says
 * the ready line once every worker is ready.
 *
 * Text format prints the key in a framed block on standard output (it is shown this once);
 * `LOG_FORMAT=json` logs it as one JSON line instead, so standard output stays JSON lines.
 * Tests and scripts read `API key: <key>` and the `http://…` URL of the ready line.
 *
 * @since 0.1.0
 */
import { AdminToken } from "@voice-agent/http/handlers/Admin"
import { Console, Effect, Layer, Option } from "effect"
import { HttpServer } from "effect/http"
import { DemoSeed } from "./DemoSeed.ts"
import type { DemoOrganization } from "./DemoSeed.ts"
import type { LogSettings } from "./Logging.ts"

const rule = "-".repeat(72)

/**
 * The message a worker process sends the primary once it is ready, with its URL.
 *
 * @category constructors
 */
export const workerReady = "voice-agent/worker-ready"

/**
 * The block that shows the demo key once.
 *
 * @category encoding
 */
export const demoBlock = (demo: DemoOrganization, url: string): string =>
  [
    rule,
    `  First start: created the organization "demo" (id ${demo.organizationId})`,
    `  with the simulated number ${demo.phoneNumber}.`,
    "",
    `  API key: ${demo.apiKey}`,
    "",
    "  It is shown only now; only its hash is stored. Try:",
    `  curl -H "Authorization: Bearer ${demo.apiKey}" ${url}/v2/campaigns`,
    rule
  ].join("\n")

/**
 * The ready line, with what follows it in parentheses (the console and the API reference).
 *
 * @category constructors
 */
export const announce = (url: string, log: LogSettings, more = "") => {
  const ready = Effect.logInfo(
    `voice-agent ready on ${url} (${more}web console: ${url}/console/, API reference: ${url}/docs)`
  )
  return log.format === "json" ? Effect.annotateLogs(ready, { url }) : ready
}

/**
 * This process's part in the ready announcement: the line itself, or, in the worker process
 * `worker` of `serve --workers`, its own line and the URL sent to the primary process.
 *
 * @category layers
 */
export const layer = (log: LogSettings, shutdownTimeoutSeconds: number, worker: Option.Option<number>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const url = HttpServer.formatAddress(server.address)
    const demo = yield* DemoSeed
    const adminToken = yield* AdminToken
    if (Option.isSome(demo)) {
      if (log.format === "json") {
        yield* Effect.logInfo("Created the demo organization; its API key is shown only now").pipe(
          Effect.annotateLogs({
            organization_id: demo.value.organizationId,
            phone_number: demo.value.phoneNumber,
            api_key_id: demo.value.keyId,
            api_key: demo.value.apiKey
          })
        )
      } else {
        yield* Console.log(demoBlock(demo.value, url))
      }
    }
    yield* Effect.logInfo(
      Option.isSome(adminToken)
        ? `Admin API enabled at ${url}/admin/v1`
        : "Admin API disabled (set VOICE_AGENT_ADMIN_TOKEN to enable it)"
    )
    if (Option.isSome(worker)) {
      yield* Effect.logInfo(`Worker ${worker.value} (pid ${process.pid}) ready`)
      yield* Effect.sync(() => process.send?.({ type: workerReady, url }))
    } else {
      yield* announce(url, log)
    }
    yield* Effect.addFinalizer(() =>
      Effect.logInfo(`Shutting down: no new requests; waiting up to ${shutdownTimeoutSeconds} s for requests in flight`)
    )
  }))
