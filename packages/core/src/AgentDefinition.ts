/**
 * Agent definitions as data (docs/AGENTS.md): the stored definition (a
 * name, a persona, a task, and optional instructions, language and provider names), the create
 * and update bodies of `/v2/agents` with their limits, the resource the API answers with, the
 * collected-fields answer. Its failures (`AgentNotFound`, `AgentNameTaken`, `AgentInUse`,
 * `UnknownProvider`) are with the other domain errors in `Errors`.
 *
 * Owns: the field rules that need no I/O (lengths, unique item keys, choices only and at least
 * two on `multiple_choice`, the language tag's shape) and the check of provider names against
 * the names a self-hoster configured. Reuses AgentTask's persona and task schemas and adds
 * the limits on top. Does not own storage (the `AgentRepository` port), nor which provider a
 * name resolves to (the `Providers` port).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { FieldValue } from "./AgentTask.ts"
import { Persona, Task } from "./AgentTask.ts"
import { UnknownProvider } from "./Errors.ts"
import { PageFields } from "./Page.ts"
import { toIso } from "./Time.ts"

/**
 * Limits of a definition. Item texts are what the agent says or asks, or reads as guidance, so
 * 2,000 characters is generous; the whole definition stays under about 0.5 MB.
 *
 * @category constructors
 */
export const AgentLimits = {
  nameMaxLength: 200,
  /** Statements, questions, descriptions, the objective, completion criteria, persona fields. */
  textMaxLength: 2000,
  keyMaxLength: 100,
  actionItemsMax: 100,
  choicesMax: 100,
  choiceMaxLength: 200,
  instructionsMaxLength: 20_000,
  providerNameMaxLength: 100,
  languageMaxLength: 35
} as const

/**
 * Prefix of every agent id: ids are `agt-` + 20 lowercase hex digits (80 random bits), as
 * campaign codes are `gcmp-` + 20.
 *
 * @category constructors
 */
export const AgentIdPrefix = "agt-"

/**
 * Whether a string has the shape of an agent id (anything else names no agent).
 *
 * @category guards
 */
export const isAgentId = (s: string): boolean => /^agt-[0-9a-f]{20}$/.test(s)

/**
 * The persona as stored and answered: every field present, `null` when not given.
 *
 * @category models
 */
export interface StoredPersona {
  readonly agent_name: string | null
  readonly organization_name: string | null
  readonly agent_purpose: string | null
  readonly voice: string | null
}

/**
 * A stored definition. Deleted definitions are invisible through the port.
 *
 * @category models
 */
export interface AgentDefinition {
  readonly id: string
  readonly organizationId: string
  readonly name: string
  readonly persona: StoredPersona
  readonly task: Task
  readonly instructions: string | null
  readonly language: string | null
  readonly llm: string | null
  readonly stt: string | null
  readonly tts: string | null
  readonly createdAt: Date
  readonly updatedAt: Date
}

/**
 * The fields a new definition is stored with.
 *
 * @category models
 */
export type NewAgentDefinition = Omit<AgentDefinition, "id" | "organizationId" | "createdAt" | "updatedAt">

/**
 * A validated change: only the supplied fields (`null` clears an optional one).
 *
 * @category models
 */
export type AgentPatch = Partial<NewAgentDefinition>

// ----------------------------------------------------------------------------- validation

type Issue = { readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }

const tooLong = (path: ReadonlyArray<PropertyKey>, value: unknown, max: number): ReadonlyArray<Issue> =>
  typeof value === "string" && value.length > max
    ? [{ path, issue: `Expected a string of at most ${max} characters, got ${value.length}` }]
    : []

