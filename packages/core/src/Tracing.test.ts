/**
 * A call's spans: with a tracer, the call's first span starts its trace (linked to where it was
 * started), its later spans from elsewhere in the process go under it, and every span of it
 * carries the call id; with Effect's native tracer (nothing to export to) nothing is made.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option, Tracer } from "effect"
import * as Tracing from "./Tracing.ts"

const recording = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

const named = (spans: ReadonlyArray<Tracer.NativeSpan>, name: string) => spans.find((span) => span.name === name)!

describe("Tracing", () => {
  it.effect("with the native tracer, a call makes no span", () =>
    Effect.gen(function*() {
      const inside = yield* Effect.option(Effect.currentSpan).pipe(Tracing.call("call-1"))
      assert.isTrue(Option.isNone(inside))
      assert.isFalse(yield* Tracing.traced)
    }))

  it.effect("one trace per call: its media session goes under its span, linked to its request", () => {
    const { spans, tracer } = recording()
    return Effect.gen(function*() {
      const callStarted = yield* Deferred.make<void>()
      const callGoesOn = yield* Deferred.make<void>()
      // The call, placed from a request, waits while its media session runs.
      const call = yield* Effect.gen(function*() {
        yield* Tracing.event("call.answered", { "voice_agent.answered_by": "human" }, 1_000)
        yield* Deferred.succeed(callStarted, undefined)
        yield* Deferred.await(callGoesOn)
      }).pipe(
        Tracing.call("call-1", { "voice_agent.call.kind": "direct" }),
        Effect.withSpan("POST /v2/create-outbound"),
        Effect.forkChild
      )
      yield* Deferred.await(callStarted)
      // The media session, in the media WebSocket's request (another trace).
      yield* Effect.gen(function*() {
        assert.isTrue(yield* Tracing.traced)
        yield* Effect.withSpan(Effect.void, "RecordingStore.write")
      }).pipe(Tracing.forCall("call.media", "call-1"), Effect.withSpan("GET /media"))
      yield* Deferred.succeed(callGoesOn, undefined)
      yield* Fiber.join(call)
      // After the call, a session of it makes a trace of its own.
      yield* Effect.void.pipe(Tracing.forCall("call.media", "call-1"))

      const placed = named(spans, "POST /v2/create-outbound")
      const callSpan = named(spans, "call")
      assert.isTrue(Option.isNone(callSpan.parent))
      assert.notStrictEqual(callSpan.traceId, placed.traceId)
      assert.deepStrictEqual(callSpan.links.map((link) => link.span), [placed])
      assert.strictEqual(callSpan.attributes.get("voice_agent.call.kind"), "direct")
      assert.deepStrictEqual(callSpan.events, [["call.answered", 1_000_000_000n, {
        "voice_agent.answered_by": "human"
      }]])

      const [media, later] = spans.filter((span) => span.name === "call.media")
      const request = named(spans, "GET /media")
      assert.strictEqual(Option.getOrUndefined(media!.parent), callSpan)
      assert.strictEqual(media!.traceId, callSpan.traceId)
      assert.deepStrictEqual(media!.links.map((link) => link.span), [request])
      assert.strictEqual(Option.getOrUndefined(named(spans, "RecordingStore.write").parent), media)
      assert.isTrue(Option.isNone(later!.parent))
      // The call id on every span of the call, and on the requests it came from.
      for (const span of spans) assert.strictEqual(span.attributes.get(Tracing.callIdAttribute), "call-1", span.name)
    }).pipe(Effect.withTracer(tracer))
  })
})
