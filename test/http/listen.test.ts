/**
 * Live listen and listen tickets over real HTTP and WebSockets, in process, on both backends
 * (docs/LISTEN.md): the API with the daemon's listen
 * route, calls inserted as the dialer makes them (a ringing call: a record with no end), and a
 * media session stood in for by registering the call in LiveCalls as MediaSession does.
 *
 * The server runs on the TestClock the tests move: tickets expire by it, and the listener's
 * periodic read of the call's record (CallEnd) runs by it.
 */
import { assert, describe, layer } from "@effect/vitest"
import type { ConversationRecord } from "@voice-agent/core/Conversation"
import * as ListenTicket from "@voice-agent/core/ListenTicket"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import * as CallEnd from "@voice-agent/engine/CallEnd"
import * as LiveCalls from "@voice-agent/engine/LiveCalls"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Deferred, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { TestClock } from "effect/testing"
import { randomBytes } from "node:crypto"
import * as Listen from "voice-agent/Listen"
import WebSocket from "ws"
import {
  api,
  assertDetail,
  assertValidation,
  isIsoInstant,
  keysOf,
  organization,
  randomNumber
} from "./support/ApiServer.ts"
import type { TestOrganization } from "./support/ApiServer.ts"
import * as ApiServer from "./support/ApiServer.ts"

interface Frame {
  readonly event: string
  readonly media?: { readonly timestamp: string; readonly payload: string }
}

/** A listener's connection: refused before the upgrade, or open until the server closes it. */
type Connection =
  | { readonly _tag: "Refused"; readonly status: number; readonly body: any }
  | {
    readonly _tag: "Open"
    /** Every text frame, once the server has closed the socket. */
    readonly closed: Effect.Effect<ReadonlyArray<Frame>>
    readonly frames: ReadonlyArray<Frame>
  }

const baseUrl = HttpServer.addressFormattedWith((url) => Effect.succeed(new URL(url)))

/**
 * Opens `path` (query included) as a WebSocket, with the key when one is given; the socket is
 * closed with the test's scope.
 */
const connect = (path: string, key?: string) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` }
    const socket = yield* Effect.acquireRelease(
      Effect.sync(() => new WebSocket(`ws://127.0.0.1:${base.port}${path}`, { headers })),
      (socket) => Effect.sync(() => socket.terminate())
    )
    const frames: Array<Frame> = []
    const closed = Deferred.makeUnsafe<ReadonlyArray<Frame>>()
    socket.on("message", (data) => frames.push(JSON.parse(new TextDecoder().decode(data as Buffer)) as Frame))
    socket.on("close", () => Deferred.doneUnsafe(closed, Effect.succeed(frames)))
    return yield* Effect.callback<Connection>((resume) => {
      socket.on("open", () => resume(Effect.succeed({ _tag: "Open", closed: Deferred.await(closed), frames })))
      socket.on("unexpected-response", (_request, response) => {
        let text = ""
        response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
        response.on("end", () =>
          resume(Effect.succeed({ _tag: "Refused", status: response.statusCode ?? 0, body: JSON.parse(text) })))
      })
      socket.on("error", (error) =>
        resume(Effect.die(error)))
    })
  })

const open = (connection: Connection) => {
  if (connection._tag === "Refused") {
    throw new Error(`expected an upgrade, got ${connection.status} ${JSON.stringify(connection.body)}`)
  }
  return connection
}

const refused = (connection: Connection, status: number, message: string) => {
  assert.strictEqual(connection._tag, "Refused", `${message}: expected ${status}, got an upgrade`)
  if (connection._tag === "Refused") assert.strictEqual(connection.status, status, message)
}

const listenPath = (callId: string, query: string) => `/v1/conversations/${callId}/listen?${query}`

/** A call of `org` as the dialer records it when it places it: started, not answered, not ended. */
const ringingCall = (org: TestOrganization) =>
  Effect.gen(function*() {
    return yield* (yield* ConversationRepository).insert({
      callId: `CA${randomBytes(12).toString("hex")}`,
      organizationId: org.id,
      campaignId: null,
      contactId: null,
      direction: "outbound",
      fromNumber: org.number,
      toNumber: randomNumber(),
      startedAt: new Date(yield* Clock.currentTimeMillis),
      answeredAt: null,
      endedAt: null,
      durationSec: null,
      terminationReason: null
    })
  })

/** Ends a call never answered, as the dialer records it. */
const endUnanswered = (call: ConversationRecord) =>
  Effect.gen(function*() {
    const endedAt = new Date(yield* Clock.currentTimeMillis)
    yield* (yield* ConversationRepository).end(call.id, { answeredAt: null, endedAt, terminationReason: "busy" })
  })

const createTicket = (key: string, callId: string) => api(key, "POST", `/v1/conversations/${callId}/listen-tickets`)