const taskIssues = (task: Task): ReadonlyArray<Issue> => {
  const issues: Array<Issue> = [
    ...tooLong(["objective"], task.objective, AgentLimits.textMaxLength),
    ...tooLong(["completion_criteria"], task.completion_criteria, AgentLimits.textMaxLength)
  ]
  if (task.action_items.length > AgentLimits.actionItemsMax) {
    issues.push({
      path: ["action_items"],
      issue: `Expected at most ${AgentLimits.actionItemsMax} action items, got ${task.action_items.length}`
    })
  }
  const seen = new Set<string>()
  task.action_items.forEach((item, i) => {
    const at = (key: string) => ["action_items", i, key]
    issues.push(...tooLong(at("key"), item.key, AgentLimits.keyMaxLength))
    if (seen.has(item.key)) issues.push({ path: at("key"), issue: `Duplicate key ${JSON.stringify(item.key)}` })
    seen.add(item.key)
    switch (item.item_type) {
      case "say":
        issues.push(...tooLong(at("statement"), item.statement, AgentLimits.textMaxLength))
        return
      case "todo":
        issues.push(...tooLong(at("description"), item.description, AgentLimits.textMaxLength))
        return
      case "field": {
        issues.push(
          ...tooLong(at("question"), item.question, AgentLimits.textMaxLength),
          ...tooLong(at("description"), item.description, AgentLimits.textMaxLength)
        )
        const choices = item.choices ?? []
        if (item.field_type === "multiple_choice") {
          if (choices.length < 2) {
            issues.push({ path: at("choices"), issue: "A multiple_choice field needs at least 2 choices" })
          } else if (choices.length > AgentLimits.choicesMax) {
            issues.push({ path: at("choices"), issue: `Expected at most ${AgentLimits.choicesMax} choices` })
          }
          choices.forEach((choice, j) => {
            if (choice.trim().length === 0) {
              issues.push({ path: [...at("choices"), j], issue: "Expected a choice that is not empty" })
            }
            issues.push(...tooLong([...at("choices"), j], choice, AgentLimits.choiceMaxLength))
          })
        } else if (choices.length > 0) {
          issues.push({ path: at("choices"), issue: "choices are only allowed on multiple_choice fields" })
        }
        return
      }
    }
  })
  return issues
}

/**
 * A task as a definition takes it: AgentTask's schema with the limits above, unique item keys,
 * and `choices` at least two and only on `multiple_choice` fields (an empty list, as the
 * reference SDK sends for other types, is fine).
 *
 * @category schemas
 */
export const AgentTaskInput = Task.check(Schema.makeFilter(taskIssues)).annotate({ identifier: "AgentTask" })

/**
 * A persona as a definition takes it: AgentTask's schema, each field at most 2,000 characters.
 *
 * @category schemas
 */
export const AgentPersonaInput = Persona.check(
  Schema.makeFilter((persona: Persona) =>
    (["agent_name", "organization_name", "agent_purpose", "voice"] as const).flatMap((key) =>
      tooLong([key], persona[key], AgentLimits.textMaxLength)
    )
  )
).annotate({ identifier: "AgentPersona" })

/**
 * @category schemas
 */
export const AgentName = Schema.String.check(
  Schema.isMinLength(1),
  Schema.isMaxLength(AgentLimits.nameMaxLength),
  Schema.makeFilter((s: string) => s.trim().length > 0 || "Expected a name that is not only white space")
)

/**
 * A BCP 47 language tag such as `en`, `en-US` or `es-419` (the shape only; any language the
 * providers handle is theirs to judge).
 *
 * @category schemas
 */
export const LanguageTag = Schema.String.check(
  Schema.isMaxLength(AgentLimits.languageMaxLength),
  Schema.isPattern(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/)
).annotate({ description: "A BCP 47 language tag, e.g. en-US" })

const Instructions = Schema.String.check(Schema.isMaxLength(AgentLimits.instructionsMaxLength)).annotate({
  description: "Free-text guidance for the language model"
})

const ProviderName = Schema.String.check(
  Schema.isMinLength(1),
  Schema.isMaxLength(AgentLimits.providerNameMaxLength)
)

const providerDescription = (kind: string) =>
  `The name of a configured ${kind} provider; absent or null: none (the deterministic policy)`

/**
 * Body of `POST /v2/agents`. `null` for an optional field means absent.
 *
 * @category schemas
 */
