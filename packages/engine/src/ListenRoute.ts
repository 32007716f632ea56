/**
 * Live listen (docs/LISTEN.md), the route a program serving the HTTP API mounts:
 * `GET /v1/conversations/{call_id}/listen?channel=agent|remote|mixed[&ticket=...]`, a WebSocket
 * upgrade authenticated by the bearer API key in the `Authorization` header, or by a listen
 * ticket in the query (browsers cannot set the header; `POST .../listen-tickets` issues one).
 * When a `ticket` is given it is the credential, header or not.
 *
 * Every call of the organization that has not ended is accepted, ringing included: the listener
 * subscribes to the call at once (LiveCalls), so the audio of a media session that starts
 * later in this process reaches it from its first segment. Each aligned timeline segment is
 * sent as Media Streams-shaped text frames
 * `{"event":"media","media":{"timestamp":"<ms since answer>","payload":"<base64 μ-law>"}}` (20 ms
 * frames), then `{"event":"stop"}` when the call ends, and the socket closes. A call never
 * answered sends only `stop`, when the call ends as CallEnd learns it (from any daemon).
 *
 * With several daemons on the database (ListenRelay in the context), the call's media may be
 * served by another: the route looks where (at once, then every `locateMs` until the media
 * starts somewhere or the call ends) and, when it is elsewhere, passes on what that daemon
 * relays, `stop` included. If that daemon cannot be reached or goes away before `stop`, the
 * socket is closed with code 1011: the listener is never left waiting on a daemon that died.
 *
 * Before the upgrade, in the API's check order (docs/LISTEN.md): 401 (missing, unknown or revoked key; a ticket that
 * is not good for this call now), 422 in FastAPI's shape (a missing or unknown `channel`; the
 * API's own validation code, `queryDetail`), 404 (no such call, another organization's, or ended), 426 (not a
 * WebSocket upgrade). A ticket is used up only at the upgrade, after those checks: two upgrades
 * with one ticket, on any daemons, get one socket and one 401.
 *
 * A listener slower than the call loses the oldest audio (LiveCalls' sliding PubSub).
 *
 * @since 0.1.0
 */
