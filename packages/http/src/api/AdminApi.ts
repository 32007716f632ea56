/**
 * The admin API (docs/ADMIN.md): organizations, their API keys, phone numbers, Do-Not-Call
 * entries, and inbound messages injected as if a carrier delivered them.
 *
 * Authorized by `Authorization: Bearer $VOICE_AGENT_ADMIN_TOKEN` (middleware `AdminAuthorization`,
 * implemented in handlers/Admin.ts). With no token configured every route answers 404, as if
 * the admin API did not exist.
 *
 * Decisions (written down in docs/ADMIN.md):
 * - Phone numbers in bodies and queries are normalized to E.164 (any common formatting, default
 *   region US); one that cannot be is a 422 validation error at its `loc`.
 * - `null` for an optional field means absent, as for the public API.
 * - `PATCH` with no field: 400 `{detail}`, like the campaign update.
 * - An inbound message to a number the organization does not own: 400 (as send-sms answers for
 *   an unowned sender).
 * - The lists (for the web console's admin pages): organizations and an organization's keys and
 *   numbers are plain arrays, oldest first (an installation has few; a key's text is never
 *   shown again); the DNC list, which may hold millions of numbers, is keyset-paginated in
 *   number order like the public lists (`limit` 1 to 1000, default 100; a bad `limit` or
 *   `after` is a 400).
 *
 * @since 0.1.0
 */
import { MaxConcurrency } from "@voice-agent/core/Campaign"
import { InboundMessage, MaxSmsLength } from "@voice-agent/core/Message"
import { DefaultMaxConcurrency, PhoneNumberResource } from "@voice-agent/core/Organization"
import type { Organization, OrganizationSettings } from "@voice-agent/core/Organization"
import { PageFields } from "@voice-agent/core/Page"
import { E164, normalize } from "@voice-agent/core/PhoneNumber"
import { fromMillis, parseIsoInstant, toIso } from "@voice-agent/core/Time"
import { Effect, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"
import {
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi
} from "effect/http-api"
import { BadRequest, Conflict, NotFound, Unauthorized } from "./HttpErrors.ts"
import { bearerToken } from "./Security.ts"
import { storableBody } from "./Storable.ts"

/**
 * @category services
 */
export class AdminAuthorization extends HttpApiMiddleware.Service<AdminAuthorization>()(
  "@voice-agent/http/api/AdminApi/AdminAuthorization",
  {
    security: {
      adminToken: bearerToken.pipe(
        HttpApiSecurity.annotate(OpenApi.Description, "The daemon's VOICE_AGENT_ADMIN_TOKEN")
      )
    },
    error: [Unauthorized, NotFound]
  }
) {}

/**
 * A phone number in any common formatting, decoded to E.164 (default region US).
 *
 * @category schemas
 */
export const NormalizedPhoneNumber = Schema.String.annotate({
  identifier: "PhoneNumberInput",
  description: "A phone number in any common formatting, normalized to E.164 (default region US)"
}).pipe(
  Schema.decodeTo(
    E164,
    SchemaTransformation.transformEffect({
      decode: (input, options) =>
        Result.match(normalize(input), {
          onSuccess: (e164): Effect.Effect<string> => Effect.succeed(e164),
          onFailure: (message) => Effect.fail(new SchemaIssue.InvalidValue({ message }, input, options))
        }),
      encode: Effect.succeed
    })
  )
)

const OrganizationName = Schema.String.check(
  Schema.isMinLength(1),
  Schema.isMaxLength(200),
  Schema.makeFilter((s: string) => s.trim().length > 0 || "Expected a name that is not only white space")
)

/**
 * The settings of a new organization when the request leaves them out (docs/ADMIN.md).
 *
 * @category constructors
 */
export const organizationDefaults: Omit<OrganizationSettings, "name"> = {
  outboundDialingEnabled: true,
  smsRegistered: true,
  billingIssue: false,
  maxConcurrency: DefaultMaxConcurrency
}

const optionalSetting = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

/**
 * Body of `POST /admin/v1/organizations`.
 *
 * @category schemas
 */
export const CreateOrganizationRequest = Schema.Struct({
  name: OrganizationName,
  outbound_dialing_enabled: optionalSetting(Schema.Boolean),
  sms_registered: optionalSetting(Schema.Boolean),
  billing_issue: optionalSetting(Schema.Boolean),
  max_concurrency: optionalSetting(MaxConcurrency)
}).annotate({ identifier: "CreateOrganizationRequest" })

/**
 * Body of `PATCH /admin/v1/organizations/{org_id}`: any of the create fields.
 *
 * @category schemas
 */
export const UpdateOrganizationRequest = Schema.Struct({
  name: optionalSetting(OrganizationName),
  outbound_dialing_enabled: optionalSetting(Schema.Boolean),
  sms_registered: optionalSetting(Schema.Boolean),
  billing_issue: optionalSetting(Schema.Boolean),
  max_concurrency: optionalSetting(MaxConcurrency)
}).annotate({ identifier: "UpdateOrganizationRequest" })

/**
 * @category schemas
 */
export const OrganizationResource = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  outbound_dialing_enabled: Schema.Boolean,
  sms_registered: Schema.Boolean,
  billing_issue: Schema.Boolean,
  max_concurrency: Schema.Int,
  created_datetime: Schema.String
}).annotate({ identifier: "Organization" })

