/**
 * RFC 4475's torture messages sent over UDP to a running engine (the fixtures of
 * `packages/carrier-sip/test/fixtures/rfc4475.ts`, the invalid ones and those the RFC lets a UAS
 * accept or refuse), each from a socket of its own, waiting `waitMs` for an answer: each must get
 * a 4xx (or the 505 RFC 4475 asks for a wrong version) or be dropped, never a 2xx or another 5xx.
 * Then an OPTIONS must still be answered 200: the engine carries on.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as dgram from "node:dgram"
import { cases } from "../../test/fixtures/rfc4475.ts"

/**
 * @category models
 */
export interface Verdict {
  readonly name: string
  /** The answer's status, or undefined (dropped). */
  readonly status: number | undefined
  readonly ok: boolean
}

/** Sends `text` to `host:port` and answers the status of the first response within `waitMs`. */
export const exchange = (host: string, port: number, text: string, waitMs: number) =>
  Effect.callback<number | undefined>((resume) => {
    const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4")
    const done = (status: number | undefined) => {
      clearTimeout(timer)
      socket.close()
      resume(Effect.succeed(status))
    }
    const timer = setTimeout(() => done(undefined), waitMs)
    socket.on("message", (bytes) => {
      const status = /^SIP\/2\.0 (\d{3})/.exec(bytes.toString("latin1"))
      if (status !== null && Number(status[1]) >= 200) done(Number(status[1]))
    })
    socket.on("error", () => done(undefined))
    socket.send(Buffer.from(text, "latin1"), port, host)
  })

const acceptable = (status: number | undefined, expect: (typeof cases)[number]["expect"]) =>
  status === undefined || (status >= 400 && status < 500) || (status === 505 && expect === 505) ||
  (expect === "either" && status >= 300)

/**
 * Every torture message's answer.
 *
 * @category constructors
 */
export const send = (host: string, port: number, waitMs = 300): Effect.Effect<ReadonlyArray<Verdict>> =>
  Effect.forEach(
    cases.filter((c) => c.expect !== "valid"),
    (c) =>
      Effect.map(exchange(host, port, c.text, waitMs), (status) => ({
        name: c.name,
        status,
        ok: acceptable(status, c.expect)
      })),
    { concurrency: 4 }
  )

/**
 * An OPTIONS to the engine: its answer's status (undefined: none in `waitMs`).
 *
 * @category constructors
 */
export const options = (host: string, port: number, waitMs = 2000) => {
  const id = randomBytes(6).toString("hex")
  const target = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`
  return exchange(
    host,
    port,
    [
      `OPTIONS sip:${target} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bK${id};rport`,
      "Max-Forwards: 70",
      `From: <sip:sip-check@127.0.0.1>;tag=${id}`,
      `To: <sip:${target}>`,
      `Call-ID: ${id}@sip-check`,
      "CSeq: 1 OPTIONS",
      "Content-Length: 0",
      "",
      ""
    ].join("\r\n"),
    waitMs
  )
}
