/**
 * The whole HTTP API: every group, the FastAPI-shaped validation errors, OpenAPI metadata.
 * Servers (HttpApp) and clients (HttpApiClient.make(Api)) both derive from this definition.
 *
 * @since 0.1.0
 */
import { HttpApi, OpenApi } from "effect/http-api"
import packageJson from "../../package.json" with { type: "json" }
import { AdminApi } from "./AdminApi.ts"
import { AgentsApi } from "./AgentsApi.ts"
import { CampaignsApi } from "./CampaignsApi.ts"
import { ContactsApi } from "./ContactsApi.ts"
import { ConversationsApi } from "./ConversationsApi.ts"
import { DirectCallsApi } from "./DirectCallsApi.ts"
import { LegacyApi } from "./LegacyApi.ts"
import { MessagesApi, SendSmsApi } from "./MessagesApi.ts"
import { LlmApi, SdkHousekeepingApi } from "./SdkApi.ts"
import { FastApiValidation } from "./Validation.ts"
import { WebhooksApi } from "./WebhooksApi.ts"

/**
 * @category models
 */
export class Api extends HttpApi.make("voice-agent")
  .add(SendSmsApi)
  .add(MessagesApi)
  .add(CampaignsApi)
  .add(ContactsApi)
  .add(ConversationsApi)
  .add(LegacyApi)
  .add(AdminApi)
  .add(WebhooksApi)
  .add(AgentsApi)
  .add(DirectCallsApi)
  .add(SdkHousekeepingApi)
  .add(LlmApi)
  .middleware(FastApiValidation)
  .annotate(HttpApi.ParseOptions, { errors: "all" })
  .annotateMerge(OpenApi.annotations({
    title: "voice-agent",
    // The documented API's own label for its machine-readable description (its Versioning 4);
    // the reference page shows this engine's version instead (`pageVersion`).
    version: "master",
    description: "Voice Agent Service API: campaigns, contacts, conversations, SMS",
    license: { name: "MIT", identifier: "MIT" },
    // The daemon's host and port are the operator's choice (--host, --port, a proxy in front),
    // so the one server is relative: the origin this document was fetched from. It is also
    // what OpenAPI assumes when `servers` is absent, stated so tools and linters see it.
    servers: [{ url: "/", description: "This voice-agent daemon (the origin serving this document)" }]
  }))
{}

/**
 * The API as an installation documents it (`/openapi.json`, `/docs`): without the admin API's
 * groups when the admin API is off, since their routes then answer 404 as if they did not exist.
 * The routes themselves are the same either way.
 *
 * @category models
 */
export const documented = (options: { readonly admin: boolean }) =>
  Api.add(
    Api.groups.admin.annotate(OpenApi.Exclude, !options.admin),
    Api.groups.webhooks.annotate(OpenApi.Exclude, !options.admin)
  )

/**
 * The version the reference page's badge shows: this package's, kept in package.json only. The
 * document at `/openapi.json` keeps the label `master` that the documented API gives it.
 *
 * @category models
 */
export const pageVersion: string = packageJson.version