/**
 * @category encoding
 */
export const toOrganizationResource = (organization: Organization): typeof OrganizationResource.Type => ({
  id: organization.id,
  name: organization.name,
  outbound_dialing_enabled: organization.outboundDialingEnabled,
  sms_registered: organization.smsRegistered,
  billing_issue: organization.billingIssue,
  max_concurrency: organization.maxConcurrency,
  created_datetime: toIso(organization.createdAt)
})

/**
 * @category schemas
 */
export const IssuedApiKeyResource = Schema.Struct({
  id: Schema.String,
  api_key: Schema.String.annotate({ description: "The plaintext key; shown only in this response" })
}).annotate({ identifier: "IssuedApiKey" })

/**
 * An API key as listed (its text is shown only when it is issued).
 *
 * @category schemas
 */
export const ApiKeyResource = Schema.Struct({
  id: Schema.String,
  created_datetime: Schema.String,
  revoked_datetime: Schema.NullOr(Schema.String).annotate({ description: "When it was revoked; null while live" })
}).annotate({ identifier: "ApiKey" })

/**
 * A page of an organization's Do-Not-Call list, in number order.
 *
 * @category schemas
 */
export const DncList = Schema.Struct({
  phone_numbers: Schema.Array(
    Schema.Struct({ phone_number: Schema.String, created_datetime: Schema.String }).annotate({
      identifier: "DncEntry"
    })
  ),
  ...PageFields
}).annotate({ identifier: "DncList" })

/**
 * @category schemas
 */
export const AddPhoneNumberRequest = Schema.Struct({
  phone_number: NormalizedPhoneNumber,
  sms_enabled: optionalSetting(Schema.Boolean)
}).annotate({ identifier: "AddPhoneNumberRequest" })

/**
 * @category schemas
 */
export const AddDncRequest = Schema.Struct({
  phone_numbers: Schema.Array(NormalizedPhoneNumber).check(Schema.isMinLength(1), Schema.isMaxLength(10_000))
}).annotate({ identifier: "AddDncRequest" })

/**
 * An ISO 8601 instant as clients send it (core/Time `parseIsoInstant`; no offset means UTC).
 *
 * @category schemas
 */
export const Timestamp = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Date,
    SchemaTransformation.transformEffect({
      decode: (input, options) => {
        const millis = parseIsoInstant(input)
        return millis === undefined
          ? Effect.fail(
            new SchemaIssue.InvalidValue(
              { message: "Expected an ISO 8601 timestamp such as 2026-11-21T05:10:00Z" },
              input,
              options
            )
          )
          : Effect.succeed(fromMillis(millis))
      },
      encode: (date) => Effect.succeed(toIso(date))
    })
  )
).annotate({ description: "An ISO 8601 timestamp; without an offset it is UTC" })

/**
 * Body of `POST /admin/v1/organizations/{org_id}/inbound-messages`.
 *
 * @category schemas
 */
export const InboundMessageRequest = Schema.Struct({
  from_number: NormalizedPhoneNumber,
  to_number: NormalizedPhoneNumber,
  content: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(MaxSmsLength)),
  received_at: optionalSetting(Timestamp)
}).annotate({ identifier: "InboundMessageRequest" })

/**
 * Body of `POST /admin/v1/organizations/{org_id}/inbound-calls`.
 *
 * @category schemas
 */
export const InboundCallRequest = Schema.Struct({
  from_number: NormalizedPhoneNumber,
  to_number: NormalizedPhoneNumber
}).annotate({ identifier: "InboundCallRequest" })

/**
 * Response of `POST /admin/v1/organizations/{org_id}/inbound-calls`.
 *
 * @category schemas
 */
export const InboundCallResource = Schema.Struct({ call_id: Schema.String }).annotate({
  identifier: "InboundCall"
})

const orgId = { org_id: Schema.String }

/**
 * @category models
 */
