/**
 * A tiny local HTTP server standing in for Twilio's REST API in tests: it records every request
 * (method, path, headers, raw body) and answers each with what the test's `reply` says, at
 * once or after a delay (or never, for timeouts). Scoped: it listens on a free loopback port and closes with its scope.
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import { createServer } from "node:http"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string
}

/** A JSON answer, a raw text answer (either after `delayMs`), or no answer at all. */
export type Reply =
  | { readonly status: number; readonly json: unknown; readonly delayMs?: number }
  | { readonly status: number; readonly text: string; readonly delayMs?: number }
  | "never"

export interface RestServer {
  readonly url: string
  readonly requests: ReadonlyArray<Recorded>
}

const listen = (reply: (request: Recorded) => Reply) =>
  Effect.callback<{ readonly server: Server; readonly view: RestServer }>((resume) => {
    const requests: Array<Recorded> = []
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const recorded: Recorded = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8")
        }
        requests.push(recorded)
        const answer = reply(recorded)
        if (answer === "never") return
        const json = "json" in answer
        setTimeout(() => {
          res.writeHead(answer.status, { "content-type": json ? "application/json" : "text/plain" })
          res.end(json ? JSON.stringify(answer.json) : answer.text)
        }, answer.delayMs ?? 0)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ server, view: { url: `http://127.0.0.1:${port}`, requests } }))
    })
  })

const close = (server: Server) =>
  Effect.callback<void>((resume) => {
    server.closeAllConnections()
    server.close(() => resume(Effect.void))
  })

export const make = (reply: (request: Recorded) => Reply): Effect.Effect<RestServer, never, Scope.Scope> =>
  Effect.acquireRelease(listen(reply), ({ server }) => close(server)).pipe(Effect.map(({ view }) => view))
