/**
 * Agent definitions (docs/AGENTS.md): CRUD under `/v2/agents`, attaching
 * one to a campaign (`/v2/campaigns/{campaign_code}/agent`) or to one of the organization's
 * numbers for its inbound calls (`/v2/phone-numbers/{phone_number}/agent`, our extension), and
 * the values an agent collected in a call (`/v1/conversations/{call_id}/fields`).
 *
 * Decisions (docs/AGENTS.md has the why):
 * - Same bearer key as the rest; the campaign attachment also needs outbound dialing (403), as
 *   every campaign endpoint does; definitions and numbers do not (inbound calls need no
 *   outbound dialing).
 * - `GET /v2/agents` is keyset-paginated like the contact and conversation lists (`limit` 1 to
 *   100, default 50, `after`, `next_cursor`, `has_more`; a bad `limit` or `after` is a 400).
 * - `DELETE` answers `{ok: true}` like a campaign delete; 409 while the definition is attached
 *   to a live campaign or a number.
 * - The attach endpoints answer the attachment (`{campaign_code, agent_id}`, `{phone_number,
 *   agent_id}`), and each has a `GET` twin: the Campaign resource may carry no extra field
 *   (docs/DECISIONS.md, "Campaigns") and the number list is fixed too, so this is where it is read.
 *
 * @since 0.1.0
 */
import {
  AgentList,
  AgentResource,
  AttachAgentRequest,
  CampaignAgent,
  ConversationFields,
  CreateAgentRequest,
  DeleteAgentResponse,
  PhoneNumberAgent,
  UpdateAgentRequest
} from "@voice-agent/core/AgentDefinition"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, Conflict, NotFound } from "./HttpErrors.ts"
import { Authorization, OutboundDialing } from "./Security.ts"
import { storableBody } from "./Storable.ts"

const agentId = { agent_id: Schema.String }
const campaignCode = { campaign_code: Schema.String }
const phoneNumber = { phone_number: Schema.String }

/**
 * @category models
 */
export class AgentsApi extends HttpApiGroup.make("agents")
  .add(
    HttpApiEndpoint.post("create", "/v2/agents", {
      payload: storableBody(CreateAgentRequest),
      success: AgentResource.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Conflict]
    }).annotate(OpenApi.Summary, "Create an agent"),
    HttpApiEndpoint.get("list", "/v2/agents", {
      query: { limit: Schema.optional(Schema.String), after: Schema.optional(Schema.String) },
      success: AgentList,
      error: BadRequest
    }).annotate(OpenApi.Summary, "List agents"),
    HttpApiEndpoint.get("get", "/v2/agents/:agent_id", {
      params: agentId,
      success: AgentResource,
      error: NotFound
    }).annotate(OpenApi.Summary, "Get an agent"),
    HttpApiEndpoint.patch("update", "/v2/agents/:agent_id", {
      params: agentId,
      payload: storableBody(UpdateAgentRequest),
      success: AgentResource,
      error: [BadRequest, NotFound, Conflict]
    }).annotate(OpenApi.Summary, "Update an agent"),
    HttpApiEndpoint.delete("delete", "/v2/agents/:agent_id", {
      params: agentId,
      success: DeleteAgentResponse,
      error: [NotFound, Conflict]
    }).annotate(OpenApi.Summary, "Delete an agent"),
    HttpApiEndpoint.get("campaignAgent", "/v2/campaigns/:campaign_code/agent", {
      params: campaignCode,
      success: CampaignAgent,
      error: NotFound
    }).middleware(OutboundDialing).annotate(OpenApi.Summary, "Get a campaign's agent"),
    HttpApiEndpoint.put("attachToCampaign", "/v2/campaigns/:campaign_code/agent", {
      params: campaignCode,
      payload: AttachAgentRequest,
      success: CampaignAgent,
      error: NotFound
    }).middleware(OutboundDialing).annotate(OpenApi.Summary, "Attach an agent to a campaign"),
    HttpApiEndpoint.get("numberAgent", "/v2/phone-numbers/:phone_number/agent", {
      params: phoneNumber,
      success: PhoneNumberAgent,
      error: NotFound
    }).annotate(OpenApi.Summary, "Get a phone number's inbound agent"),
    HttpApiEndpoint.put("attachToNumber", "/v2/phone-numbers/:phone_number/agent", {
      params: phoneNumber,
      payload: AttachAgentRequest,
      success: PhoneNumberAgent,
      error: NotFound
    }).annotate(OpenApi.Summary, "Attach an agent to a phone number"),
    HttpApiEndpoint.get("fields", "/v1/conversations/:call_id/fields", {
      params: { call_id: Schema.String },
      success: ConversationFields,
      error: NotFound
    }).annotate(OpenApi.Summary, "Collected fields")
  )
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({
    title: "Agents",
    description: "Agent definitions (persona, task, providers), their campaigns and numbers, collected fields"
  }))
{}
