/**
 * The HTTP application as route layers: every group's handlers, `GET /openapi.json` and the
 * `/docs` page. Serve it with `HttpRouter.serve(HttpApp.layer)` over an HTTP server layer;
 * it needs the storage ports (and, for send-sms, the Carrier port) provided.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { Api } from "./api/Api.ts"
import { AdminHandlers } from "./handlers/Admin.ts"
import { CampaignsHandlers } from "./handlers/Campaigns.ts"

/**
 * Routes of the documented API plus its OpenAPI document.
 *
 * @category layers
 */
export const apiLayer = HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([CampaignsHandlers, AdminHandlers])
)

/**
 * The API reference page (Scalar, served from the package itself: no CDN needed).
 *
 * @category layers
 */
export const docsLayer = HttpApiScalar.layer(Api, { path: "/docs" })

/**
 * @category layers
 */
export const layer = Layer.mergeAll(apiLayer, docsLayer)
