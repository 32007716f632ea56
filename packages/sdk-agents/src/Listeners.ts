/**
 * The reference SDK's discovery sockets, and the `CallControllers` the engine offers calls
 * through: `v1/serve-campaign/{campaign_id}` (agents that serve a campaign's calls) and
 * `v2/listen-inbound?phone_number=` (agents that answer a number's calls). Payloads are tagged
 * by `message_type`, and only what the SDK accepts there is ever sent (`listen-started`,
 * `initiate-and-assign-call`; `listen-started`, `incoming-call`, `assign-call`): anything else
 * would kill a real listener.
 *
 * - A campaign call is offered to one connected agent of the campaign, in turn (round robin):
 *   `initiate-and-assign-call` with the contact's phone number and `data`. `controller-ready`
 *   takes it (its call socket is expected); `init-controller-failed`, or nothing within
 *   `answerMs`, declines it. No agent connected: `none`.
 * - An inbound call is announced to every agent listening on the number (`incoming-call`); the
 *   first `claim-call` is assigned it (`assign-call` with the call's numbers), and its
 *   `answer-call` takes it, `decline-call` (or nothing within `answerMs`) declines it. Nobody
 *   claims within `claimMs`: `none` (the number's own agent answers).
 * - Replies count only from the listeners an offer went to: a listener of another campaign,
 *   number or organization that names the call's id is ignored.
 *
 * @since 0.1.0
 */
import type * as Envelope from "@voice-agent/agent-protocol/Envelope"
import type { CallOffer, OfferAnswer } from "@voice-agent/core/ports/CallControllers"
import { CallControllers } from "@voice-agent/core/ports/CallControllers"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { Context, Deferred, Duration, Effect, Fiber, Layer, Option, Queue } from "effect"
import { CallSessions } from "./CallSessions.ts"
import * as Channel from "./Channel.ts"

/**
 * What a listener serves.
 *
 * @category models
 */
export type Target =
  | { readonly _tag: "Campaign"; readonly campaignId: string }
  | { readonly _tag: "Inbound"; readonly phoneNumber: string }

/**
 * @category models
 */
export interface Settings {
  /** How long an agent has to get ready for a call it was assigned (default 10 s). */
  readonly answerMs: number
  /** How long listeners have to claim an inbound call (default 5 s). */
  readonly claimMs: number
}

/**
 * @category constructors
 */
export const defaultSettings: Settings = { answerMs: 10_000, claimMs: 5_000 }

interface Listener {
  readonly organizationId: string
  readonly target: Target
  readonly channel: Channel.Channel
}

type Reply = "ready" | "failed" | "claim" | "answer" | "decline"

/**
 * @category services
 */
export class Listeners extends Context.Service<Listeners, {
  /** Serves a discovery socket (its key checked, its target the organization's) until it closes. */
  readonly listen: (
    organizationId: string,
    target: Target,
    socket: MediaSocket,
    open: Envelope.Open
  ) => Effect.Effect<void>
}>()("@voice-agent/sdk-agents/Listeners") {}

const sameTarget = (a: Target, b: Target) =>
  a._tag === "Campaign"
    ? b._tag === "Campaign" && a.campaignId === b.campaignId
    : b._tag === "Inbound" && a.phoneNumber === b.phoneNumber

const replyOf = (payload: Envelope.Payload): { readonly reply: Reply; readonly callId: string } | undefined => {
  const callId = payload["call_id"]
  if (typeof callId !== "string") return undefined
  switch (payload["message_type"]) {
    case "controller-ready":
      return { reply: "ready", callId }
    case "init-controller-failed":
      return { reply: "failed", callId }
    case "claim-call":
      return { reply: "claim", callId }
    case "answer-call":
      return { reply: "answer", callId }
    case "decline-call":
      return { reply: "decline", callId }
    default:
      return undefined
  }
}

/**
 * @category constructors
 */
