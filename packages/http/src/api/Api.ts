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
 * Effect 4.1 compiles a one-member union, such as core's `Modality = Schema.Literals(["sms"])`,
 * to `{ anyOf: [member] }` (it folds literal members into one `enum` only when there are
 * several), which Redocly's `no-illogical-composition-keywords` rightly flags. Such an `anyOf`
 * is its member, so inlining it changes no value the API accepts or returns. A member whose
 * keywords collide with the `anyOf`'s siblings is left as it is.
 */
const inlineSingleAnyOf = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(inlineSingleAnyOf)
  if (node === null || typeof node !== "object") return node
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, inlineSingleAnyOf(value)])
  )
  const { anyOf, ...siblings } = out
  if (!Array.isArray(anyOf) || anyOf.length !== 1) return out
  const [member] = anyOf
  if (
    member === null || typeof member !== "object" || Object.keys(member).some((key) => Object.hasOwn(siblings, key))
  ) return out
  return { ...siblings, ...member }
}

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
    description: "Voice Agent Service API: campaigns, contacts, conversations, SMS",
    license: { name: "MIT", identifier: "MIT" },
    // The daemon's host and port are the operator's choice (--host, --port, a proxy in front),
    // so the one server is relative: the origin this document was fetched from. It is also
    // what OpenAPI assumes when `servers` is absent, stated so tools and linters see it.
    servers: [{ url: "/", description: "This voice-agent daemon (the origin serving this document)" }],
    transform: (spec) => inlineSingleAnyOf(spec) as typeof spec
  }))
{}
