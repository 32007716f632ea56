/**
 * Handlers of the agent endpoints (api/AgentsApi.ts): each a few lines over the AgentRepository
 * and ConversationRepository ports and core/AgentDefinition's pure rules. The organization is
 * always the key's.
 *
 * Provider names are checked against the `Providers` service when the app is given one (the
 * daemon builds it from its configuration); without one nothing is configured, so only absent
 * or `null` names are accepted. Either way an unknown name is a 400 naming the configured ones.
 *
 * @since 0.1.0
 */
import type { CreateAgentRequest, UpdateAgentRequest } from "@voice-agent/core/AgentDefinition"
import {
  fromCreateRequest,
  fromUpdateRequest,
  isAgentId,
  toAgentResource,
  unknownProvider
} from "@voice-agent/core/AgentDefinition"
import { AgentNotFound, ConversationNotFound, InvalidCursor, NoFieldsToUpdate } from "@voice-agent/core/Errors"
import { pageInfo } from "@voice-agent/core/Page"
import { normalize } from "@voice-agent/core/PhoneNumber"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Providers } from "@voice-agent/core/ports/Providers"
import { fromMillis, nowDate } from "@voice-agent/core/Time"
import { Effect, Layer, Option, Result } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { NotFound } from "../api/HttpErrors.ts"
import { CurrentOrganization } from "../api/Security.ts"
import { CursorCodec } from "./Cursor.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { parseLimit } from "./QueryParams.ts"
import { AuthorizationLive, OutboundDialingLive } from "./Security.ts"
import { FastApiValidationLive } from "./Validation.ts"

const numberNotFound = (raw: string) =>
  new NotFound({ detail: `Phone number ${JSON.stringify(raw)} is not one of this organization's numbers` })

/**
 * @category layers
 */
export const AgentsHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "agents",
  Effect.fn(function*(handlers) {
    const agents = yield* AgentRepository
    const conversations = yield* ConversationRepository
    const cursors = yield* CursorCodec
    const configured = Option.getOrUndefined(Option.map(yield* Effect.serviceOption(Providers), (p) => p.names))

    const checkProviders = (request: CreateAgentRequest | UpdateAgentRequest) => {
      const unknown = unknownProvider(configured, request)
      return unknown === undefined ? Effect.void : Effect.fail(unknown)
    }

    /** The organization's number the path names (any common formatting), checked by the store. */
    const ownNumber = (raw: string) =>
      Result.match(normalize(raw), {
        onFailure: () => Effect.fail(numberNotFound(raw)),
        onSuccess: (e164) => Effect.succeed(e164)
      })

    return handlers.handleAll({
      create: ({ payload }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          yield* checkProviders(payload)
          return toAgentResource(yield* agents.create(organization.id, fromCreateRequest(payload), yield* nowDate))
        }).pipe(mapDomainErrors),
      list: ({ query }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const limit = yield* parseLimit(query.limit, { min: 1, max: 100, fallback: 50 })
          let after: { readonly createdAt: Date; readonly id: string } | undefined
          if (query.after !== undefined) {
            const position = yield* cursors.decode("agents", organization.id, query.after)
            if (typeof position.t !== "number" || typeof position.id !== "string" || !isAgentId(position.id)) {
              return yield* new InvalidCursor()
            }
            after = { createdAt: fromMillis(position.t), id: position.id }
          }
          const page = yield* agents.list({ organizationId: organization.id, limit, after })
          return {
            agents: page.agents.map(toAgentResource),
            ...pageInfo(
              page.agents,
              page.hasMore,
              (last) => cursors.encode("agents", organization.id, { t: last.createdAt.getTime(), id: last.id })
            )
          }
        }).pipe(mapDomainErrors),
      get: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const found = yield* agents.get(organization.id, params.agent_id)
          if (Option.isNone(found)) return yield* new AgentNotFound({ agentId: params.agent_id })
          return toAgentResource(found.value)
        }).pipe(mapDomainErrors),
      update: ({ params, payload }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          // The request is checked (400) before the agent is looked up (404), as for campaigns.
          if (Object.keys(payload).length === 0) return yield* new NoFieldsToUpdate()
          yield* checkProviders(payload)
          const patch = fromUpdateRequest(payload)
          return toAgentResource(yield* agents.update(organization.id, params.agent_id, patch, yield* nowDate))
        }).pipe(mapDomainErrors),
      delete: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          yield* agents.delete(organization.id, params.agent_id, yield* nowDate)
          return { ok: true }
        }).pipe(mapDomainErrors),
      campaignAgent: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const agentId = yield* agents.campaignAgent(organization.id, params.campaign_code)
          return { campaign_code: params.campaign_code, agent_id: agentId }
        }).pipe(mapDomainErrors),
      attachToCampaign: ({ params, payload }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          yield* agents.attachToCampaign(organization.id, params.campaign_code, payload.agent_id)
          return { campaign_code: params.campaign_code, agent_id: payload.agent_id }
        }).pipe(mapDomainErrors),
      numberAgent: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const number = yield* ownNumber(params.phone_number)
          const agentId = yield* agents.numberAgent(organization.id, number).pipe(
            Effect.catchTag("PhoneNumberNotOwned", () => Effect.fail(numberNotFound(params.phone_number)))
          )
          return { phone_number: number, agent_id: agentId }
        }).pipe(mapDomainErrors),
      attachToNumber: ({ params, payload }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const number = yield* ownNumber(params.phone_number)
          yield* agents.attachToNumber(organization.id, number, payload.agent_id).pipe(
            Effect.catchTag("PhoneNumberNotOwned", () => Effect.fail(numberNotFound(params.phone_number)))
          )
          return { phone_number: number, agent_id: payload.agent_id }
        }).pipe(mapDomainErrors),
      fields: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const conversation = yield* conversations.findByCallId(organization.id, params.call_id)
          if (Option.isNone(conversation)) return yield* new ConversationNotFound({ callId: params.call_id })
          return { fields: yield* conversations.fields(conversation.value.id) }
        }).pipe(mapDomainErrors)
    })
  })
)

/**
 * The agent handlers with their middleware; needs the storage ports and the cursor codec, and
 * reads the `Providers` service if there is one.
 *
 * @category layers
 */
export const AgentsHandlers = AgentsHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, OutboundDialingLive, FastApiValidationLive])
)
