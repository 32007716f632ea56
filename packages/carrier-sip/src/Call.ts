/**
 * One established call: its `Dialog`, the requests either side sends in it, and its events.
 *
 * Owns, for a confirmed dialog (RFC 3261 §12-§15): BYE sent (`hangup`) and received (200, the
 * call ended); a re-INVITE received (our SDP answer, direction mirrored, so hold and unhold
 * come out of `Sdp.negotiate`'s `held`; 488 when nothing fits) reported as `Reinvited`, and one
 * sent (`hold`); UPDATE received (a session refresh, or an offer as a re-INVITE's); OPTIONS
 * answered 200 with Allow and Accept; NOTIFYs of a REFER followed (`refer`, RFC 3515: each
 * answered 200, `Transfer` reads them); a peer's offer crossing our re-INVITE 491 (ours
 * tried again after a random wait when it gets 491); other methods 501; a CSeq
 * out of order 500. Session timers (RFC 4028) when the peer asks: the refresher refreshes at
 * half the interval (UPDATE when the peer allows it, else re-INVITE), the other side sends BYE
 * when no refresh came in time. Every refusal by the trunk is logged with its status and
 * reason phrase. Events go on a bounded queue (dropped past it, logged), ended when the call is.
 *
 * Does not own: the INVITE that made the dialog (`OutboundCall`, `InboundCall`), which call a
 * request belongs to (`SipCalls`), nor RTP: `remote` says where the media goes.
 *
 * @since 0.1.0
 */
import { Data, Deferred, Effect, Queue, Result } from "effect"
import type { Cause } from "effect"
import * as Authenticated from "./Authenticated.ts"
import * as Dialog from "./Dialog.ts"
import * as InDialog from "./InDialog.ts"
import * as Sdp from "./Sdp.ts"
import * as SessionTimer from "./SessionTimer.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"
import * as Transfer from "./Transfer.ts"
import type { Peer } from "./ViaRouting.ts"

type OutgoingRequest = Extract<SipMessage.Outgoing, { _tag: "Request" }>

/**
 * @category models
 */
export type CallEvent =
  /** The peer sent a new offer (hold: `held`; unhold: not), answered with ours. */
  | { readonly _tag: "Reinvited"; readonly negotiated: Sdp.Negotiated; readonly held: boolean }
  /** The session was refreshed (RFC 4028), by us or by the peer. */
  | { readonly _tag: "Refreshed"; readonly by: "local" | "remote" }
  | { readonly _tag: "Ended"; readonly ended: Ended }

/**
 * @category models
 */
export interface Ended {
  readonly by: "local" | "remote"
  /** `hangup`, `bye`, `session expired`, `refresh failed`, ... */
  readonly reason: string
}

/**
 * A request in the call got no 2xx (`status` and `reason` the trunk's when it answered).
 *
 * @category errors
 */
export class CallRequestError extends Data.TaggedError("CallRequestError")<{
  readonly method: string
  readonly status: number | undefined
  readonly reason: string
}> {
  override get message(): string {
    return `${this.method}: ${this.status === undefined ? "" : `${this.status} `}${this.reason}`
  }
}

/**
 * @category models
 */
export interface Call {
  readonly callId: string
  readonly direction: "outbound" | "inbound"
  /** The peer's SDP (the answer to our offer, or its offer), and what was chosen from it. */
  readonly remoteSdp: string
  readonly remote: () => Sdp.Negotiated
  /** Bounded; ends after `Ended`. */
  readonly events: Queue.Dequeue<CallEvent, Cause.Done>
  /** BYE (once; nothing when the call has ended). */
  readonly hangup: Effect.Effect<void>
  /** A re-INVITE putting the call on hold (our SDP sendonly) or taking it off. */
  readonly hold: (held: boolean) => Effect.Effect<Sdp.Negotiated, CallRequestError>
  /** REFER to `target` (a SIP URI), its NOTIFYs followed to the target's final status. */
  readonly refer: (
    target: string,
    options?: { readonly timeoutMs?: number }
  ) => Effect.Effect<{ readonly status: number; readonly reason: string }, Transfer.TransferFailed>
  /** Completes when the call ends, either way. */
  readonly ended: Effect.Effect<Ended>
}

