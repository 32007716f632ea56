/**
 * A call's spans (docs/OPERATIONS.md, "Traces"): the work of one call runs under a span of its
 * own, and every span made inside it carries the call's id as `voice_agent.call_id`, whichever
 * code makes it (the engine's, a provider's, the SQL client's). Without a tracer to export to
 * (the daemon's default) it changes nothing and costs nothing: no span is made.
 *
 * @since 0.1.0
 */
import { Effect, References, Tracer } from "effect"

/**
 * The attribute every span of a call carries.
 *
 * @category constructors
 */
export const callIdAttribute = "voice_agent.call_id"

/**
 * Runs `self` as the call `callId`'s span `name` (under the current span, if any, which gets
 * the call id too), with every span inside it carrying the call id; spans are made inside even
 * where the process has them off elsewhere (the daemon's background work), once a tracer other
 * than Effect's native one is installed.
 *
 * @category combinators
 */
export const forCall =
  (name: string, callId: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) =>
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
        ? self
        : self.pipe(
          Effect.withSpan(name, { attributes: { [callIdAttribute]: callId } }),
          Effect.annotateSpans(callIdAttribute, callId),
          Effect.provideService(References.TracerEnabled, true),
          (traced) => Effect.andThen(Effect.annotateCurrentSpan(callIdAttribute, callId), traced)
        )
    )

/**
 * Runs `self`, work for the call `callId` done outside its span (a media stream finding its
 * call before its session starts), with its spans, and the current one, carrying the call id.
 *
 * @category combinators
 */
export const ofCall = (callId: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) =>
    fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
      ? self
      : Effect.andThen(
        Effect.annotateCurrentSpan(callIdAttribute, callId),
        Effect.annotateSpans(self, callIdAttribute, callId)
      )
  )
