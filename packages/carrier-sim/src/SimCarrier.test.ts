import { assert, describe, it } from "@effect/vitest"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import type { Carrier } from "@voice-agent/core/ports/Carrier"
import { Effect, Exit, Fiber, PubSub, Ref, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as SimCarrier from "./SimCarrier.ts"
import { conversationMs } from "./SimOutcome.ts"

/**
 * An in-memory `CallEvents`: the recorded events per call (a second event of a kind is
 * ignored, as the port says) and a PubSub for subscribers. `raw` also keeps every publish,
 * duplicates included, so tests can check that the carrier reports each event once.
 */
const makeCallEvents = Effect.gen(function*() {
  const recorded = yield* Ref.make(new Map<string, ReadonlyArray<CallEvent>>())
  const raw = yield* Ref.make(new Map<string, ReadonlyArray<CallEvent>>())
  const pubsub = yield* PubSub.unbounded<{ readonly callId: string; readonly event: CallEvent }>()
  const append = (map: Map<string, ReadonlyArray<CallEvent>>, callId: string, event: CallEvent) =>
    new Map(map).set(callId, [...(map.get(callId) ?? []), event])

  const service = CallEvents.of({
    publish: (callId, event) =>
      Ref.update(raw, (map) => append(map, callId, event)).pipe(
        Effect.andThen(Ref.modify(recorded, (map) =>
          (map.get(callId) ?? []).some((e) => e._tag === event._tag)
            ? [false, map]
            : [true, append(map, callId, event)])),
        Effect.flatMap((isNew) => isNew ? PubSub.publish(pubsub, { callId, event }) : Effect.void),
        Effect.asVoid
      ),
    subscribe: (callId) =>
      Effect.gen(function*() {
        const subscription = yield* PubSub.subscribe(pubsub)
        const before = (yield* Ref.get(recorded)).get(callId) ?? []
        const later = Stream.fromSubscription(subscription).pipe(
          Stream.filter((item) => item.callId === callId && !before.some((e) => e._tag === item.event._tag)),
          Stream.map((item) => item.event)
        )
        return Stream.concat(Stream.fromIterable(before), later).pipe(Stream.takeUntil((e) => e._tag === "Ended"))
      })
  })

  const eventsOf = (callId: string) => Ref.get(recorded).pipe(Effect.map((map) => map.get(callId) ?? []))
  const rawOf = (callId: string) => Ref.get(raw).pipe(Effect.map((map) => map.get(callId) ?? []))
  return { service, eventsOf, rawOf } as const
})

/** A carrier built in its own scope (the layer's), over an in-memory `CallEvents`. */
const setup = Effect.gen(function*() {
  const callEvents = yield* makeCallEvents
  const scope = yield* Scope.make()
  const carrier: Carrier["Service"] = yield* SimCarrier.make.pipe(
    Scope.provide(scope),
    Effect.provideService(CallEvents, callEvents.service)
  )
  yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
  const place = (callId: string, to: string) =>
    carrier.placeCall({
      from: "+12025550100",
      to,
      callId,
      mediaUrl: `ws://localhost/media/${callId}`,
      mediaToken: "token"
    })
  return { ...callEvents, carrier, scope, place } as const
})

const ringing = (at: number): CallEvent => ({ _tag: "Ringing", at })
const answered = (at: number, answeredBy: "human" | "machine" = "human"): CallEvent => ({
  _tag: "Answered",
  at,
  answeredBy
})
const ended = (at: number, reason: Extract<CallEvent, { _tag: "Ended" }>["reason"]): CallEvent => ({
  _tag: "Ended",
  at,
  reason
})

/** Moves the TestClock to `t` (epoch ms; it starts at 0). */
const moveTo = (t: number) => TestClock.setTime(t)

/**
 * The outcome table of packages/carrier-sim/README.md, one row per outcome (both ends of each
 * range, and numbers outside it), with the events the carrier reports and when. Conversations:
 * answered at 1 s, the person hangs up 3 to 6 s later (fixed per number).
 */
const rows: ReadonlyArray<{ readonly to: string; readonly events: ReadonlyArray<CallEvent> }> = [
  { to: "+12025550100", events: [ringing(0), answered(1_000), ended(4_700, "remote-hangup")] },
  { to: "+12025550139", events: [ringing(0), answered(1_000), ended(5_500, "remote-hangup")] },
  { to: "+12025551234", events: [ringing(0), answered(1_000), ended(6_500, "remote-hangup")] },
  { to: "+442079460958", events: [ringing(0), answered(1_000), ended(6_800, "remote-hangup")] },
  { to: "+12025550140", events: [ringing(0), answered(1_000, "machine")] },
  { to: "+12025550149", events: [ringing(0), answered(1_000, "machine")] },
  { to: "+12025550150", events: [ringing(0), ended(1_000, "busy")] },
  { to: "+12025550159", events: [ringing(0), ended(1_000, "busy")] },
  { to: "+12025550160", events: [ringing(0), ended(3_000, "no-answer")] },
  { to: "+12025550169", events: [ringing(0), ended(3_000, "no-answer")] },
  { to: "+12025550170", events: [ringing(0), ended(0, "failed")] },
  { to: "+12025550179", events: [ringing(0), ended(0, "failed")] },
  { to: "+12025550180", events: [ringing(0), answered(1_000), ended(2_000, "remote-hangup")] },
  { to: "+12025550189", events: [ringing(0), answered(1_000), ended(2_000, "remote-hangup")] },
  { to: "+12025550190", events: [ringing(0), answered(1_000)] },
  { to: "+12025550199", events: [ringing(0), answered(1_000)] }
]

describe("SimCarrier calls", () => {
  for (const row of rows) {
    it.effect(`${row.to}: ${row.events.map((e) => e._tag === "Ended" ? e.reason : e._tag).join(", ")}`, () =>
      Effect.gen(function*() {
        const { carrier, eventsOf, place, rawOf } = yield* setup
        const { carrierCallId } = yield* place("call-1", row.to)
        assert.match(carrierCallId, /^CA[0-9a-f]{32}$/)
        yield* moveTo(0)
        // at each instant an event is due: not reported a millisecond before, reported at it
        for (const at of new Set(row.events.map((e) => e.at))) {
          if (at > 0) {
            yield* moveTo(at - 1)
            assert.deepStrictEqual(yield* eventsOf("call-1"), row.events.filter((e) => e.at < at))
          }
          yield* moveTo(at)
          assert.deepStrictEqual(yield* eventsOf("call-1"), row.events.filter((e) => e.at <= at))
        }
        // nothing more, however long we wait (a call that never ends by itself stays up)
        yield* moveTo(600_000)
        assert.deepStrictEqual(yield* eventsOf("call-1"), row.events)
        assert.deepStrictEqual(yield* rawOf("call-1"), row.events)
        // a call that ended is gone: hanging up changes nothing
        if (row.events.at(-1)?._tag === "Ended") {
          yield* carrier.hangUp("call-1")
          assert.deepStrictEqual(yield* rawOf("call-1"), row.events)
        }
      }))
  }

  it.effect("hangUp of a call that never hangs up ends it with local-hangup, once", () =>
    Effect.gen(function*() {
      const { carrier, eventsOf, place, rawOf } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(5_000)
      yield* carrier.hangUp("call-1")
      const expected = [ringing(0), answered(1_000), ended(5_000, "local-hangup")]
      assert.deepStrictEqual(yield* eventsOf("call-1"), expected)
      yield* carrier.hangUp("call-1")
      yield* moveTo(600_000)
      assert.deepStrictEqual(yield* rawOf("call-1"), expected)
    }))

  it.effect("hangUp of a voicemail call ends it with local-hangup", () =>
    Effect.gen(function*() {
      const { carrier, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550145")
      yield* moveTo(1_000)
      yield* carrier.hangUp("call-1")
      yield* moveTo(600_000)
      assert.deepStrictEqual(yield* eventsOf("call-1"), [
        ringing(0),
        answered(1_000, "machine"),
        ended(1_000, "local-hangup")
      ])
    }))

  it.effect("hangUp of a ringing call ends it before it is answered", () =>
    Effect.gen(function*() {
      const { carrier, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550123")
      yield* moveTo(500)
      yield* carrier.hangUp("call-1")
      yield* moveTo(600_000)
      assert.deepStrictEqual(yield* eventsOf("call-1"), [ringing(0), ended(500, "local-hangup")])
    }))

  it.effect("hangUp of an ended call, or of a call never placed, is a no-op", () =>
    Effect.gen(function*() {
      const { carrier, place, rawOf } = yield* setup
      yield* place("call-1", "+12025550180")
      yield* moveTo(10_000)
      yield* carrier.hangUp("call-1")
      yield* carrier.hangUp("no-such-call")
      assert.deepStrictEqual(yield* rawOf("call-1"), [ringing(0), answered(1_000), ended(2_000, "remote-hangup")])
      assert.deepStrictEqual(yield* rawOf("no-such-call"), [])
    }))

  it.effect("hangUp at the instant the person hangs up reports one Ended", () =>
    Effect.gen(function*() {
      const { carrier, place, rawOf } = yield* setup
      yield* place("call-1", "+12025550180")
      yield* moveTo(1_999)
      const hangUp = yield* Effect.forkChild(Effect.andThen(Effect.sleep(1), carrier.hangUp("call-1")))
      yield* moveTo(2_000)
      yield* Fiber.join(hangUp)
      const events = yield* rawOf("call-1")
      assert.strictEqual(events.filter((e) => e._tag === "Ended").length, 1)
      assert.deepStrictEqual(events.slice(0, 2), [ringing(0), answered(1_000)])
    }))

  it.effect("closing the layer's scope interrupts the calls in flight", () =>
    Effect.gen(function*() {
      const { carrier, place, rawOf, scope } = yield* setup
      yield* place("ringing", "+12025550123")
      yield* place("no-answer", "+12025550160")
      yield* place("never", "+12025550190")
      yield* moveTo(1_500)
      yield* Scope.close(scope, Exit.void)
      yield* moveTo(600_000)
      assert.deepStrictEqual(yield* rawOf("ringing"), [ringing(0), answered(1_000)])
      assert.deepStrictEqual(yield* rawOf("no-answer"), [ringing(0)])
      assert.deepStrictEqual(yield* rawOf("never"), [ringing(0), answered(1_000)])
      // their state is gone: hanging up reports nothing
      yield* carrier.hangUp("never")
      assert.deepStrictEqual(yield* rawOf("never"), [ringing(0), answered(1_000)])
    }))

  it.effect("a call placed after the layer closed reports nothing, and hanging it up returns", () =>
    Effect.gen(function*() {
      const { carrier, place, rawOf, scope } = yield* setup
      yield* Scope.close(scope, Exit.void)
      yield* Effect.exit(place("late", "+12025550190"))
      yield* moveTo(10_000)
      yield* carrier.hangUp("late")
      assert.deepStrictEqual(yield* rawOf("late"), [])
    }))

  it.effect("many concurrent calls stay independent", () =>
    Effect.gen(function*() {
      const { carrier, eventsOf, place, rawOf } = yield* setup
      const expectedOf = (line: number, placedAt: number): ReadonlyArray<CallEvent> => {
        const to = `+1202555${String(line).padStart(4, "0")}`
        if (line >= 140 && line < 150) return [ringing(placedAt), answered(placedAt + 1_000, "machine")]
        if (line >= 150 && line < 160) return [ringing(placedAt), ended(placedAt + 1_000, "busy")]
        if (line >= 160 && line < 170) return [ringing(placedAt), ended(placedAt + 3_000, "no-answer")]
        if (line >= 170 && line < 180) return [ringing(placedAt), ended(placedAt, "failed")]
        if (line >= 180 && line < 190) {
          return [ringing(placedAt), answered(placedAt + 1_000), ended(placedAt + 2_000, "remote-hangup")]
        }
        if (line >= 190 && line < 200) return [ringing(placedAt), answered(placedAt + 1_000)]
        return [
          ringing(placedAt),
          answered(placedAt + 1_000),
          ended(placedAt + 1_000 + conversationMs(to), "remote-hangup")
        ]
      }
      // 200 calls, two per number of 0100..0199, placed 250 ms apart in two waves
      const calls = Array.from({ length: 200 }, (_, i) => ({
        callId: `call-${i}`,
        line: 100 + (i % 100),
        placedAt: i * 250
      }))
      for (const call of calls) {
        yield* moveTo(call.placedAt)
        yield* place(call.callId, `+1202555${String(call.line).padStart(4, "0")}`)
      }
      // the first wave's voicemail and never-hangs-up calls are hung up at 60 s
      yield* moveTo(60_000)
      const hungUp = calls.filter((c) => c.placedAt < 25_000 && (c.line >= 190 || (c.line >= 140 && c.line < 150)))
      yield* Effect.forEach(hungUp, (c) => carrier.hangUp(c.callId), { concurrency: "unbounded" })
      yield* moveTo(600_000)
      for (const call of calls) {
        const expected = hungUp.includes(call)
          ? [...expectedOf(call.line, call.placedAt), ended(60_000, "local-hangup")]
          : expectedOf(call.line, call.placedAt)
        assert.deepStrictEqual(yield* eventsOf(call.callId), expected, call.callId)
        assert.deepStrictEqual(yield* rawOf(call.callId), expected, call.callId)
      }
    }))

  it.effect("a subscriber gets the call's events in order, and the stream ends after Ended", () =>
    Effect.gen(function*() {
      const { place, service } = yield* setup
      const stream = yield* service.subscribe("call-1")
      const collected = yield* Effect.forkChild(Stream.runCollect(stream))
      yield* place("call-1", "+12025550185")
      yield* moveTo(10_000)
      assert.deepStrictEqual(yield* Fiber.join(collected), [
        ringing(0),
        answered(1_000),
        ended(2_000, "remote-hangup")
      ])
    }))

  it.effect("a malformed number is refused, not retryable, and reports nothing", () =>
    Effect.gen(function*() {
      const { place, rawOf } = yield* setup
      for (const to of ["2025550123", "+0202555012", "+1 202 555 0123", "", "+1202555012345678"]) {
        const error = yield* Effect.flip(place("call-1", to))
        assert.strictEqual(error.reason, "rejected", to)
        assert.isFalse(error.isRetryable, to)
      }
      yield* moveTo(10_000)
      assert.deepStrictEqual(yield* rawOf("call-1"), [])
    }))

  it.effect("a call id still in a call is refused; once that call ended it can be used again", () =>
    Effect.gen(function*() {
      const { carrier, place } = yield* setup
      yield* place("call-1", "+12025550190")
      const error = yield* Effect.flip(place("call-1", "+12025550123"))
      assert.strictEqual(error.reason, "rejected")
      yield* carrier.hangUp("call-1")
      const { carrierCallId } = yield* place("call-1", "+12025550123")
      assert.match(carrierCallId, /^CA[0-9a-f]{32}$/)
    }))
})

describe("SimCarrier SMS", () => {
  it.effect("accepts a message as queued, and refuses one to the carrier-failure range", () =>
    Effect.gen(function*() {
      const { carrier } = yield* setup
      const sent = yield* carrier.sendSms({ from: "+12025550100", to: "+12025550123", body: "Hello" })
      assert.strictEqual(sent.status, "queued")
      assert.match(sent.messageId, /^SM[0-9a-f]{32}$/)
      const error = yield* Effect.flip(carrier.sendSms({ from: "+12025550100", to: "+12025550171", body: "Hello" }))
      assert.strictEqual(error.reason, "rejected")
    }))
})

describe("SimCarrier inbound calls", () => {
  /** The carrier with its simulator, built in its own scope over an in-memory `CallEvents`. */
  const setupInbound = Effect.gen(function*() {
    const callEvents = yield* makeCallEvents
    const scope = yield* Scope.make()
    const { carrier, simulator } = yield* SimCarrier.makeWithSimulator.pipe(
      Scope.provide(scope),
      Effect.provideService(CallEvents, callEvents.service)
    )
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const callIn = (callId: string, from: string) =>
      simulator.callIn({
        from,
        to: "+12025550100",
        callId,
        mediaUrl: `ws://localhost/media/${callId}`,
        mediaToken: "t"
      })
    return { ...callEvents, carrier, callIn } as const
  })

  it.effect("answers at once; a caller who talks hangs up after their conversation, one who never does is hung up", () =>
    Effect.gen(function*() {
      const { callIn, carrier, eventsOf } = yield* setupInbound
      yield* callIn("in-1", "+13035550123")
      yield* callIn("in-2", "+13035550192")
      // busy and no-answer callers make no sense: they call as people who talk
      yield* callIn("in-3", "+13035550155")
      yield* TestClock.adjust("0 millis")
      assert.deepStrictEqual(yield* eventsOf("in-1"), [answered(0)])
      yield* TestClock.adjust(`${conversationMs("+13035550123")} millis`)
      assert.deepStrictEqual(yield* eventsOf("in-1"), [
        answered(0),
        ended(conversationMs("+13035550123"), "remote-hangup")
      ])
      yield* TestClock.adjust("10 minutes")
      assert.deepStrictEqual(yield* eventsOf("in-2"), [answered(0)])
      assert.deepStrictEqual((yield* eventsOf("in-3")).map((e) => e._tag), ["Answered", "Ended"])
      yield* carrier.hangUp("in-2")
      const events = yield* eventsOf("in-2")
      assert.deepStrictEqual(events.map((e) => e._tag === "Ended" ? e.reason : e._tag), ["Answered", "local-hangup"])
      const twice = yield* Effect.flip(
        callIn("in-1", "+13035550123").pipe(Effect.andThen(callIn("in-1", "+13035550123")))
      )
      assert.strictEqual(twice.reason, "rejected")
    }))
})

describe("SimCarrier leaving answering machines to the engine", () => {
  it.effect("every answered outbound call says unknown; an inbound call is human", () =>
    Effect.gen(function*() {
      const callEvents = yield* makeCallEvents
      const scope = yield* Scope.make()
      const { carrier, simulator } = yield* SimCarrier.makeWith({ machineDetection: "engine" }).pipe(
        Scope.provide(scope),
        Effect.provideService(CallEvents, callEvents.service)
      )
      yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
      const request = (callId: string, from: string, to: string) => ({
        from,
        to,
        callId,
        mediaUrl: `ws://localhost/media/${callId}`,
        mediaToken: "t"
      })
      yield* carrier.placeCall(request("person", "+12025550100", "+12025550123"))
      yield* carrier.placeCall(request("machine", "+12025550100", "+12025550141"))
      yield* carrier.placeCall(request("busy", "+12025550100", "+12025550151"))
      yield* simulator.callIn(request("inbound", "+13035550123", "+12025550100"))
      yield* TestClock.adjust("1 second")
      const answeredBy = (callId: string) =>
        Effect.map(callEvents.eventsOf(callId), (events) =>
          events.flatMap((e) => e._tag === "Answered" ? [e.answeredBy] : []))
      assert.deepStrictEqual(yield* answeredBy("person"), ["unknown"])
      assert.deepStrictEqual(yield* answeredBy("machine"), ["unknown"])
      assert.deepStrictEqual(yield* answeredBy("busy"), [])
      assert.deepStrictEqual(yield* answeredBy("inbound"), ["human"])
    }))
})

describe("SimCarrier transfers, without media", () => {
  it.effect("a person who never hangs up, transferred: the call ends when the target's conversation does", () =>
    Effect.gen(function*() {
      const { carrier, eventsOf, place } = yield* setup
      yield* place("call-1", "+12025550190")
      yield* moveTo(2_000)
      yield* carrier.transfer("call-1", "+12025550100")
      // The target (+1 202 555 0100) talks 3.7 s (SimOutcome.conversationMs), then hangs up.
      yield* moveTo(5_699)
      assert.deepStrictEqual(yield* eventsOf("call-1"), [ringing(0), answered(1_000)])
      yield* moveTo(5_700)
      assert.deepStrictEqual(yield* eventsOf("call-1"), [ringing(0), answered(1_000), ended(5_700, "remote-hangup")])
    }))
})
