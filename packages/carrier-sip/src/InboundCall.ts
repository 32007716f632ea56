/**
 * A call from the trunk (RFC 3261 §13.3, CONTRACT §8): an INVITE whose Request-URI (else To)
 * names an owned number is offered to `decide`; others get 404. The offer is checked first (400
 * for SDP that does not parse, 488 when no codec fits, 422 for a session timer under our
 * Min-SE, 420 for an extension required that we lack, such as 100rel), 180 is sent, then the
 * decision: our SDP answer in a 200 (the call, once the ACK came; BYE when none came in
 * 64·T1), or a refusal status. A CANCEL before the answer ends it (the transaction layer has
 * answered 487). Every refusal is logged with its status and reason.
 *
 * @since 0.1.0
 */
import { Effect, Result } from "effect"
import * as Call from "./Call.ts"
import * as Dialog from "./Dialog.ts"
import * as InDialog from "./InDialog.ts"
import * as Sdp from "./Sdp.ts"
import * as SessionTimer from "./SessionTimer.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipMessage from "./SipMessage.ts"
import * as SipUri from "./SipUri.ts"

/**
 * What `decide` is told.
 *
 * @category models
 */
export interface Invite {
  /** The owned number called (E.164). */
  readonly to: string
  /** The caller: E.164 when the From user part is one, else the user part as written. */
  readonly from: string | undefined
  readonly offer: Sdp.SessionDescription
  readonly negotiated: Sdp.Negotiated
  readonly incoming: SipEndpoint.Incoming
}

/**
 * Answer with our side of the media (the SDP is `Sdp.answer(offer, local)`), or refuse.
 *
 * @category models
 */
export type Decision =
  | { readonly _tag: "Answer"; readonly local: Sdp.Local }
  | { readonly _tag: "Reject"; readonly status: number; readonly reason?: string }

/**
 * @category models
 */
export interface Context extends Call.Context {
  readonly owns: (e164: string) => boolean
  readonly decide: (invite: Invite) => Effect.Effect<Decision>
  readonly register: (callId: string, localTag: string, handle: Call.Handle) => void
  /** An answered, ACKed call. */
  readonly deliver: (call: Call.Call) => Effect.Effect<void>
  /** How long to wait for the ACK of our 200 (RFC 3261 Timer H: 64·T1). */
  readonly ackTimeoutMs: number
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/**
 * Handles a new INVITE (no To tag).
 *
 * @category handlers
 */
export const handle = (context: Context, incoming: SipEndpoint.Incoming): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { request } = incoming
    const called = SipUri.e164(request.uri) ?? (request.to.sip === undefined ? undefined : SipUri.e164(request.to.sip))
    const from = request.from.sip === undefined
      ? undefined
      : SipUri.e164(request.from.sip) ?? SipUri.decodedUser(request.from.sip)
    const label = `SIP call ${request.callId} from ${from ?? "?"} to ${called ?? SipUri.format(request.uri)}`
    const refuse = (status: number, reason?: string) =>
      Effect.andThen(
        Effect.logWarning(`${label}: refused ${status} ${reason ?? SipMessage.REASONS[status] ?? ""}`),
        incoming.respond(SipEndpoint.answer(incoming, status, reason === undefined ? {} : { reason }))
      )
    if (called === undefined || !context.owns(called)) return yield* refuse(404, "Not Found")
    // RFC 3261 §8.2.2.3: an extension we do not support (100rel, say) required is a 420.
    const unsupported = SipMessage.headerValues(request, "Require").map((option) => option.trim().toLowerCase())
      .filter((option) => option !== "timer" && option !== "")
    if (unsupported.length > 0) {
      yield* Effect.logWarning(`${label}: refused 420, it requires ${unsupported.join(", ")}`)
      return yield* incoming.respond(SipEndpoint.answer(incoming, 420, {
        headers: [{ name: "Unsupported", value: unsupported.join(", ") }]
      }))
    }
    const asked = SessionTimer.read(request)
    if (asked !== undefined && asked.interval < SessionTimer.MIN_SE) {
      yield* Effect.logWarning(`${label}: refused 422, Session-Expires ${asked.interval} is under our Min-SE`)
      return yield* incoming.respond(SipEndpoint.answer(incoming, 422, {
        headers: [{ name: "Min-SE", value: `${SessionTimer.MIN_SE}` }]
      }))
    }
    if (request.body.length === 0) return yield* refuse(488, "An offer is needed in the INVITE")
    const offer = Sdp.parse(decoder.decode(request.body))
    if (Result.isFailure(offer)) return yield* refuse(400, `Bad SDP: ${offer.failure}`)
    const negotiated = Sdp.negotiate(offer.success)
    if (Result.isFailure(negotiated)) return yield* refuse(488, negotiated.failure)

    yield* incoming.respond(SipEndpoint.answer(incoming, 180))
    const decision = yield* Effect.raceFirst(
      context.decide({ to: called, from, offer: offer.success, negotiated: negotiated.success, incoming }),
      Effect.as(incoming.cancelled, undefined)
    )
    if (decision === undefined) {
      return yield* Effect.logInfo(`${label}: cancelled by the caller before the answer`)
    }
    if (decision._tag === "Reject") return yield* refuse(decision.status, decision.reason)

    const answered = Sdp.answer(offer.success, decision.local)
    if (Result.isFailure(answered)) return yield* refuse(488, answered.failure)
    const dialog = Dialog.fromRequest(request, incoming.tag)
    if (Result.isFailure(dialog)) return yield* refuse(400, dialog.failure)
    const refresher = asked === undefined
      ? undefined
      : SessionTimer.chooseRefresher(asked, SessionTimer.supported(request))
    const timerHeaders = asked === undefined || refresher === undefined
      ? []
      : SessionTimer.answerHeaders(asked.interval, refresher)
    const handle = yield* Call.make(context, {
      dialog: dialog.success,
      direction: "inbound",
      local: decision.local,
      remoteSdp: decoder.decode(request.body),
      remote: answered.success.negotiated,
      timer: asked === undefined ? undefined : { interval: asked.interval, weRefresh: refresher === "uas" },
      peerAllowsUpdate: request.headers.some((h) => h.name === "Allow" && h.value.trim().toUpperCase() === "UPDATE")
    })
    context.register(request.callId, incoming.tag, handle)
    yield* incoming.respond(SipEndpoint.answer(incoming, 200, {
      headers: [
        { name: "Contact", value: context.contact },
        ...InDialog.capabilities,
        ...timerHeaders,
        { name: "Content-Type", value: "application/sdp" }
      ],
      body: encoder.encode(answered.success.sdp)
    }))
    const acked = yield* Effect.raceAll([
      Effect.as(handle.acked, "acked" as const),
      Effect.as(handle.call.ended, "ended" as const),
      // A CANCEL that overtook our 200: the INVITE was answered 487, there is no call.
      Effect.as(incoming.cancelled, "cancelled" as const),
      Effect.as(Effect.sleep(context.ackTimeoutMs), "late" as const)
    ])
    if (acked === "ended") return yield* Effect.logInfo(`${label}: ended before its ACK came`)
    if (acked === "cancelled") {
      yield* Effect.logInfo(`${label}: cancelled by the caller as it was answered`)
      return yield* handle.end({ by: "remote", reason: "cancelled" })
    }
    if (acked === "late") {
      yield* Effect.logWarning(`${label}: no ACK to our 200; hanging up`)
      return yield* handle.call.hangup
    }
    yield* context.deliver(handle.call)
  })