import { RecordingChannel } from "@voice-agent/core/Conversation"
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { ListenTicketRepository } from "@voice-agent/core/ports/ListenTicketRepository"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { nowDate } from "@voice-agent/core/Time"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import * as MuLaw from "@voice-agent/media/MuLaw"
import { Effect, Option, Result, Schema, Stream } from "effect"
import type { SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Socket from "effect/socket/Socket"
import * as CallEnd from "./CallEnd.ts"
import { ListenRelay } from "./ListenRelay.ts"
import { LiveCalls } from "./LiveCalls.ts"
import * as SocketMedia from "./SocketMedia.ts"

/**
 * The route's path.
 *
 * @category constructors
 */
export const path = "/v1/conversations/:call_id/listen"

/**
 * The channels one may listen to.
 *
 * @category models
 */
export const channels = RecordingChannel.literals

type ListenChannel = typeof RecordingChannel.Type

/** The query: a required channel, and the ticket (checked before, as the credential). */
const Query = Schema.Struct({ channel: RecordingChannel, ticket: Schema.optional(Schema.String) })
const decodeQuery = Schema.decodeUnknownResult(Query)

const FRAME_SAMPLES = 20 * CallTimeline.SAMPLES_PER_MS

const failure = (status: number, detail: unknown) => HttpServerResponse.jsonUnsafe({ detail }, { status })

const upgradeExpected = failure(426, "A WebSocket upgrade is expected")

const unauthorized = (ticket: boolean) =>
  failure(401, ticket ? "Invalid, used or expired listen ticket" : "Invalid or missing API key")

/**
 * A segment's channel as Media Streams frames of 20 ms (the last one shorter).
 *
 * @category constructors
 */
export const frames = (segment: CallTimeline.Segment, channel: ListenChannel): Array<string> => {
  const pcm = segment[channel]
  const out: Array<string> = []
  for (let offset = 0; offset < pcm.length; offset += FRAME_SAMPLES) {
    const part = pcm.subarray(offset, Math.min(pcm.length, offset + FRAME_SAMPLES))
    const timestamp = String(Math.floor((segment.start + offset) / CallTimeline.SAMPLES_PER_MS))
    out.push(JSON.stringify({
      event: "media",
      media: { timestamp, payload: Buffer.from(MuLaw.encode(part)).toString("base64") }
    }))
  }
  return out
}

/**
 * The frame that ends a listener's stream.
 *
 * @category constructors
 */
export const stopFrame = JSON.stringify({ event: "stop" })

/**
 * Sends each segment's channel as frames, until the segments end.
 *
 * @category constructors
 */
export const sendSegments = (
  media: MediaSocket,
  segments: Stream.Stream<CallTimeline.Segment>,
  channel: ListenChannel
): Effect.Effect<void> =>
  Stream.runForEach(segments, (segment) => Effect.forEach(frames(segment, channel), media.send, { discard: true }))

/**
 * How often a listener looks where the call's media is while it is nowhere yet (ringing).
 *
 * @category constructors
 */
export const locateMs = 500

/**
 * The daemon serving the call's media when it is another than this one (and whether the
 * listener waited for it); never completes when it is this one.
 */
const servedElsewhere = (relay: ListenRelay["Service"], callId: string) =>
  Effect.gen(function*() {
    for (let waited = false;; waited = true) {
      const found = yield* relay.locate(callId)
      if (Option.isSome(found)) {
        if (found.value.daemonId === relay.self.id) return yield* Effect.never
        return { server: found.value, waited }
      }
      yield* Effect.sleep(locateMs)
    }
  })

/**
 * The organization the request speaks for: the ticket's (good for `callId` now, not used up
 * yet) when the query has one, otherwise the bearer key's.
 */
const organizationOf = (
  request: HttpServerRequest.HttpServerRequest,
  ticket: unknown,
  callId: string,
  now: Date
) =>
  Effect.gen(function*() {
    if (ticket !== undefined) {
      if (typeof ticket !== "string") return Option.none()
      return yield* (yield* ListenTicketRepository).check({ ticket, callId, now })
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers["authorization"] ?? "")
    if (match === null) return Option.none()
    const organization = yield* (yield* ApiKeyRepository).authenticate(match[1]!)
    return Option.map(organization, (o) => o.id)
  })

/**
 * The endpoint; `queryDetail` is the body's `detail` of a 422 (the API's shape of a validation
 * error in the query).
 *
 * @category layers
 */
export const endpoint = (queryDetail: (issue: SchemaIssue.Issue) => unknown) =>
  HttpRouter.add(
    "GET",
    path,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const search = yield* HttpServerRequest.ParsedSearchParams
      const callId = (yield* HttpRouter.params)["call_id"] ?? ""
      const now = yield* nowDate
      const ticket = search["ticket"]
      const organizationId = yield* organizationOf(request, ticket, callId, now)
      if (Option.isNone(organizationId)) return unauthorized(ticket !== undefined)

      const query = decodeQuery(search)
      if (Result.isFailure(query)) return failure(422, queryDetail(query.failure.issue))
      const { channel } = query.success

      const conversation = yield* (yield* ConversationRepository).findByCallId(organizationId.value, callId)
      if (Option.isNone(conversation) || conversation.value.endedAt !== null) {
        return failure(404, "Call not found or has ended")
      }
      // Not an upgrade: refused before a ticket is used up.
      if (!/^websocket$/i.test(request.headers["upgrade"] ?? "")) return upgradeExpected
      if (typeof ticket === "string" && !(yield* (yield* ListenTicketRepository).redeem({ ticket, callId, now }))) {
        return unauthorized(true)
      }

      // Subscribed before the upgrade: whatever the call's session writes from now on is kept.
      const ended = CallEnd.whenEnded(organizationId.value, callId).pipe(
        Effect.provideContext(yield* Effect.context<CallEvents | ConversationRepository>())
      )
      const segments = yield* (yield* LiveCalls).listen(callId, ended)
      const relay = yield* Effect.serviceOption(ListenRelay)
      const socket = yield* request.upgrade
      const media = yield* SocketMedia.fromSocket(socket)
      const here = sendSegments(media, segments, channel)
      const sending = Effect.gen(function*() {
        // Served here (or nowhere, never answered): this process's segments, then stop.
        const elsewhere = Option.isNone(relay)
          ? yield* Effect.as(here, Option.none())
          : yield* Effect.raceFirst(Effect.as(here, Option.none()), Effect.asSome(servedElsewhere(relay.value, callId)))
        if (Option.isNone(elsewhere) || Option.isNone(relay)) {
          yield* media.send(stopFrame)
          return yield* media.close
        }
        const { server, waited } = elsewhere.value
        const grant = {
          daemonId: server.daemonId,
          organizationId: organizationId.value,
          callId,
          channel,
          fromAnswer: waited
        }
        const end = server.internalUrl === null
          ? "lost"
          : yield* relay.value.relay(server.internalUrl, grant, media.send)
        if (end === "stopped") return yield* media.close
        yield* Effect.logWarning(
          `Live listen of call ${callId}: daemon ${server.daemonId}, which serves its media, went away`
        )
        const writer = yield* socket.writer
        yield* writer.write(new Socket.CloseEvent(1011, "The daemon serving the call's media went away")).pipe(
          Effect.ignore
        )
      })
      // Until the call ends, or the listener goes away.
      yield* Effect.raceFirst(sending, Stream.runDrain(media.incoming))
      return HttpServerResponse.empty()
    }).pipe(
      Effect.scoped,
      Effect.catch(() => Effect.succeed(upgradeExpected))
    )
  )
