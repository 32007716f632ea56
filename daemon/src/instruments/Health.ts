/**
 * `GET /healthz` and `GET /readyz`, for load balancers and orchestrators (docs/OPERATIONS.md).
 * Neither takes a key.
 *
 * - `/healthz`: 200 `{"status":"ok"}` for as long as the process answers HTTP at all.
 * - `/readyz`: 200 `{"status":"ready"}` when the database answers and has every migration of
 *   this build (store-sql SqlReadiness); 503 `{detail}` otherwise, and from the moment a
 *   shutdown starts (SIGTERM): the daemon keeps serving while it drains its calls, but a load
 *   balancer should send new work elsewhere.
 *
 * @since 0.1.0
 */
import * as SqlReadiness from "@voice-agent/store-sql/SqlReadiness"
import { Context, Effect, Layer, Option, Ref } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import type { SqlClient } from "effect/sql"

/**
 * Whether this process is shutting down (set by {@link drainOnShutdown}'s release).
 *
 * @category services
 */
export class Draining extends Context.Service<Draining, Ref.Ref<boolean>>()("voice-agent/instruments/Draining") {
  static readonly layer = Layer.effect(Draining, Ref.make(false))
}

/** Probes are never cached by a proxy in between. */
const headers = { "cache-control": "no-store" }

const ok = HttpServerResponse.jsonUnsafe({ status: "ok" }, { headers })
const ready = HttpServerResponse.jsonUnsafe({ status: "ready" }, { headers })
const notReady = (detail: string) => HttpServerResponse.jsonUnsafe({ detail }, { status: 503, headers })

/**
 * `None` when ready; otherwise why not.
 *
 * @category constructors
 */
export const readiness: Effect.Effect<Option.Option<string>, never, Draining | SqlClient.SqlClient> = Effect.gen(
  function*() {
    if (yield* Ref.get(yield* Draining)) return Option.some("Shutting down: draining calls in progress")
    return yield* SqlReadiness.check
  }
)

/**
 * The two routes.
 *
 * @category layers
 */
export const routes = Layer.mergeAll(
  HttpRouter.add("GET", "/healthz", Effect.succeed(ok)),
  HttpRouter.add(
    "GET",
    "/readyz",
    Effect.map(readiness, Option.match({ onNone: () => ready, onSome: notReady }))
  )
)

/**
 * Nothing while the daemon runs; on release (the first step of a shutdown, built last for that)
 * it marks the process draining, so `/readyz` answers 503 from then on.
 *
 * @category layers
 */
export const drainOnShutdown: Layer.Layer<never, never, Draining> = Layer.effectDiscard(
  Effect.flatMap(Draining, (draining) => Effect.addFinalizer(() => Ref.set(draining, true)))
)
