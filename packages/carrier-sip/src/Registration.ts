/**
 * REGISTER with the trunk (RFC 3261 §10) when `SIP_REGISTER=true`: our Contact bound to
 * `sip:<username>@<trunk>`, challenges answered (`Authenticated`), refreshed at half the
 * Expires the trunk grants (its Contact's `expires`, else its Expires header, else what we
 * asked), asked again at once with the trunk's Min-Expires after a 423, retried a minute after
 * another failure, and removed (Expires: 0) when the scope closes.
 * Every refusal is logged with the trunk's status and reason phrase.
 *
 * @since 0.1.0
 */
import { Effect, Result } from "effect"
import type { Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as Authenticated from "./Authenticated.ts"
import type * as SipEndpoint from "./SipEndpoint.ts"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>

/**
 * @category models
 */
export interface Options {
  readonly endpoint: SipEndpoint.SipEndpoint
  readonly trunk: Peer
  /** The trunk as a URI host writes it (`host[:port]`). */
  readonly trunkHostPort: string
  readonly username: string
  readonly credentials: Authenticated.Credentials | undefined
  readonly contact: string
  readonly publicHost: string
  /** Seconds asked for; default 3600. */
  readonly expires?: number
  /** Seconds before trying again after a failure; default 60. */
  readonly retryS?: number
}

/**
 * @category models
 */
export interface Registration {
  /** The Expires the trunk last granted, in seconds; `undefined` while not registered. */
  readonly granted: () => number | undefined
}

/**
 * The Expires a 2xx to REGISTER grants.
 *
 * @category decoding
 */
export const grantedExpires = (response: SipMessage.SipResponse, asked: number): number => {
  for (const value of SipMessage.headerValues(response, "Contact")) {
    const contact = SipHeaders.parseNameAddr(value, "Contact")
    if (Result.isFailure(contact)) continue
    const expires = SipHeaders.param(contact.success.params, "expires")
    if (expires !== undefined && /^\d+$/.test(expires)) return Number(expires)
  }
  const header = SipMessage.header(response, "Expires")
  return header !== undefined && /^\d+$/.test(header.trim()) ? Number(header.trim()) : asked
}

/**
 * Registers for the scope, kept refreshed by a fiber of the scope.
 *
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Registration, never, Scope.Scope> =>
  Effect.gen(function*() {
    const callId = `${randomBytes(12).toString("hex")}@${options.publicHost}`
    const tag = randomBytes(6).toString("hex")
    const aor = `<sip:${options.username}@${options.trunkHostPort}>`
    const asked = options.expires ?? 3600
    let seq = 0
    let granted: number | undefined
    let askFor = asked
    /** A 423 told us what to ask for: REGISTER again without waiting. */
    let again = false

    const build = (expires: number) => (authorization: ReadonlyArray<SipMessage.Header>): OutgoingRequest => ({
      _tag: "Request",
      method: "REGISTER",
      uri: `sip:${options.trunkHostPort}`,
      headers: [
        { name: "Max-Forwards", value: "70" },
        { name: "From", value: `${aor};tag=${tag}` },
        { name: "To", value: aor },
        { name: "Call-ID", value: callId },
        { name: "CSeq", value: `${++seq} REGISTER` },
        { name: "Contact", value: options.contact },
        { name: "Expires", value: `${expires}` },
        ...authorization
      ]
    })

    /** One REGISTER; the granted Expires, or `undefined` (logged). */
    const register = (expires: number) =>
      Authenticated.request(options.endpoint, build(expires), options.trunk, {
        credentials: options.credentials
      }).pipe(
        Effect.flatMap(({ response }) => {
          if (response.status >= 200 && response.status < 300) {
            return Effect.succeed(expires === 0 ? 0 : grantedExpires(response, expires))
          }
          const least = Number(SipMessage.header(response, "Min-Expires")?.trim())
          if (response.status === 423 && Number.isInteger(least) && least > askFor) {
            // Interval Too Brief: at once again, asking for the trunk's least.
            askFor = least
            again = true
          }
          return Effect.as(
            Effect.logWarning(
              `SIP: REGISTER ${aor} refused by the trunk: ${response.status} ${response.reason}`
            ),
            undefined
          )
        }),
        Effect.catch((error) =>
          Effect.as(Effect.logWarning(`SIP: REGISTER ${aor} got no answer: ${error.detail}`), undefined)
        )
      )

    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      again = false
      granted = yield* register(askFor)
      if (granted !== undefined) yield* Effect.logInfo(`SIP: registered ${aor} for ${granted} s`)
      if (again) return
      yield* Effect.sleep(granted === undefined || granted === 0 ? (options.retryS ?? 60) * 1000 : granted * 500)
    })))

    yield* Effect.addFinalizer(() =>
      granted === undefined ? Effect.void : Effect.raceFirst(
        Effect.asVoid(register(0)),
        Effect.sleep(5000)
      )
    )
    return { granted: () => granted }
  })