export const make = (settings: Settings) =>
  Effect.gen(function*() {
    const sessions = yield* CallSessions
    const scope = yield* Effect.scope
    const listeners = new Set<Listener>()
    /** Replies awaited, by call id: each listener's replies go to the offer that waits for them. */
    const waiting = new Map<string, (listener: Listener, reply: Reply) => Effect.Effect<void>>()
    let turn = 0

    const connectedFor = (organizationId: string, target: Target) =>
      Effect.filter(
        [...listeners].filter((listener) =>
          listener.organizationId === organizationId && sameTarget(listener.target, target)
        ),
        (listener) => listener.channel.connected
      )

    const offerCampaign = (offer: Extract<CallOffer, { _tag: "Campaign" }>) =>
      Effect.gen(function*() {
        const candidates = yield* connectedFor(offer.organizationId, { _tag: "Campaign", campaignId: offer.campaignId })
        if (candidates.length === 0) return "none" as const
        const chosen = candidates[turn++ % candidates.length]!
        const answer = yield* Deferred.make<Reply>()
        waiting.set(offer.callId, (listener, reply) =>
          listener === chosen && (reply === "ready" || reply === "failed")
            ? Effect.asVoid(Deferred.succeed(answer, reply))
            : Effect.void)
        yield* chosen.channel.send({
          message_type: "initiate-and-assign-call",
          call_id: offer.callId,
          contact_data: { phone_number: offer.phoneNumber, data: { ...offer.data } }
        })
        const reply = yield* Deferred.await(answer).pipe(Effect.timeoutOption(Duration.millis(settings.answerMs)))
        if (Option.isSome(reply) && reply.value === "ready") {
          yield* sessions.expect(offer.callId, offer.organizationId)
          return "taken" as const
        }
        return "declined" as const
      }).pipe(Effect.ensuring(Effect.sync(() => waiting.delete(offer.callId))))

    const offerInbound = (offer: Extract<CallOffer, { _tag: "Inbound" }>) =>
      Effect.gen(function*() {
        const candidates = yield* connectedFor(offer.organizationId, { _tag: "Inbound", phoneNumber: offer.to })
        if (candidates.length === 0) return "none" as const
        const claimed = yield* Deferred.make<Listener>()
        const answer = yield* Deferred.make<Reply>()
        let owner: Listener | undefined
        waiting.set(offer.callId, (listener, reply) =>
          Effect.gen(function*() {
            // Only the listeners the call was announced to (the organization's, on this number)
            // may claim it: another's listener naming the call id gets nothing, not even the
            // caller's number.
            if (!candidates.includes(listener)) return
            if (reply === "claim") {
              // The first claim wins; the call is assigned to it alone.
              if (owner === undefined) {
                owner = listener
                yield* Deferred.succeed(claimed, listener)
                yield* listener.channel.send({
                  message_type: "assign-call",
                  call_id: offer.callId,
                  call_info: { call_type: "pstn", from_number: offer.from, to_number: offer.to }
                })
              }
              return
            }
            if ((reply === "answer" || reply === "decline") && owner === listener) {
              yield* Deferred.succeed(answer, reply)
            }
          }))
        // Fair: each listener hears of the call in a different order each time.
        const start = turn++ % candidates.length
        const ordered = [...candidates.slice(start), ...candidates.slice(0, start)]
        for (const listener of ordered) {
          yield* listener.channel.send({ message_type: "incoming-call", call_id: offer.callId })
        }
        const winner = yield* Deferred.await(claimed).pipe(Effect.timeoutOption(Duration.millis(settings.claimMs)))
        if (Option.isNone(winner)) return "none" as const
        const reply = yield* Deferred.await(answer).pipe(Effect.timeoutOption(Duration.millis(settings.answerMs)))
        if (Option.isSome(reply) && reply.value === "answer") {
          yield* sessions.expect(offer.callId, offer.organizationId)
          return "taken" as const
        }
        return "declined" as const
      }).pipe(Effect.ensuring(Effect.sync(() => waiting.delete(offer.callId))))

    const byConnection = new Map<string, Listener>()
    const pumps = new Map<Listener, Fiber.Fiber<never>>()

    /** A listener's replies, to the offer waiting for them. */
    const pump = (listener: Listener, connectionId: string) =>
      Effect.forever(Effect.gen(function*() {
        const payload = yield* Queue.take(listener.channel.received)
        const reply = replyOf(payload)
        if (reply === undefined) {
          return yield* Effect.logWarning(`Listener ${connectionId}: ignored ${JSON.stringify(payload)}`)
        }
        const handler = waiting.get(reply.callId)
        if (handler !== undefined) yield* handler(listener, reply.reply)
      }))

    const listen = (
      organizationId: string,
      target: Target,
      socket: MediaSocket,
      open: Envelope.Open
    ) =>
      Effect.gen(function*() {
        const key = `${organizationId}/${open.connection_id}`
        const known = byConnection.get(key)
        const resumed = known !== undefined && open.is_reopen && sameTarget(known.target, target)
        const listener: Listener = resumed ? known : {
          organizationId,
          target,
          channel: yield* Channel.make(`Listener ${open.connection_id}`)
        }
        if (!resumed) {
          byConnection.set(key, listener)
          listeners.add(listener)
          pumps.set(listener, yield* Effect.forkIn(pump(listener, open.connection_id), scope))
          const others = (yield* connectedFor(organizationId, target)).length
          yield* listener.channel.send({ message_type: "listen-started", other_listeners: others })
        }
        const forget = Effect.gen(function*() {
          listeners.delete(listener)
          byConnection.delete(key)
          const running = pumps.get(listener)
          pumps.delete(listener)
          if (running !== undefined) yield* Fiber.interrupt(running)
        })
        const ended = yield* listener.channel.attach(socket, open)
        if (ended === "closed") return yield* forget
        // A reopen within the grace resumes it; after that the listener is forgotten.
        yield* Effect.forkIn(
          Effect.sleep(Duration.seconds(30)).pipe(
            Effect.andThen(Effect.flatMap(listener.channel.connected, (back) => back ? Effect.void : forget))
          ),
          scope
        )
      })

    const controllers = CallControllers.of({
      offer: (offer): Effect.Effect<OfferAnswer> =>
        offer._tag === "Campaign" ? offerCampaign(offer) : offerInbound(offer)
    })
    return { discovery: Listeners.of({ listen }), controllers }
  })

/**
 * The discovery sockets and the engine's `CallControllers`, one state.
 *
 * @category layers
 */
export const layer = (
  settings: Settings = defaultSettings
): Layer.Layer<Listeners | CallControllers, never, CallSessions> =>
  Layer.effectContext(
    Effect.map(make(settings), ({ controllers, discovery }) =>
      Context.make(Listeners, discovery).pipe(Context.add(CallControllers, controllers)))
  )
