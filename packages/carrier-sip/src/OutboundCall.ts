/**
 * A call placed through the trunk (RFC 3261 §13.2, CONTRACT §8): INVITE to
 * `sip:+<E.164>@<trunk>` with our SDP offer, progress reported (180, 183, with the early SDP
 * when there is one), challenges answered (`Authenticated`), and on a 2xx the ACK and an
 * established `Call`. A failure final is a `DialFailed` whose outcome CONTRACT §8 maps (486,
 * 600, 603 busy; 408, 480 no-answer; others failed), logged with the trunk's status and reason
 * phrase. At the ring timeout: CANCEL (once a provisional came, RFC 3261 §9.1) and the 487
 * awaited; a 200 that crosses the CANCEL is ACKed, then BYE. Either way `no-answer`. A dial
 * interrupted before the answer sends CANCEL too.
 *
 * @since 0.1.0
 */
import { Data, Deferred, Effect, Fiber, Result } from "effect"
import { randomBytes } from "node:crypto"
import * as Authenticated from "./Authenticated.ts"
import * as Call from "./Call.ts"
import * as ClientTransaction from "./ClientTransaction.ts"
import * as Dialog from "./Dialog.ts"
import * as InDialog from "./InDialog.ts"
import * as Sdp from "./Sdp.ts"
import * as SessionTimer from "./SessionTimer.ts"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"
import * as ViaRouting from "./ViaRouting.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>

/**
 * @category models
 */
export type Outcome = "busy" | "no-answer" | "failed"

/**
 * The call was not answered: the outcome, and the trunk's status and reason phrase (no status
 * when no final response came).
 *
 * @category errors
 */
export class DialFailed extends Data.TaggedError("DialFailed")<{
  readonly outcome: Outcome
  readonly status: number | undefined
  readonly reason: string
}> {
  override get message(): string {
    return `${this.outcome}: ${this.status === undefined ? "" : `${this.status} `}${this.reason}`
  }
}

/**
 * CONTRACT §8's outcome of a failure final.
 *
 * @category outcomes
 */
export const outcomeOf = (status: number): Outcome =>
  status === 486 || status === 600 || status === 603
    ? "busy"
    : status === 408 || status === 480
    ? "no-answer"
    : "failed"

/**
 * @category models
 */
export interface Progress {
  readonly status: number
  readonly reason: string
  /** The early media's SDP (a 183's, usually). */
  readonly sdp: string | undefined
}

/**
 * @category models
 */
export interface DialOptions {
  /** E.164, with its `+`. */
  readonly to: string
  readonly from: string
  /** Our side of the media: the offer is `Sdp.offer(local)`. */
  readonly local: Sdp.Local
  /** Default the context's (`SIP_RING_TIMEOUT_S`). */
  readonly ringTimeoutS?: number
  readonly onProgress?: (progress: Progress) => Effect.Effect<void>
  /** The INVITE's Call-ID (the carrier's id for the call); default a fresh one. */
  readonly callId?: string
}

/**
 * @category models
 */
export interface Context extends Call.Context {
  readonly trunk: Peer
  /** The trunk as a URI host writes it (`host[:port]`). */
  readonly trunkHostPort: string
  readonly publicHost: string
  readonly ringTimeoutS: number
  readonly register: (callId: string, localTag: string, handle: Call.Handle) => void
}

const random = (bytes: number) => randomBytes(bytes).toString("hex")
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * A fresh Call-ID: 24 hex digits `@` our public host.
 *
 * @category constructors
 */
export const newCallId = (publicHost: string) => `${random(12)}@${publicHost}`

/**
 * Places a call; succeeds once it is answered and ACKed.
 *
 * @category constructors
 */