/**
 * What a call needs from the user agent.
 *
 * @category models
 */
export interface Context {
  readonly endpoint: SipEndpoint.SipEndpoint
  readonly transport: Peer["transport"]
  /** Our Contact header value. */
  readonly contact: string
  readonly credentials: Authenticated.Credentials | undefined
  readonly eventCapacity: number
  /** Runs for the user agent's lifetime (the call's timer). */
  readonly fork: (effect: Effect.Effect<void>) => Effect.Effect<void>
  /** The call has ended: no more requests are its. */
  readonly forget: (callId: string) => void
}

/**
 * @category models
 */
export interface Established {
  readonly dialog: Dialog.Dialog
  readonly direction: "outbound" | "inbound"
  readonly local: Sdp.Local
  readonly remoteSdp: string
  readonly remote: Sdp.Negotiated
  /** The session timer agreed in the INVITE's 2xx, if any. */
  readonly timer: { readonly interval: number; readonly weRefresh: boolean } | undefined
  /** The peer's Allow lists UPDATE. */
  readonly peerAllowsUpdate: boolean
}

/**
 * The call, and what `SipCalls` feeds it.
 *
 * @category models
 */
export interface Handle {
  readonly call: Call
  /** A request of this dialog (ACK included). */
  readonly receive: (incoming: SipEndpoint.Incoming) => Effect.Effect<void>
  /** Completes at the ACK of our 2xx to the INVITE (inbound). */
  readonly acked: Effect.Effect<void>
  /** Ends the call without a BYE (the INVITE transaction failed). */
  readonly end: (ended: Ended) => Effect.Effect<void>
}

const SDP: SipMessage.Header = { name: "Content-Type", value: "application/sdp" }
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * The call of an established dialog.
 *
 * @category constructors
 */