export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createOrganization", "/admin/v1/organizations", {
      payload: storableBody(CreateOrganizationRequest),
      success: OrganizationResource.pipe(HttpApiSchema.status(201))
    }).annotate(OpenApi.Summary, "Create an organization"),
    HttpApiEndpoint.get("listOrganizations", "/admin/v1/organizations", {
      success: Schema.Array(OrganizationResource)
    }).annotate(OpenApi.Summary, "List organizations"),
    HttpApiEndpoint.get("getOrganization", "/admin/v1/organizations/:org_id", {
      params: orgId,
      success: OrganizationResource,
      error: NotFound
    }).annotate(OpenApi.Summary, "Get an organization"),
    HttpApiEndpoint.patch("updateOrganization", "/admin/v1/organizations/:org_id", {
      params: orgId,
      payload: storableBody(UpdateOrganizationRequest),
      success: OrganizationResource,
      error: [BadRequest, NotFound]
    }).annotate(OpenApi.Summary, "Update an organization"),
    HttpApiEndpoint.post("createApiKey", "/admin/v1/organizations/:org_id/api-keys", {
      params: orgId,
      success: IssuedApiKeyResource.pipe(HttpApiSchema.status(201)),
      error: NotFound
    }).annotate(OpenApi.Summary, "Issue an API key"),
    HttpApiEndpoint.get("listApiKeys", "/admin/v1/organizations/:org_id/api-keys", {
      params: orgId,
      success: Schema.Array(ApiKeyResource),
      error: NotFound
    }).annotate(OpenApi.Summary, "List API keys"),
    HttpApiEndpoint.delete("revokeApiKey", "/admin/v1/organizations/:org_id/api-keys/:key_id", {
      params: { ...orgId, key_id: Schema.String },
      success: Schema.Struct({ ok: Schema.Literal(true) }),
      error: NotFound
    }).annotate(OpenApi.Summary, "Revoke an API key"),
    HttpApiEndpoint.get("listPhoneNumbers", "/admin/v1/organizations/:org_id/phone-numbers", {
      params: orgId,
      success: Schema.Array(PhoneNumberResource),
      error: NotFound
    }).annotate(OpenApi.Summary, "List phone numbers"),
    HttpApiEndpoint.post("addPhoneNumber", "/admin/v1/organizations/:org_id/phone-numbers", {
      params: orgId,
      payload: AddPhoneNumberRequest,
      success: PhoneNumberResource.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Conflict]
    }).annotate(OpenApi.Summary, "Add a phone number"),
    HttpApiEndpoint.get("listDnc", "/admin/v1/organizations/:org_id/dnc", {
      params: orgId,
      query: { limit: Schema.optional(Schema.String), after: Schema.optional(Schema.String) },
      success: DncList,
      error: [BadRequest, NotFound]
    }).annotate(OpenApi.Summary, "List Do-Not-Call numbers"),
    HttpApiEndpoint.post("addDnc", "/admin/v1/organizations/:org_id/dnc", {
      params: orgId,
      payload: AddDncRequest,
      success: Schema.Struct({ added: Schema.Int }),
      error: NotFound
    }).annotate(OpenApi.Summary, "Add Do-Not-Call numbers"),
    HttpApiEndpoint.delete("removeDnc", "/admin/v1/organizations/:org_id/dnc", {
      params: orgId,
      query: { phone_number: NormalizedPhoneNumber },
      success: Schema.Struct({ deleted: Schema.Int }),
      error: NotFound
    }).annotate(OpenApi.Summary, "Remove a Do-Not-Call number"),
    HttpApiEndpoint.post("createInboundMessage", "/admin/v1/organizations/:org_id/inbound-messages", {
      params: orgId,
      payload: storableBody(InboundMessageRequest),
      success: InboundMessage.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound]
    }).annotate(OpenApi.Summary, "Simulate an inbound message"),
    HttpApiEndpoint.post("createInboundCall", "/admin/v1/organizations/:org_id/inbound-calls", {
      params: orgId,
      payload: storableBody(InboundCallRequest),
      success: InboundCallResource.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Conflict]
    }).annotate(OpenApi.Summary, "Simulate an inbound call")
      .annotate(
        OpenApi.Description,
        "The simulated carrier calls `to_number` from `from_number`; the call is answered by the number's agent (or a remote agent listening on it) and listed as inbound. A call the listening remote agents decline is still created and listed: never answered, `termination_reason` `no-answer`, 0 s. 409 when the daemon runs another carrier."
      )
  )
  .middleware(AdminAuthorization)
  .annotateMerge(OpenApi.annotations({
    title: "Admin",
    description: "Organizations, API keys, phone numbers and DNC entries; enabled by VOICE_AGENT_ADMIN_TOKEN"
  }))
{}