export const dial = (context: Context, options: DialOptions): Effect.Effect<Call.Call, DialFailed> =>
  Effect.gen(function*() {
    const { endpoint, trunk } = context
    const callId = options.callId ?? newCallId(context.publicHost)
    const fromTag = random(6)
    const toUri = `sip:${options.to}@${context.trunkHostPort}`
    const offer = encoder.encode(Sdp.offer(options.local))
    const label = `SIP call ${callId} to ${options.to}`
    let seq = 0
    const build = (authorization: ReadonlyArray<SipMessage.Header>): OutgoingRequest => ({
      _tag: "Request",
      method: "INVITE",
      uri: toUri,
      headers: [
        { name: "Max-Forwards", value: "70" },
        { name: "From", value: `<sip:${options.from}@${context.publicHost}>;tag=${fromTag}` },
        { name: "To", value: `<${toUri}>` },
        { name: "Call-ID", value: callId },
        { name: "CSeq", value: `${++seq} INVITE` },
        { name: "Contact", value: context.contact },
        { name: "Allow", value: InDialog.ALLOW },
        { name: "Supported", value: "timer" },
        { name: "Content-Type", value: "application/sdp" },
        ...authorization
      ],
      body: offer
    })
    let current: OutgoingRequest | undefined
    let ack: { readonly message: OutgoingRequest; readonly target: Peer } | undefined
    const provisional = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkChild(Authenticated.request(endpoint, build, trunk, {
      credentials: context.credentials,
      onSent: (request) => Effect.sync(() => void (current = request)),
      onProvisional: (response) =>
        Effect.gen(function*() {
          yield* Deferred.succeed(provisional, undefined)
          if (response.status === 100 || options.onProgress === undefined) return
          const sdp = response.body.length > 0 ? decoder.decode(response.body) : undefined
          yield* options.onProgress({ status: response.status, reason: response.reason, sdp })
        }),
      // The 2xx again: our ACK was lost.
      onRetransmission: () => ack === undefined ? Effect.void : Effect.ignore(endpoint.send(ack.message, ack.target))
    }))
    const unreachable = (error: { readonly detail: string }) =>
      Effect.andThen(
        Effect.logWarning(`${label}: no answer from the trunk (${error.detail})`),
        Effect.fail(new DialFailed({ outcome: "failed", status: undefined, reason: error.detail }))
      )

    /** ACK a 2xx and make the call; on a bad answer, BYE and fail. */
    const establish = (invite: OutgoingRequest, response: SipMessage.SipResponse) =>
      Effect.gen(function*() {
        const made = Dialog.fromResponse(invite, response)
        if (Result.isFailure(made)) {
          // No dialog to speak of (no To tag or Contact): ACK it where the INVITE went, so the
          // trunk stops re-sending it, and give up.
          const fallback = InDialog.withoutVia(ClientTransaction.ackFor(invite, response))
          ack = { message: endpoint.prepare(fallback, trunk.transport), target: trunk }
          yield* Effect.ignore(endpoint.send(ack.message, trunk))
          yield* Effect.logWarning(`${label}: the 2xx is unusable (${made.failure})`)
          return yield* new DialFailed({ outcome: "failed", status: response.status, reason: made.failure })
        }
        const dialog = made.success
        const target = InDialog.targetOf(dialog, context.transport) ?? trunk
        const cseq = SipHeaders.parseCSeq(SipMessage.header(invite, "CSeq") ?? "")
        const built = Dialog.request(dialog, "ACK", {
          via: "",
          seq: Result.isSuccess(cseq) ? cseq.success.seq : response.cseq.seq
        })
        ack = { message: endpoint.prepare(InDialog.withoutVia(built.request), target.transport), target }
        const remoteSdp = decoder.decode(response.body)
        const parsed = Sdp.parse(remoteSdp)
        const negotiated = Result.isSuccess(parsed) ? Sdp.negotiate(parsed.success) : Result.fail(parsed.failure)
        const asked = SessionTimer.read(response)
        const handle = yield* Call.make(context, {
          dialog,
          direction: "outbound",
          local: options.local,
          remoteSdp,
          remote: Result.isSuccess(negotiated)
            ? negotiated.success
            : {
              index: 0,
              codec: "PCMU",
              payloadType: 0,
              telephoneEvent: undefined,
              address: "0.0.0.0",
              port: 0,
              direction: "inactive",
              held: true
            },
          timer: asked === undefined ? undefined : { interval: asked.interval, weRefresh: asked.refresher !== "uas" },
          peerAllowsUpdate: SipMessage.headerValues(response, "Allow").some((m) => m.trim().toUpperCase() === "UPDATE")
        })
        context.register(callId, fromTag, handle)
        yield* Effect.ignore(endpoint.send(ack.message, target))
        if (Result.isFailure(negotiated)) {
          yield* Effect.logWarning(`${label}: the answer's SDP is unusable (${negotiated.failure}); hanging up`)
          yield* handle.call.hangup
          return yield* new DialFailed({ outcome: "failed", status: response.status, reason: negotiated.failure })
        }
        return handle.call
      })

    // Dialling given up (the caller interrupted): CANCEL, on a fiber that outlives this one.
    const abandon = Effect.suspend(() =>
      current === undefined ? Effect.void : context.fork(Effect.ignore(
        Effect.andThen(
          Effect.logInfo(`${label}: dialling given up, CANCEL`),
          endpoint.request(ClientTransaction.cancelFor(current), trunk)
        )
      ))
    )
    const ringMs = (options.ringTimeoutS ?? context.ringTimeoutS) * 1000
    const first = yield* Effect.raceFirst(
      Fiber.join(fiber),
      Effect.as(Effect.sleep(ringMs), undefined)
    ).pipe(Effect.catch(unreachable), Effect.onInterrupt(() => abandon))
    if (first !== undefined) {
      const { request, response } = first
      if (response.status < 300) return yield* establish(request, response)
      const outcome = outcomeOf(response.status)
      yield* Effect.logWarning(`${label}: ${outcome}, the trunk answered ${response.status} ${response.reason}`)
      return yield* new DialFailed({ outcome, status: response.status, reason: response.reason })
    }

    // Ring timeout: CANCEL once a provisional came (RFC 3261 §9.1), then the INVITE's final.
    yield* Effect.raceFirst(Deferred.await(provisional), Effect.asVoid(Fiber.await(fiber)))
    if (current !== undefined && fiber.pollUnsafe() === undefined) {
      yield* Effect.logInfo(`${label}: no answer in ${ringMs / 1000} s, CANCEL`)
      const cancel = ClientTransaction.cancelFor(current)
      yield* Effect.forkChild(
        endpoint.request(cancel, trunk).pipe(
          Effect.flatMap((response) =>
            response.status < 300
              ? Effect.void
              : Effect.logWarning(`${label}: CANCEL refused: ${response.status} ${response.reason}`)
          ),
          Effect.catch((error) => Effect.logWarning(`${label}: CANCEL failed: ${error.detail}`))
        )
      )
    }
    const last = yield* Fiber.join(fiber).pipe(Effect.catch(unreachable))
    if (last.response.status < 300) {
      // The answer crossed our CANCEL: ACK it, then BYE.
      const call = yield* establish(last.request, last.response)
      yield* call.hangup
    }
    yield* Effect.logWarning(
      `${label}: no-answer in ${ringMs / 1000} s, the trunk answered ${last.response.status} ${last.response.reason}`
    )
    return yield* new DialFailed({
      outcome: "no-answer",
      status: last.response.status < 300 ? undefined : last.response.status,
      reason: `no answer in ${ringMs / 1000} s`
    })
  })

/**
 * Our Contact: `<sip:user@public address:port>`, with `transport=tcp` over TCP.
 *
 * @category constructors
 */
export const contactOf = (user: string, publicHost: string, port: number, transport: Peer["transport"]) =>
  `<sip:${user}@${ViaRouting.uriHost(publicHost)}:${port}${transport === "TCP" ? ";transport=tcp" : ""}>`