export const make = (context: Context, established: Established): Effect.Effect<Handle> =>
  Effect.gen(function*() {
    const { endpoint } = context
    let dialog = established.dialog
    let local = established.local
    let remote = established.remote
    let timer = established.timer
    let ended: Ended | undefined
    const events = yield* Queue.dropping<CallEvent, Cause.Done>(context.eventCapacity)
    const done = yield* Deferred.make<Ended>()
    const acked = yield* Deferred.make<void>()
    const wake = yield* Queue.sliding<void>(1)
    let notifies: Queue.Queue<Transfer.Notify> | undefined
    /** Our re-INVITE awaits its answer: a peer's offer now is glare (491). */
    let offering = false
    const label = `SIP call ${dialog.callId}`

    const emit = (event: CallEvent) =>
      Queue.offer(events, event).pipe(
        Effect.flatMap((offered) => offered ? Effect.void : Effect.logWarning(`${label}: an event was dropped`))
      )

    const end = (why: Ended) =>
      Effect.gen(function*() {
        if (ended !== undefined) return
        ended = why
        context.forget(dialog.callId)
        yield* emit({ _tag: "Ended", ended: why })
        Queue.endUnsafe(events)
        Queue.offerUnsafe(wake, undefined)
        yield* Deferred.succeed(done, why)
      })

    /** Sends `method` in the dialog (answering challenges); the final response. */
    const send = (
      method: string,
      options: { readonly headers?: ReadonlyArray<SipMessage.Header>; readonly body?: Uint8Array } = {},
      onRetransmission?: (response: SipMessage.SipResponse, request: OutgoingRequest) => Effect.Effect<void>
    ) =>
      Effect.gen(function*() {
        const target = InDialog.targetOf(dialog, context.transport)
        if (target === undefined) {
          return yield* new CallRequestError({ method, status: undefined, reason: "no usable remote target" })
        }
        let last: OutgoingRequest | undefined
        const sent = yield* Authenticated.request(
          endpoint,
          (authorization) => {
            const built = Dialog.request(dialog, method, {
              via: "",
              contact: context.contact,
              headers: [...(options.headers ?? []), ...authorization],
              ...(options.body === undefined ? {} : { body: options.body })
            })
            dialog = built.dialog
            return InDialog.withoutVia(built.request)
          },
          target,
          {
            credentials: context.credentials,
            onSent: (request) => Effect.sync(() => void (last = request)),
            ...(onRetransmission === undefined ? {} : {
              onRetransmission: (response: SipMessage.SipResponse) =>
                last === undefined ? Effect.void : onRetransmission(response, last)
            })
          }
        ).pipe(
          Effect.mapError((error) => new CallRequestError({ method, status: undefined, reason: error.detail }))
        )
        if (sent.response.status >= 300) {
          yield* Effect.logWarning(
            `${label}: ${method} refused by the trunk: ${sent.response.status} ${sent.response.reason}`
          )
        }
        return { ...sent, target }
      })

    /** A re-INVITE with our current SDP (and `headers`); ACKs its 2xx. */
    const reinvite = (headers: ReadonlyArray<SipMessage.Header>) =>
      Effect.gen(function*() {
        const ack = (response: SipMessage.SipResponse, request: OutgoingRequest, target: Peer) => {
          const seq = SipHeaders.parseCSeq(SipMessage.header(request, "CSeq") ?? "")
          const built = Dialog.request(dialog, "ACK", {
            via: "",
            seq: Result.isSuccess(seq) ? seq.success.seq : response.cseq.seq
          })
          return endpoint.send(InDialog.withoutVia(built.request), target).pipe(Effect.ignore)
        }
        let resend: ((response: SipMessage.SipResponse, request: OutgoingRequest) => Effect.Effect<void>) | undefined
        const attempt = send(
          "INVITE",
          { headers: [SDP, ...headers], body: encoder.encode(Sdp.offer(local)) },
          (response, request) => resend === undefined ? Effect.void : resend(response, request)
        )
        offering = true
        const sent = yield* Effect.gen(function*() {
          let sent = yield* attempt
          // Glare (RFC 3261 §14.1): the peer's offer crossed ours. Again after 2.1-4 s when the
          // Call-ID is ours, 0-2 s otherwise; twice at most.
          for (let tries = 0; sent.response.status === 491 && tries < 2; tries++) {
            const ours = established.direction === "outbound"
            yield* Effect.sleep(Math.round(ours ? 2100 + Math.random() * 1900 : Math.random() * 2000))
            sent = yield* attempt
          }
          return sent
        }).pipe(Effect.ensuring(Effect.sync(() => void (offering = false))))
        if (sent.response.status >= 300) {
          return yield* new CallRequestError({
            method: "INVITE",
            status: sent.response.status,
            reason: sent.response.reason
          })
        }
        resend = (response, request) => ack(response, request, sent.target)
        yield* ack(sent.response, sent.request, sent.target)
        return sent.response
      })

    const bye = (reason: string) =>
      Effect.gen(function*() {
        if (ended !== undefined) return
        yield* end({ by: "local", reason })
        yield* send("BYE").pipe(
          Effect.catch((error) => Effect.logWarning(`${label}: BYE failed: ${error.message}`)),
          Effect.asVoid
        )
      })
    const hangup = bye("hangup")

    const takeTimer = (response: SipMessage.SipResponse) => {
      const asked = SessionTimer.read(response)
      timer = asked === undefined ? undefined : { interval: asked.interval, weRefresh: asked.refresher !== "uas" }
      Queue.offerUnsafe(wake, undefined)
    }

    const refresh = Effect.gen(function*() {
      const interval = timer?.interval ?? SessionTimer.MIN_SE
      const headers = SessionTimer.refreshHeaders(interval)
      const response = established.peerAllowsUpdate
        ? yield* Effect.flatMap(send("UPDATE", { headers }), (sent) =>
          sent.response.status < 300
            ? Effect.succeed(sent.response)
            : Effect.fail(
              new CallRequestError({ method: "UPDATE", status: sent.response.status, reason: sent.response.reason })
            ))
        : yield* reinvite(headers)
      takeTimer(response)
      yield* emit({ _tag: "Refreshed", by: "local" })
    })

    // The session timer: refresh, or BYE when the peer stopped refreshing.
    yield* context.fork(Effect.gen(function*() {
      while (ended === undefined) {
        const current = timer
        if (current === undefined) {
          yield* Queue.take(wake)
          continue
        }
        const due = yield* Effect.raceFirst(
          Effect.as(Effect.sleep(SessionTimer.delayMs(current.interval, current.weRefresh)), true),
          Effect.as(Queue.take(wake), false)
        )
        if (!due || ended !== undefined) continue
        if (current.weRefresh) {
          yield* refresh.pipe(Effect.catch((error) =>
            Effect.andThen(
              Effect.logWarning(`${label}: the session refresh failed (${error.message}); hanging up`),
              bye("refresh failed")
            )
          ))
        } else {
          yield* Effect.logWarning(`${label}: the peer did not refresh the session in time; hanging up`)
          yield* bye("session expired")
        }
      }
    }))

    /** Our answer's session-timer headers for a request from the peer, and the timer taken. */
    const answerTimer = (request: SipMessage.SipRequest): Array<SipMessage.Header> => {
      const asked = SessionTimer.read(request)
      if (asked === undefined) return []
      const refresher = SessionTimer.chooseRefresher(asked, SessionTimer.supported(request))
      timer = { interval: asked.interval, weRefresh: refresher === "uas" }
      Queue.offerUnsafe(wake, undefined)
      return SessionTimer.answerHeaders(asked.interval, refresher)
    }

    /** The peer's offer in a re-INVITE or UPDATE: our answer, or why not. */
    const takeOffer = (incoming: SipEndpoint.Incoming, timerHeaders: ReadonlyArray<SipMessage.Header>) =>
      Effect.gen(function*() {
        if (offering) return yield* incoming.respond(SipEndpoint.answer(incoming, 491))
        const parsed = Sdp.parse(decoder.decode(incoming.request.body))
        if (Result.isFailure(parsed)) {
          return yield* incoming.respond(SipEndpoint.answer(incoming, 400, { reason: `Bad SDP: ${parsed.failure}` }))
        }
        const next = { ...local, version: local.version + 1 }
        const answered = Sdp.answer(parsed.success, next)
        if (Result.isFailure(answered)) {
          yield* Effect.logWarning(`${label}: a re-offer refused 488: ${answered.failure}`)
          return yield* incoming.respond(SipEndpoint.answer(incoming, 488, { reason: answered.failure }))
        }
        local = next
        remote = answered.success.negotiated
        yield* incoming.respond(SipEndpoint.answer(incoming, 200, {
          headers: [{ name: "Contact", value: context.contact }, ...timerHeaders, SDP],
          body: encoder.encode(answered.success.sdp)
        }))
        yield* emit({ _tag: "Reinvited", negotiated: remote, held: remote.held })
      })

    const receive = (incoming: SipEndpoint.Incoming): Effect.Effect<void> =>
      Effect.gen(function*() {
        const { request } = incoming
        if (request.method === "ACK") return yield* Deferred.succeed(acked, undefined)
        const checked = Dialog.receive(dialog, request)
        if (Result.isFailure(checked)) {
          return yield* incoming.respond(SipEndpoint.answer(incoming, 500, { reason: checked.failure }))
        }
        dialog = checked.success
        switch (request.method) {
          case "BYE": {
            yield* incoming.respond(SipEndpoint.answer(incoming, 200))
            return yield* end({ by: "remote", reason: "bye" })
          }
          case "INVITE": {
            const timerHeaders = answerTimer(request)
            if (request.body.length === 0) {
              // An offerless re-INVITE: our offer in the 200 (its answer comes in the ACK, not read).
              local = { ...local, version: local.version + 1 }
              return yield* incoming.respond(SipEndpoint.answer(incoming, 200, {
                headers: [{ name: "Contact", value: context.contact }, ...timerHeaders, SDP],
                body: encoder.encode(Sdp.offer(local))
              }))
            }
            yield* takeOffer(incoming, timerHeaders)
            if (timerHeaders.length > 0) yield* emit({ _tag: "Refreshed", by: "remote" })
            return
          }
          case "UPDATE": {
            const timerHeaders = answerTimer(request)
            if (request.body.length > 0) yield* takeOffer(incoming, timerHeaders)
            else {
              yield* incoming.respond(SipEndpoint.answer(incoming, 200, {
                headers: [{ name: "Contact", value: context.contact }, ...timerHeaders]
              }))
            }
            if (timerHeaders.length > 0) yield* emit({ _tag: "Refreshed", by: "remote" })
            return
          }
          case "OPTIONS":
            return yield* incoming.respond(SipEndpoint.answer(incoming, 200, { headers: InDialog.capabilities }))
          case "NOTIFY": {
            const notify = Transfer.readNotify(request)
            if (notify === undefined || notifies === undefined) {
              return yield* incoming.respond(
                SipEndpoint.answer(incoming, 481, { reason: "Subscription Does Not Exist" })
              )
            }
            yield* incoming.respond(SipEndpoint.answer(incoming, 200))
            if (notify.status !== undefined || notify.terminated) yield* Queue.offer(notifies, notify)
            return
          }
          default:
            return yield* incoming.respond(
              SipEndpoint.answer(incoming, 501, { headers: [{ name: "Allow", value: InDialog.ALLOW }] })
            )
        }
      })

    const hold = (held: boolean) =>
      Effect.gen(function*() {
        local = { ...local, version: local.version + 1, direction: held ? "sendonly" : "sendrecv" }
        const response = yield* reinvite(
          timer === undefined ? [] : SessionTimer.refreshHeaders(timer.interval)
        )
        if (SessionTimer.read(response) !== undefined) takeTimer(response)
        const parsed = Sdp.parse(decoder.decode(response.body))
        const negotiated = Result.isSuccess(parsed) ? Sdp.negotiate(parsed.success) : Result.fail("no SDP")
        if (Result.isFailure(negotiated)) {
          return yield* new CallRequestError({ method: "INVITE", status: response.status, reason: negotiated.failure })
        }
        remote = negotiated.success
        return remote
      })

    const refer = (target: string, options: { readonly timeoutMs?: number } = {}) =>
      Effect.gen(function*() {
        if (ended !== undefined) {
          return yield* new Transfer.TransferFailed({ status: undefined, reason: "the call has ended" })
        }
        const queue = yield* Queue.unbounded<Transfer.Notify>()
        notifies = queue
        const sendRefer = send("REFER", {
          headers: [{ name: "Refer-To", value: `<${target}>` }, { name: "Referred-By", value: dialog.localUri }]
        }).pipe(
          Effect.map((sent) => sent.response),
          Effect.mapError((error) => new Transfer.TransferFailed({ status: undefined, reason: error.reason }))
        )
        return yield* Transfer.follow(sendRefer, queue, `${label}: the transfer to ${target}`, options.timeoutMs)
      }).pipe(Effect.ensuring(Effect.sync(() => void (notifies = undefined))))

    const call: Call = {
      callId: dialog.callId,
      direction: established.direction,
      remoteSdp: established.remoteSdp,
      remote: () => remote,
      events,
      hangup,
      hold,
      refer,
      ended: Deferred.await(done)
    }
    return { call, receive, acked: Deferred.await(acked), end }
  })
