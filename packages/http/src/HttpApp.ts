/**
 * The HTTP application as route layers: every group's handlers, `GET /openapi.json`, the
 * `/docs` page and `GET /` (to the web console, which the daemon serves). Serve it with
 * `HttpRouter.serve(HttpApp.layer)` over an HTTP server layer; it needs the storage ports
 * (`StorageOutage` included: 503 while the database is out of reach), ServerSecrets, the Carrier
 * (send-sms), the RecordingStore and the admin token provided. Optional services (answered 501
 * without them): `DirectCalls` (create-outbound), `Providers` (llm/generate), `ModelProxy` (the
 * `openai/v1/*` proxy).
 *
 * @since 0.1.0
 */
import { CampaignService } from "@voice-agent/core/CampaignService"
import { ContactService } from "@voice-agent/core/ContactService"
import { ConversationService } from "@voice-agent/core/ConversationService"
import { ListenTickets } from "@voice-agent/core/ListenTicket"
import { MessageService } from "@voice-agent/core/MessageService"
import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar, OpenApi } from "effect/http-api"
import { Api, documented, pageVersion } from "./api/Api.ts"
import { AdminHandlers, AdminToken } from "./handlers/Admin.ts"
import { AgentsHandlers } from "./handlers/Agents.ts"
import { CampaignsHandlers } from "./handlers/Campaigns.ts"
import { ContactsHandlers } from "./handlers/Contacts.ts"
import { ConversationsHandlers } from "./handlers/Conversations.ts"
import { CursorCodec } from "./handlers/Cursor.ts"
import { DeprecationHeaderLive } from "./handlers/Deprecation.ts"
import { DirectCallsHandlers } from "./handlers/DirectCalls.ts"
import * as ErrorBodies from "./handlers/ErrorBodies.ts"
import { LegacyHandlers } from "./handlers/Legacy.ts"
import { MessagesHandlers } from "./handlers/Messages.ts"
import * as ModelProxy from "./handlers/ModelProxy.ts"
import { LlmHandlers, SdkHousekeepingHandlers } from "./handlers/Sdk.ts"
import { WebhooksHandlers } from "./handlers/Webhooks.ts"

/**
 * The core services the handlers delegate to, built once for the whole app.
 *
 * @category layers
 */
export const servicesLayer = Layer.mergeAll(
  CampaignService.layer,
  ContactService.layer,
  ConversationService.layer,
  ListenTickets.layer,
  MessageService.layer,
  CursorCodec.layer
)

/**
 * Routes of the documented API.
 *
 * @category layers
 */
export const apiLayer = HttpApiBuilder.layer(Api).pipe(
  Layer.provide([
    MessagesHandlers,
    CampaignsHandlers,
    ContactsHandlers,
    ConversationsHandlers,
    LegacyHandlers,
    AdminHandlers,
    WebhooksHandlers,
    AgentsHandlers,
    DirectCallsHandlers,
    SdkHousekeepingHandlers,
    LlmHandlers
  ]),
  Layer.provide(servicesLayer)
)

/**
 * The OpenAPI document at `/openapi.json` and the API reference page at `/docs` (Scalar, served
 * from the package itself: no CDN needed), both of the API as this installation offers it: the
 * admin API's operations only when it is on (`AdminToken`).
 *
 * @category layers
 */
export const docsLayer = Layer.unwrap(Effect.map(AdminToken, (token) => {
  const api = documented({ admin: Option.isSome(token) })
  const document = HttpServerResponse.jsonUnsafe(OpenApi.fromApi(api))
  return Layer.mergeAll(
    HttpRouter.add("GET", "/openapi.json", Effect.succeed(document)),
    HttpApiScalar.layer(api.annotateMerge(OpenApi.annotations({ version: pageVersion })), {
      path: "/docs",
      // Preselects the API key scheme (api/Security.ts `Authorization`), so "Test Request" sends
      // `Authorization: Bearer <key>` as soon as a key is entered.
      scalar: { authentication: { preferredSecurityScheme: "bearer" } }
    })
  )
}))

/**
 * `GET /`: a redirect to the web console (docs/CONSOLE.md; the daemon serves it at
 * `/console/`), the page a person who opens the daemon's address in a browser expects. Before
 * the catch-all 404 of ErrorBodies: the router keeps the first route registered for `/`.
 *
 * @category layers
 */
export const rootLayer = HttpRouter.add("GET", "/", Effect.succeed(HttpServerResponse.redirect("/console/")))

/**
 * @category layers
 */
export const layer = Layer.mergeAll(
  apiLayer,
  docsLayer,
  rootLayer,
  ModelProxy.route,
  DeprecationHeaderLive,
  ErrorBodies.layer
)
