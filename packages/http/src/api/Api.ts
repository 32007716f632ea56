/**
 * The whole HTTP API: every group, the FastAPI-shaped validation errors, OpenAPI metadata.
 * Servers (HttpApp) and clients (HttpApiClient.make(Api)) both derive from this definition.
 *
 * @since 0.1.0
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { AdminApi } from "./AdminApi.ts"
import { CampaignsApi } from "./CampaignsApi.ts"
import { ContactsApi } from "./ContactsApi.ts"
import { ConversationsApi } from "./ConversationsApi.ts"
import { LegacyApi } from "./LegacyApi.ts"
import { MessagesApi, SendSmsApi } from "./MessagesApi.ts"
import { FastApiValidation } from "./Validation.ts"

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
  .middleware(FastApiValidation)
  .annotate(HttpApi.ParseOptions, { errors: "all" })
  .annotateMerge(OpenApi.annotations({
    title: "voice-agent",
    version: "master",
    description: "Voice Agent Service API: campaigns, contacts, conversations, SMS"
  }))
{}
