/**
 * HTTP requests by route and status, with their durations (core Metrics `httpRequests`,
 * `httpRequestDuration`), counted around the whole server so that every answer is seen as the
 * client gets it (after the error bodies, the 404 of unknown paths, the 503 of a database out
 * of reach).
 *
 * The route label is the pattern the router matched (`/v2/campaigns/:campaign_code`), never the
 * path itself, so its values stay few: {@link router} wraps the router every route is added to
 * and has each route's handler note its pattern for {@link middleware}, which counts the
 * request when its answer is ready. A request no route matched is `route="unmatched"`.
 *
 * @since 0.1.0
 */
import * as Metrics from "@voice-agent/core/Metrics"
import { Clock, Context, Effect, Layer, Metric } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest } from "effect/http"
import type { HttpServerResponse } from "effect/http"

/**
 * The route each request in flight matched, by the request's underlying message (the router
 * may hand the handler a modified request, never a new message): a weak map, not a service in
 * the request's context, which would copy the context on every request.
 */
const matchedRoutes = new WeakMap<object, string>()

/** Labelled instances by their labels joined, built once per distinct set. */
const cached = <I, S>(metric: Metric.Metric<I, S>) => {
  const instances = new Map<string, Metric.Metric<I, S>>()
  return (key: string, labels: Readonly<Record<string, string>>) => {
    let found = instances.get(key)
    if (found === undefined) {
      found = Metric.withAttributes(metric, labels)
      instances.set(key, found)
    }
    return found
  }
}

const requests = cached(Metrics.httpRequests)
const durations = cached(Metrics.httpRequestDuration)

const noting = <E, R>(route: HttpRouter.Route<E, R>): HttpRouter.Route<E, R> => {
  const pattern = route.path
  return {
    ...route,
    handler: Effect.withFiber((fiber) => {
      matchedRoutes.set(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).source, pattern)
      return route.handler
    })
  }
}

const wrap = (router: HttpRouter.HttpRouter): HttpRouter.HttpRouter =>
  HttpRouter.HttpRouter.of({
    ...router,
    prefixed: (prefix) => wrap(router.prefixed(prefix)),
    add: (method, path, handler, options) => router.addAll([noting(HttpRouter.route(method, path, handler, options))]),
    addAll: (routes) => router.addAll(routes.map(noting) as never)
  })

/**
 * The router, with every route added through it noting its pattern. Provide it to the route
 * layers (inside `HttpRouter.serve`).
 *
 * @category layers
 */
export const router: Layer.Layer<HttpRouter.HttpRouter, never, HttpRouter.HttpRouter> = Layer.effect(
  HttpRouter.HttpRouter,
  Effect.map(HttpRouter.HttpRouter, wrap)
)

/**
 * Counts and times each request (`HttpRouter.serve`'s `middleware` option).
 *
 * @category constructors
 */
export const middleware = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const clock = fiber.getRef(Clock.Clock)
    const start = clock.currentTimeNanosUnsafe()
    return httpEffect.pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          const status = exit._tag === "Success"
            ? exit.value.status
            : HttpServerError.causeResponseStripped(exit.cause)[0].status
          const seconds = Number(clock.currentTimeNanosUnsafe() - start) / 1e9
          const method = request.method
          const route = matchedRoutes.get(request.source) ?? "unmatched"
          const statusText = String(status)
          Metrics.observeUnsafe(
            requests(`${method} ${route} ${statusText}`, { method, route, status: statusText }),
            1
          )
          Metrics.observeUnsafe(durations(`${method} ${route}`, { method, route }), seconds)
        })
      )
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>
  })
