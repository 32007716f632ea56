/**
 * HTTP requests by route and status, with their durations (core Metrics `httpRequests`,
 * `httpRequestDuration`), counted around the router's every other middleware so that every
 * answer is seen as the client gets it (after the error bodies, the 404 of unknown paths, the
 * 503 of a database out of reach).
 *
 * The route label is the pattern the router matched (`/v2/campaigns/:campaign_code`), never the
 * path itself, so its values stay few: the router every route layer adds to is wrapped, so that
 * each route's handler notes its pattern for the request's fiber, where the counting reads it
 * when the answer is ready (the router's own `RouteContext` is gone by then, dropped with the
 * context of the middleware in between). A request no endpoint matched is `route="unmatched"`.
 *
 * What it costs per request is kept to a few map look-ups: the note is keyed by the fiber in a
 * plain map (deleted as the request is counted; a weak map's entries, or a property added to
 * Node's request, cost the garbage collector or Node's own code more), and the labelled
 * metrics are found by their labels' own strings, never by a key built per request. A global
 * middleware of the router rather than the server's `middleware` option: a server with no
 * middleware (and no spans) runs each request in one continuation frame, which the option gives
 * up for every request, counted or not.
 *
 * @since 0.1.0
 */
import * as Metrics from "@voice-agent/core/Metrics"
import { Clock, Context, Effect, Layer, Metric } from "effect"
import type { Fiber } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest } from "effect/http"
import type { HttpServerResponse } from "effect/http"

/** `metric` with the labels of each (method, route, status), built once per distinct three. */
const labelledBy = <I, S>(metric: Metric.Metric<I, S>, withStatus: boolean) => {
  const byRoute = new Map<string, Map<string, Map<number, Metric.Metric<I, S>>>>()
  return (method: string, route: string, status: number): Metric.Metric<I, S> => {
    let byMethod = byRoute.get(route)
    if (byMethod === undefined) byRoute.set(route, byMethod = new Map())
    let byStatus = byMethod.get(method)
    if (byStatus === undefined) byMethod.set(method, byStatus = new Map())
    const key = withStatus ? status : 0
    let found = byStatus.get(key)
    if (found === undefined) {
      found = Metric.withAttributes(metric, withStatus ? { method, route, status: String(status) } : { method, route })
      byStatus.set(key, found)
    }
    return found
  }
}

const requests = labelledBy(Metrics.httpRequests, true)
const durations = labelledBy(Metrics.httpRequestDuration, false)

/** The pattern of the lowest-priority route that answers what no endpoint matches (404). */
const notFoundPath = "/*"

/** The pattern each request in flight matched, by the fiber that runs it. */
type Matched = Map<Fiber.Fiber<unknown, unknown>, string>

const noting = <E, R>(matched: Matched, route: HttpRouter.Route<E, R>): HttpRouter.Route<E, R> => {
  const pattern = route.path === notFoundPath ? "unmatched" : route.path
  return {
    ...route,
    handler: Effect.withFiber((fiber) => {
      matched.set(fiber, pattern)
      return route.handler
    })
  }
}

const wrap = (router: HttpRouter.HttpRouter, matched: Matched): HttpRouter.HttpRouter =>
  HttpRouter.HttpRouter.of({
    ...router,
    prefixed: (prefix) => wrap(router.prefixed(prefix), matched),
    add: (method, path, handler, options) =>
      router.addAll([noting(matched, HttpRouter.route(method, path, handler, options))]),
    addAll: (routes) => router.addAll(routes.map((route) => noting(matched, route)) as never)
  })

/**
 * Counts and times each request that reaches the router (a global middleware of it).
 */
const countRequests = (matched: Matched) =>
<E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.withFiber((fiber) => {
    const method = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).method
    const clock = fiber.getRef(Clock.Clock)
    const start = clock.currentTimeNanosUnsafe()
    return Effect.onExit(httpEffect, (exit) => {
      const status = exit._tag === "Success"
        ? exit.value.status
        : HttpServerError.causeResponseStripped(exit.cause)[0].status
      const seconds = Number(clock.currentTimeNanosUnsafe() - start) / 1e9
      const route = matched.get(fiber) ?? "unmatched"
      matched.delete(fiber)
      Metrics.observeUnsafe(requests(method, route, status), 1)
      Metrics.observeUnsafe(durations(method, route, status), seconds)
      return Effect.void
    })
  })

/**
 * The routes of `app` noting their patterns, and every request counted: a global middleware of
 * the router installed before `app`'s own, so that it wraps them and sees the answers they made
 * of errors (the API's error bodies).
 *
 * @category layers
 */
export const counting = <A, E, R>(app: Layer.Layer<A, E, R>) =>
  Layer.unwrap(Effect.sync(() => {
    const matched: Matched = new Map()
    return app.pipe(
      Layer.provide(
        Layer.effect(HttpRouter.HttpRouter, Effect.map(HttpRouter.HttpRouter, (router) => wrap(router, matched)))
      ),
      Layer.provide(HttpRouter.middleware(countRequests(matched), { global: true }))
    )
  }))
