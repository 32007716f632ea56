/**
 * Router middleware that marks every answer of the deprecated v1 campaign and contact paths
 * (LegacyApi) with `Deprecation: true`, error answers included.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

const deprecatedPath = /^\/v1\/(campaigns|contacts)(\/|\?|$)/

/**
 * @category guards
 */
export const isDeprecatedPath = (url: string): boolean => deprecatedPath.test(url)

/**
 * @category layers
 */
export const DeprecationHeaderLive = HttpRouter.middleware(
  (httpEffect) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const response = yield* httpEffect
      return isDeprecatedPath(request.url) ? HttpServerResponse.setHeader(response, "deprecation", "true") : response
    }),
  { global: true }
)