const ticketOf = (key: string, callId: string) =>
  Effect.flatMap(createTicket(key, callId), (reply) =>
    reply.status === 201
      ? Effect.succeed(reply.body.ticket as string)
      : Effect.die(new Error(`listen ticket: ${reply.status} ${reply.text}`)))

/** `n` samples of a loud 400 Hz tone from sample `from` on. */
const tone = (from: number, n: number): Int16Array =>
  Int16Array.from({ length: n }, (_, i) => Math.round(12_000 * Math.sin((2 * Math.PI * 400 * (from + i)) / 8000)))

/**
 * The app with the daemon's listen route and the LiveCalls registry (on the suite's TestClock).
 */
const server = (backend: TestDatabase.Backend) =>
  ApiServer.layerWith(backend.layer, Listen.endpoint).pipe(Layer.provideMerge(LiveCalls.layer))

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`live listen on ${backend.name}`, () => {
    layer(server(backend), { timeout: "120 seconds" })((it) => {
      it.effect("POST listen-tickets: 201 {ticket, expires_at} 60 s ahead; 401 without a key; 404 unless live", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const other = yield* organization()
          const call = yield* ringingCall(org)
          const now = yield* Clock.currentTimeMillis

          const created = yield* createTicket(org.key, call.callId)
          assert.strictEqual(created.status, 201, created.text)
          assert.deepStrictEqual(keysOf(created.body), ["expires_at", "ticket"])
          assert.match(created.body.ticket, /^lt_[A-Za-z0-9_-]{43}$/)
          assert.isTrue(isIsoInstant(created.body.expires_at))
          assert.strictEqual(Date.parse(created.body.expires_at), now + ListenTicket.ttlMs)
          const again = yield* createTicket(org.key, call.callId)
          assert.notStrictEqual(again.body.ticket, created.body.ticket, "a fresh ticket each time")

          assertDetail(yield* api(null, "POST", `/v1/conversations/${call.callId}/listen-tickets`), 401, "no key")
          assertDetail(yield* createTicket("va_wrong", call.callId), 401, "bad key")
          assertDetail(yield* createTicket(org.key, "CA-unknown"), 404, "unknown call")
          assertDetail(yield* createTicket(other.key, call.callId), 404, "another organization's call")
          yield* endUnanswered(call)
          assertDetail(yield* createTicket(org.key, call.callId), 404, "ended call")
        }))

      it.effect("a ticket opens one upgrade of its call with no header; used, expired, another call's, garbage: 401", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const call = yield* ringingCall(org)
          const otherCall = yield* ringingCall(org)
          const path = (ticket: string, callId = call.callId) =>
            listenPath(callId, `channel=mixed&ticket=${encodeURIComponent(ticket)}`)

          const ticket = yield* ticketOf(org.key, call.callId)
          // A ticket is checked before the channel; a refusal after the check leaves it unused.
          assertDetail(yield* api(null, "GET", path(ticket)), 426, "not an upgrade")
          refused(
            yield* connect(listenPath(call.callId, "channel=both&ticket=lt_garbage")),
            401,
            "garbage, bad channel"
          )
          refused(
            yield* connect(listenPath(call.callId, `channel=both&ticket=${ticket}`)),
            422,
            "good ticket, bad channel"
          )
          refused(yield* connect(path(ticket, otherCall.callId)), 401, "another call's ticket")
          open(yield* connect(path(ticket)))
          const reused = yield* connect(path(ticket))
          refused(reused, 401, "used twice")
          if (reused._tag === "Refused") {
            assert.deepStrictEqual(reused.body, { detail: "Invalid, used or expired listen ticket" })
          }
          refused(yield* connect(path("lt_garbage")), 401, "garbage")
          refused(yield* connect(path("")), 401, "empty")
          refused(yield* connect(`${path(ticket)}&ticket=x`), 401, "two tickets")

          // Expiry: good until 60 s after the issue, refused from then on.
          const lasting = yield* ticketOf(org.key, call.callId)
          const expiring = yield* ticketOf(org.key, call.callId)
          yield* TestClock.adjust(ListenTicket.ttlMs - 1)
          open(yield* connect(path(lasting)))
          yield* TestClock.adjust(1)
          refused(yield* connect(path(expiring)), 401, "expired")

          // A call that has ended is 404 for a good ticket too.
          const late = yield* ticketOf(org.key, otherCall.callId)
          yield* endUnanswered(otherCall)
          refused(yield* connect(path(late, otherCall.callId)), 404, "ended call")
        }))

      it.effect("a missing or unknown channel is the API's own 422, at [\"query\", \"channel\"]", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const call = yield* ringingCall(org)
          // The API's 422 for the same channel names, in a path parameter.
          const reference = yield* api(org.key, "GET", `/v1/conversations/${call.callId}/channels/both/recording`)
          assertValidation(reference, ["path", "channel_name"])
          for (const query of ["channel=both", "", "channel=", "channel=mixed&channel=agent"]) {
            const reply = yield* api(org.key, "GET", listenPath(call.callId, query))
            assertValidation(reply, ["query", "channel"])
            assert.strictEqual(reply.body.detail.length, 1, reply.text)
          }
          const both = (yield* api(org.key, "GET", listenPath(call.callId, "channel=both"))).body.detail[0]
          const expected = reference.body.detail[0]
          assert.deepStrictEqual(both, { loc: ["query", "channel"], msg: expected.msg, type: expected.type })
          assert.deepStrictEqual(
            (yield* api(org.key, "GET", listenPath(call.callId, ""))).body,
            { detail: [{ loc: ["query", "channel"], msg: "Field required", type: "missing" }] }
          )
          // Check order: 401 before 422, 422 before 404.
          assertDetail(yield* api(null, "GET", listenPath(call.callId, "channel=both")), 401)
          assertValidation(yield* api(org.key, "GET", listenPath("CA-unknown", "channel=both")), ["query", "channel"])
          assertDetail(yield* api(org.key, "GET", listenPath("CA-unknown", "channel=mixed")), 404)
        }))

      it.effect("a listener of a ringing call hears the session that starts after it, from its first frame, then stop", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const call = yield* ringingCall(org)
          const other = yield* organization()
          refused(yield* connect(listenPath(call.callId, "channel=remote"), other.key), 404, "another organization")

          const byKey = open(yield* connect(listenPath(call.callId, "channel=remote"), org.key))
          const byTicket = open(
            yield* connect(listenPath(call.callId, `channel=remote&ticket=${yield* ticketOf(org.key, call.callId)}`))
          )
          // The call is answered now: its media session registers and writes 1 s of audio.
          const samples = 8000
          const written = tone(0, samples)
          yield* Effect.scoped(Effect.gen(function*() {
            const session = yield* (yield* LiveCalls.LiveCalls).register(call.callId)
            for (let start = 0; start < samples; start += 480) {
              const remote = written.subarray(start, start + 480)
              session.publishUnsafe({ start, remote, agent: new Int16Array(remote.length), mixed: remote })
            }
          }))
          for (const listener of [byKey, byTicket]) {
            const frames = yield* listener.closed
            assert.deepStrictEqual(frames.at(-1), { event: "stop" })
            const media = frames.slice(0, -1)
            assert.strictEqual(media.length, 50, "1 s in 20 ms frames")
            const heard = media.map((frame) =>
              MuLaw.decode(new Uint8Array(Buffer.from(frame.media!.payload, "base64")))
            )
            assert.deepStrictEqual(
              Array.from(heard.flatMap((pcm) => Array.from(pcm))),
              Array.from(MuLaw.decode(MuLaw.encode(written))),
              "every sample of the call from its answer, in order"
            )
            assert.strictEqual(media[0]!.media!.timestamp, "0", "frames start with the answer")
            const timestamps = media.map((frame) => Number(frame.media!.timestamp))
            for (let i = 1; i < timestamps.length; i++) assert.isAbove(timestamps[i]!, timestamps[i - 1]!)
          }
        }))

      it.effect("a call never answered: stop when its end is reported, or once its record shows it", () =>
        Effect.gen(function*() {
          const org = yield* organization()
          const reported = yield* ringingCall(org)
          const recorded = yield* ringingCall(org)
          const reportedListener = open(yield* connect(listenPath(reported.callId, "channel=mixed"), org.key))
          const recordedListener = open(yield* connect(listenPath(recorded.callId, "channel=agent"), org.key))

          // The carrier reports the end (on any daemon: through the database), then the dialer records it.
          yield* (yield* CallEvents).publish(reported.callId, {
            _tag: "Ended",
            at: yield* Clock.currentTimeMillis,
            reason: "busy"
          })
          yield* endUnanswered(reported)
          assert.deepStrictEqual(yield* reportedListener.closed, [{ event: "stop" }])
          assert.strictEqual(recordedListener.frames.length, 0, "the other call goes on")

          // An end no carrier reports (a call the carrier refused, a dead daemon's call recovered):
          // the listener reads the record again every CallEnd.recheckMs.
          yield* endUnanswered(recorded)
          const frames = yield* Effect.raceFirst(
            recordedListener.closed,
            Effect.forever(
              Effect.andThen(TestClock.adjust(CallEnd.recheckMs), TestClock.withLive(Effect.sleep("20 millis")))
            )
          )
          assert.deepStrictEqual(frames, [{ event: "stop" }])
          refused(yield* connect(listenPath(recorded.callId, "channel=mixed"), org.key), 404, "ended call")
        }))
    })
  })
}