export const CreateAgentRequest = Schema.Struct({
  name: AgentName,
  persona: AgentPersonaInput,
  task: AgentTaskInput,
  instructions: Schema.optionalKey(Schema.NullOr(Instructions)),
  language: Schema.optionalKey(Schema.NullOr(LanguageTag)),
  llm: Schema.optionalKey(Schema.NullOr(ProviderName).annotate({ description: providerDescription("language") })),
  stt: Schema.optionalKey(Schema.NullOr(ProviderName).annotate({ description: providerDescription("speech-to-text") })),
  tts: Schema.optionalKey(Schema.NullOr(ProviderName).annotate({ description: providerDescription("text-to-speech") }))
}).annotate({ identifier: "CreateAgentRequest" })

/**
 * @category models
 */
export type CreateAgentRequest = typeof CreateAgentRequest.Type

/**
 * Body of `PATCH /v2/agents/{agent_id}`: any subset; `persona` and `task` replace the stored
 * ones whole; `null` clears `instructions`, `language` or a provider name.
 *
 * @category schemas
 */
export const UpdateAgentRequest = Schema.Struct({
  name: Schema.optionalKey(AgentName),
  persona: Schema.optionalKey(AgentPersonaInput),
  task: Schema.optionalKey(AgentTaskInput),
  instructions: Schema.optionalKey(Schema.NullOr(Instructions)),
  language: Schema.optionalKey(Schema.NullOr(LanguageTag)),
  llm: Schema.optionalKey(Schema.NullOr(ProviderName)),
  stt: Schema.optionalKey(Schema.NullOr(ProviderName)),
  tts: Schema.optionalKey(Schema.NullOr(ProviderName))
}).annotate({ identifier: "UpdateAgentRequest" })

/**
 * @category models
 */
export type UpdateAgentRequest = typeof UpdateAgentRequest.Type

/**
 * @category constructors
 */
export const storedPersona = (persona: Persona): StoredPersona => ({
  agent_name: persona.agent_name ?? null,
  organization_name: persona.organization_name ?? null,
  agent_purpose: persona.agent_purpose ?? null,
  voice: persona.voice ?? null
})

/**
 * The definition a valid create body describes.
 *
 * @category constructors
 */
export const fromCreateRequest = (request: CreateAgentRequest): NewAgentDefinition => ({
  name: request.name,
  persona: storedPersona(request.persona),
  task: request.task,
  instructions: request.instructions ?? null,
  language: request.language ?? null,
  llm: request.llm ?? null,
  stt: request.stt ?? null,
  tts: request.tts ?? null
})

/**
 * The change a valid update body describes (only the supplied fields).
 *
 * @category constructors
 */
export const fromUpdateRequest = (request: UpdateAgentRequest): AgentPatch => {
  const patch: { -readonly [K in keyof AgentPatch]: AgentPatch[K] } = {}
  if (request.name !== undefined) patch.name = request.name
  if (request.persona !== undefined) patch.persona = storedPersona(request.persona)
  if (request.task !== undefined) patch.task = request.task
  if (request.instructions !== undefined) patch.instructions = request.instructions
  if (request.language !== undefined) patch.language = request.language
  if (request.llm !== undefined) patch.llm = request.llm
  if (request.stt !== undefined) patch.stt = request.stt
  if (request.tts !== undefined) patch.tts = request.tts
  return patch
}

// -------------------------------------------------------------------------------- providers

/**
 * The kinds of provider a definition names.
 *
 * @category models
 */
export type ProviderKind = "llm" | "stt" | "tts"

/**
 * The configured provider names by kind (the `Providers` port's `names`).
 *
 * @category models
 */
export type ProviderNames = { readonly [K in ProviderKind]: ReadonlyArray<string> }

/**
 * The first provider name of `request` that is not among `configured` (no Providers at all:
 * nothing is configured, so only absent or `null` names pass).
 *
 * @category guards
 */
