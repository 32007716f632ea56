/**
 * The authentication loop (RFC 3261 §22.2, RFC 8760): a request sent, and when the trunk
 * answers 401 or 407, sent again with the `Authorization` (or `Proxy-Authorization`) that
 * `DigestAuth` computes, under a new CSeq and a new branch.
 *
 * Owns: choosing the challenge (`DigestAuth.chooseChallenge`), a fresh cnonce per answer, and
 * when to stop: a second challenge is answered only when it says `stale=true` (the nonce
 * expired, the credentials were right), at most twice; otherwise that challenge is the final
 * response, logged with the trunk's status and reason phrase. Does not own what the request is:
 * `build` makes it, with the authorization headers and a CSeq number of its own (counted up
 * for each call: a dialog's, or the INVITE's Call-ID's).
 *
 * @since 0.1.0
 */
import { Effect, Redacted, Result } from "effect"
import { randomBytes } from "node:crypto"
import * as DigestAuth from "./DigestAuth.ts"
import type * as SipEndpoint from "./SipEndpoint.ts"
import * as SipMessage from "./SipMessage.ts"
import * as SipUri from "./SipUri.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>

/**
 * @category models
 */
export interface Credentials {
  readonly username: string
  readonly password: Redacted.Redacted
}

/**
 * @category models
 */
export interface Options extends SipEndpoint.RequestOptions {
  readonly credentials: Credentials | undefined
  /** Each request as sent (with its Via): the one a CANCEL or an ACK is built from. */
  readonly onSent?: (request: OutgoingRequest) => Effect.Effect<void>
}

/**
 * The final response and the request it answers (the last one sent).
 *
 * @category models
 */
export interface Sent {
  readonly request: OutgoingRequest
  readonly response: SipMessage.SipResponse
}

const uriText = (uri: OutgoingRequest["uri"]) => typeof uri === "string" ? uri : SipUri.format(uri)

/**
 * Sends `build([])`, then answers challenges as the module says.
 *
 * @category requests
 */
export const request = (
  endpoint: SipEndpoint.SipEndpoint,
  build: (authorization: ReadonlyArray<SipMessage.Header>) => OutgoingRequest,
  destination: Peer,
  options: Options
): Effect.Effect<Sent, SipEndpoint.SipRequestError> =>
  Effect.gen(function*() {
    let authorization: ReadonlyArray<SipMessage.Header> = []
    let answered = 0
    while (true) {
      const request = endpoint.prepare(build(authorization), destination.transport)
      if (options.onSent !== undefined) yield* options.onSent(request)
      const response = yield* endpoint.request(request, destination, options)
      if ((response.status !== 401 && response.status !== 407) || options.credentials === undefined) {
        return { request, response }
      }
      const proxy = response.status === 407
      const challenge = DigestAuth.chooseChallenge(
        SipMessage.headerValues(response, proxy ? "Proxy-Authenticate" : "WWW-Authenticate")
      )
      const what = `${request.method} ${uriText(request.uri)}`
      if (Result.isFailure(challenge)) {
        yield* Effect.logWarning(
          `SIP: ${what} refused ${response.status} ${response.reason}: no challenge to answer (${challenge.failure})`
        )
        return { request, response }
      }
      if (answered > 0 && (!challenge.success.stale || answered >= 2)) {
        yield* Effect.logWarning(
          `SIP: ${what} challenged again after our credentials: ${response.status} ${response.reason} (user ${options.credentials.username}, realm ${challenge.success.realm})`
        )
        return { request, response }
      }
      answered++
      const value = DigestAuth.authorization(challenge.success, {
        username: options.credentials.username,
        password: Redacted.value(options.credentials.password),
        method: request.method,
        uri: uriText(request.uri),
        body: request.body ?? new Uint8Array(0),
        cnonce: randomBytes(8).toString("hex"),
        nc: 1
      })
      authorization = [{ name: proxy ? "Proxy-Authorization" : "Authorization", value }]
    }
  })
