/**
 * Storage port of agent definitions (docs/AGENTS.md): an organization's definitions, which
 * campaign and which of its numbers each is attached to, and the lookup the call runtime makes
 * when a call is answered.
 *
 * Deletion is soft and refused while attached: a definition attached to a live campaign or to
 * a number cannot be deleted (`AgentInUse`) until it is detached; a deleted one is invisible
 * here, its name is free again, and it can no longer be attached. Attaching and deleting one
 * definition at the same time are serialized, so a delete never leaves a campaign or number
 * pointing at a deleted definition.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"
import type { AgentDefinition, AgentPatch, NewAgentDefinition } from "../AgentDefinition.ts"
import type { AgentInUse, AgentNameTaken, AgentNotFound, CampaignNotFound, PhoneNumberNotOwned } from "../Errors.ts"

/**
 * A page of `GET /v2/agents`, newest first.
 *
 * @category models
 */
export interface AgentQuery {
  readonly organizationId: string
  readonly limit: number
  /** Keyset position: only definitions after this one in newest-first order. */
  readonly after?: { readonly createdAt: Date; readonly id: string } | undefined
}

/**
 * @category models
 */
export interface AgentPage {
  readonly agents: ReadonlyArray<AgentDefinition>
  readonly hasMore: boolean
}

/**
 * @category services
 */
export class AgentRepository extends Context.Service<AgentRepository, {
  /** Stores a definition with a fresh `agt-` id, created and updated at `now`. */
  readonly create: (
    organizationId: string,
    definition: NewAgentDefinition,
    now: Date
  ) => Effect.Effect<AgentDefinition, AgentNameTaken>
  readonly list: (query: AgentQuery) => Effect.Effect<AgentPage>
  readonly get: (organizationId: string, agentId: string) => Effect.Effect<Option.Option<AgentDefinition>>
  /** Applies the supplied fields and stamps `updatedAt` with `now`. */
  readonly update: (
    organizationId: string,
    agentId: string,
    patch: AgentPatch,
    now: Date
  ) => Effect.Effect<AgentDefinition, AgentNotFound | AgentNameTaken>
  /** Soft-deletes the definition, unless a live campaign or a number has it attached. */
  readonly delete: (
    organizationId: string,
    agentId: string,
    now: Date
  ) => Effect.Effect<void, AgentNotFound | AgentInUse>
  /**
   * Attaches the definition to the organization's live campaign with this `gcmp-` code
   * (`null` detaches whatever is attached). The campaign is checked first.
   */
  readonly attachToCampaign: (
    organizationId: string,
    campaignCode: string,
    agentId: string | null
  ) => Effect.Effect<void, CampaignNotFound | AgentNotFound>
  /**
   * Attaches the definition to one of the organization's numbers, for the inbound calls to it
   * (`null` detaches). The number (E.164) is checked first.
   */
  readonly attachToNumber: (
    organizationId: string,
    phoneNumber: string,
    agentId: string | null
  ) => Effect.Effect<void, PhoneNumberNotOwned | AgentNotFound>
  /** The id of the definition attached to the live campaign, if any. */
  readonly campaignAgent: (
    organizationId: string,
    campaignCode: string
  ) => Effect.Effect<string | null, CampaignNotFound>
  /** The id of the definition attached to the organization's number, if any. */
  readonly numberAgent: (
    organizationId: string,
    phoneNumber: string
  ) => Effect.Effect<string | null, PhoneNumberNotOwned>
  /**
   * The definition that runs the call `callId` (any organization: the caller is the call
   * runtime), in one query: for an outbound call the one attached to its campaign, for an
   * inbound call the one attached to the number called (the conversation's `toNumber`). None
   * when nothing is attached (or there is no such call): the runtime's default agent answers.
   */
  readonly forCall: (callId: string) => Effect.Effect<Option.Option<AgentDefinition>>
}>()("@voice-agent/core/ports/AgentRepository") {}