export const unknownProvider = (
  configured: ProviderNames | undefined,
  request: { readonly [K in ProviderKind]?: string | null | undefined }
): UnknownProvider | undefined => {
  for (const kind of ["llm", "stt", "tts"] as const) {
    const name = request[kind]
    const names = configured?.[kind] ?? []
    if (name != null && !names.includes(name)) return new UnknownProvider({ kind, name, configured: names })
  }
  return undefined
}

// -------------------------------------------------------------------------------- resources

/**
 * The persona as answered: all four fields, `null` when unset.
 *
 * @category schemas
 */
export const PersonaResource = Schema.Struct({
  agent_name: Schema.NullOr(Schema.String),
  organization_name: Schema.NullOr(Schema.String),
  agent_purpose: Schema.NullOr(Schema.String),
  voice: Schema.NullOr(Schema.String)
}).annotate({ identifier: "Persona" })

/**
 * The Agent resource, as the API answers a definition (`Agent` in the OpenAPI document; core's
 * `Agent` port is what runs a call).
 *
 * @category schemas
 */
export const AgentResource = Schema.Struct({
  id: Schema.String.annotate({ description: "agt- followed by 20 hexadecimal digits" }),
  name: Schema.String,
  persona: PersonaResource,
  task: Task.annotate({ identifier: "Task" }),
  instructions: Schema.NullOr(Schema.String),
  language: Schema.NullOr(Schema.String),
  llm: Schema.NullOr(Schema.String),
  stt: Schema.NullOr(Schema.String),
  tts: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "Agent" })

/**
 * @category models
 */
export type AgentResource = typeof AgentResource.Type

/**
 * @category encoding
 */
export const toAgentResource = (definition: AgentDefinition): AgentResource => ({
  id: definition.id,
  name: definition.name,
  persona: definition.persona,
  task: definition.task,
  instructions: definition.instructions,
  language: definition.language,
  llm: definition.llm,
  stt: definition.stt,
  tts: definition.tts,
  created_at: toIso(definition.createdAt),
  updated_at: toIso(definition.updatedAt)
})

/**
 * `GET /v2/agents`: newest first, keyset-paginated.
 *
 * @category schemas
 */
export const AgentList = Schema.Struct({ agents: Schema.Array(AgentResource), ...PageFields }).annotate({
  identifier: "AgentList"
})

/**
 * Body of `PUT /v2/campaigns/{campaign_code}/agent` and `PUT /v2/phone-numbers/{phone_number}/agent`.
 *
 * @category schemas
 */
export const AttachAgentRequest = Schema.Struct({
  agent_id: Schema.NullOr(Schema.String).annotate({ description: "The agent to attach; null detaches" })
}).annotate({ identifier: "AttachAgentRequest" })

/**
 * @category schemas
 */
export const CampaignAgent = Schema.Struct({
  campaign_code: Schema.String,
  agent_id: Schema.NullOr(Schema.String)
}).annotate({ identifier: "CampaignAgent" })

/**
 * @category schemas
 */
export const PhoneNumberAgent = Schema.Struct({
  phone_number: Schema.String,
  agent_id: Schema.NullOr(Schema.String)
}).annotate({ identifier: "PhoneNumberAgent" })

/**
 * @category schemas
 */
export const DeleteAgentResponse = Schema.Struct({ ok: Schema.Boolean }).annotate({ identifier: "DeleteAgentResponse" })

// ----------------------------------------------------------------------------------- fields

/**
 * A collected value as stored and answered (AgentTask's `FieldValue`): text, multiple choice,
 * digit sequence and calendar slot as strings, integer as a number, date as `{year, month, day}`.
 *
 * @category schemas
 */
export const FieldValueSchema: Schema.Codec<FieldValue> = Schema.Union([
  Schema.String,
  Schema.Number,
  Schema.Struct({ year: Schema.Int, month: Schema.Int, day: Schema.Int }).annotate({ identifier: "FieldDate" })
]).annotate({ identifier: "FieldValue" })

/**
 * `GET /v1/conversations/{call_id}/fields`.
 *
 * @category schemas
 */
export const ConversationFields = Schema.Struct({
  fields: Schema.Record(Schema.String, FieldValueSchema)
}).annotate({ identifier: "ConversationFields" })
