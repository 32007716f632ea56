/**
 * A call's RTP and RTCP sockets: an even port for RTP and the odd one above it for RTCP
 * (RFC 3550 §11), both from `RTP_PORTS`, bound with `node:dgram`.
 *
 * Owns: choosing the pair and binding it. The search starts at a random even port of the range
 * (so that two calls, or two daemons on one host, rarely try the same ports first) and walks
 * the range once, wrapping, skipping a pair when either port is in use (or refused); a range
 * with no free pair fails with `RtpPortsExhausted`, saying which range. The sockets are closed
 * when the scope closes. Does not own what is sent on them (`RtpSession`).
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"
import type { Scope } from "effect"
import * as Dgram from "node:dgram"
import * as Net from "node:net"

/**
 * @category models
 */
export interface RtpPorts {
  /** The RTP port (even); RTCP is `port + 1`. */
  readonly port: number
  readonly rtp: Dgram.Socket
  readonly rtcp: Dgram.Socket
}

/**
 * @category errors
 */
export class RtpPortsExhausted extends Data.TaggedError("RtpPortsExhausted")<{
  readonly host: string
  readonly low: number
  readonly high: number
}> {
  override get message(): string {
    return `No free RTP port pair on ${this.host} in RTP_PORTS ${this.low}-${this.high}`
  }
}

const bind = (host: string, port: number): Effect.Effect<Dgram.Socket | undefined> =>
  Effect.callback<Dgram.Socket | undefined>((resume) => {
    const socket = Dgram.createSocket({ type: Net.isIPv6(host) ? "udp6" : "udp4" })
    const failed = () => {
      socket.close()
      resume(Effect.succeed(undefined))
    }
    socket.once("error", failed)
    try {
      socket.bind(port, host, () => {
        socket.off("error", failed)
        resume(Effect.succeed(socket))
      })
    } catch {
      failed()
    }
  })

const close = (socket: Dgram.Socket): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    try {
      socket.close(() => resume(Effect.void))
    } catch {
      // already closed
      resume(Effect.void)
    }
  })

/**
 * The even ports of `low..high` whose odd neighbour is in range too, starting at `start`'s
 * place (any number; taken modulo the count) and wrapping.
 *
 * @category constructors
 */
export const candidates = (low: number, high: number, start: number): Array<number> => {
  const first = low % 2 === 0 ? low : low + 1
  const count = Math.max(0, Math.floor((high - 1 - first) / 2) + 1)
  const out: Array<number> = []
  const offset = count === 0 ? 0 : ((Math.floor(start) % count) + count) % count
  for (let i = 0; i < count; i++) out.push(first + ((offset + i) % count) * 2)
  return out
}

/**
 * Binds a free even/odd pair on `host` within `range`, closed with the scope.
 *
 * @category constructors
 */
export const allocate = (
  host: string,
  range: { readonly low: number; readonly high: number }
): Effect.Effect<RtpPorts, RtpPortsExhausted, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      for (const port of candidates(range.low, range.high, Math.random() * 65536)) {
        const rtp = yield* bind(host, port)
        if (rtp === undefined) continue
        const rtcp = yield* bind(host, port + 1)
        if (rtcp === undefined) {
          yield* close(rtp)
          continue
        }
        return { port, rtp, rtcp }
      }
      return yield* new RtpPortsExhausted({ host, low: range.low, high: range.high })
    }),
    (ports) => Effect.andThen(close(ports.rtp), close(ports.rtcp))
  )
