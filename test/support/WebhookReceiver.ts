/**
 * A webhook receiver for tests: a `node:http` server on the loopback that records every request
 * (path, headers, raw body) and answers as the test's `respond` says: a status code, an
 * {@link Answer} (status, headers, a delay), or `"hang"` to keep the request waiting until the
 * receiver closes. Each reception is checked
 * against the endpoint's secret with the engine's Standard Webhooks verifier, and tests wait on
 * receptions (`waitFor`), never on time.
 *
 * @since 0.1.0
 */
import * as WebhookSignature from "@voice-agent/engine/WebhookSignature"
import { Deferred, Effect, Result } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * @category models
 */
export interface Reception {
  readonly path: string
  readonly id: string
  readonly timestamp: string
  readonly signature: string
  readonly contentType: string | undefined
  /** The raw body as received. */
  readonly body: string
  /** What the receiver answered (`null`: it never did). */
  readonly status: number | null
  /** Wall-clock receipt time, ms. */
  readonly at: number
}

/**
 * @category models
 */
export interface Answer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  /** Answer this long after the request arrived. */
  readonly afterMs?: number
}

/**
 * @category models
 */
export interface Receiver {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string
  readonly receptions: ReadonlyArray<Reception>
  /** Resolves with the receptions so far once `done` holds for them. */
  readonly waitFor: (done: (receptions: ReadonlyArray<Reception>) => boolean) => Effect.Effect<ReadonlyArray<Reception>>
}

/**
 * Whether a reception's signature verifies with `secret` (at the receipt time).
 *
 * @category guards
 */
export const verifies = (secret: string, reception: Reception): boolean =>
  Result.isSuccess(
    WebhookSignature.verify(
      secret,
      { id: reception.id, timestamp: reception.timestamp, signature: reception.signature },
      reception.body,
      Math.floor(reception.at / 1000)
    )
  )

/**
 * A loopback port nothing listens on (bound, then released): a receiver that is down.
 *
 * @category constructors
 */
export const closedPort: Effect.Effect<number> = Effect.callback<number>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * Starts a receiver for the scope. `respond` gets the request's path and how many receptions of
 * the same `webhook-id` came before it (0 for the first).
 *
 * @category constructors
 */
export const make = (respond: (path: string, previous: number, id: string) => number | Answer | "hang") =>
  Effect.gen(function*() {
    const receptions: Array<Reception> = []
    const watchers: Array<{
      readonly done: (receptions: ReadonlyArray<Reception>) => boolean
      readonly found: Deferred.Deferred<ReadonlyArray<Reception>>
    }> = []
    const notify = () => {
      for (const watcher of watchers) {
        if (watcher.done(receptions)) Deferred.doneUnsafe(watcher.found, Effect.succeed([...receptions]))
      }
    }
    const server = yield* Effect.acquireRelease(
      Effect.callback<http.Server>((resume) => {
        const server = http.createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const header = (name: string) => String(request.headers[name] ?? "")
            const id = header("webhook-id")
            const path = request.url ?? "/"
            const given = respond(path, receptions.filter((r) => r.id === id).length, id)
            const answer: Answer | "hang" = typeof given === "number" ? { status: given } : given
            receptions.push({
              path,
              id,
              timestamp: header("webhook-timestamp"),
              signature: header("webhook-signature"),
              contentType: request.headers["content-type"],
              body: Buffer.concat(chunks).toString("utf8"),
              status: answer === "hang" ? null : answer.status,
              at: Date.now()
            })
            if (answer !== "hang") {
              setTimeout(
                () => response.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers }).end("ok"),
                answer.afterMs ?? 0
              )
            }
            notify()
          })
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as AddressInfo).port
    return {
      url: `http://127.0.0.1:${port}`,
      receptions,
      waitFor: (done) =>
        Effect.gen(function*() {
          if (done(receptions)) return [...receptions]
          const found = yield* Deferred.make<ReadonlyArray<Reception>>()
          watchers.push({ done, found })
          return yield* Deferred.await(found)
        })
    } satisfies Receiver
  })
