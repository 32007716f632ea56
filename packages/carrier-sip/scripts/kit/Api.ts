/**
 * The few calls the conformance kit makes to a daemon's HTTP API (docs/API.md): a campaign to
 * place its outbound calls, the contacts' statuses, the conversations, their transcripts and
 * recordings. Plain `fetch`; a refusal fails with the API's `detail`.
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"

/**
 * The API refused, or could not be reached.
 *
 * @category errors
 */
export class ApiError extends Data.TaggedError("ApiError")<{ readonly message: string }> {}

/**
 * @category models
 */
export interface Api {
  readonly url: string
  readonly key: string
}

/**
 * @category models
 */
export interface Conversation {
  readonly call_id: string
  readonly from_number: string
  readonly to_number: string
  readonly direction?: string
  readonly termination_reason: string | null
  readonly duration_sec: number | null
}

/**
 * @category models
 */
export interface Turn {
  readonly speaker: "HUMAN" | "AGENT"
  readonly text: string
  readonly offset_ms: number
}

const call = (api: Api, path: string, init: RequestInit = {}) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(`${api.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${api.key}`, "content-type": "application/json" }
      })
      return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
    },
    catch: (error) => new ApiError({ message: `${api.url}${path}: ${String(error)}` })
  })

const json = (api: Api, path: string, init?: RequestInit) =>
  Effect.flatMap(call(api, path, init), ({ bytes, status }) => {
    const text = new TextDecoder().decode(bytes)
    if (status >= 200 && status < 300) return Effect.succeed(JSON.parse(text) as unknown)
    return Effect.fail(new ApiError({ message: `${init?.method ?? "GET"} ${path}: ${status} ${text.slice(0, 300)}` }))
  })

/**
 * An agent definition that asks for one digit sequence (`member_id`), which a caller can key
 * in: its id.
 *
 * @category constructors
 */
export const keypadAgent = (api: Api, name: string) =>
  Effect.map(
    json(api, "/v2/agents", {
      method: "POST",
      body: JSON.stringify({
        name,
        persona: { agent_name: "Sam", organization_name: "the SIP check" },
        task: {
          objective: "Collect the member number",
          completion_criteria: "The member number is collected",
          action_items: [{
            item_type: "field",
            key: "member_id",
            field_type: "digit_sequence",
            question: "What is your member number? Key it in, then press pound."
          }]
        }
      })
    }),
    (body) => (body as { readonly id: string }).id
  )

/**
 * A conversation's collected fields.
 *
 * @category constructors
 */
export const fields = (api: Api, callId: string) =>
  Effect.map(
    json(api, `/v1/conversations/${callId}/fields`),
    (body) => (body as { readonly fields: Record<string, unknown> }).fields
  )

/**
 * A campaign calling `numbers` once each, from `origin`, at any hour (with `agentId`'s agent
 * when given): its id and code.
 *
 * @category constructors
 */
export const campaign = (
  api: Api,
  name: string,
  origin: string,
  numbers: ReadonlyArray<string>,
  agentId?: string
) =>
  Effect.gen(function*() {
    const created = (yield* json(api, "/v2/campaigns", {
      method: "POST",
      body: JSON.stringify({
        name,
        origin_phone_numbers: [origin],
        start_date: new Date().toISOString().slice(0, 10),
        calling_windows: [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" })),
        timezone: "UTC",
        max_attempts: 1,
        max_concurrency: 10
      })
    })) as { readonly id: string; readonly campaign_code: string }
    if (agentId !== undefined) {
      yield* json(api, `/v2/campaigns/${created.campaign_code}/agent`, {
        method: "PUT",
        body: JSON.stringify({ agent_id: agentId })
      })
    }
    yield* json(api, `/v2/campaigns/${created.campaign_code}/contacts?accepted_terms_of_service=true`, {
      method: "POST",
      body: JSON.stringify({ contacts: numbers.map((phone_number) => ({ phone_number, data: { name: "Ada" } })) })
    })
    return { id: created.id, code: created.campaign_code }
  })

/**
 * The statuses of a campaign's contacts, by number.
 *
 * @category constructors
 */
export const statuses = (api: Api, code: string) =>
  Effect.map(
    json(api, `/v2/contacts?campaign_code=${code}`),
    (body) =>
      new Map(
        (body as { contacts: ReadonlyArray<{ phone_number: string; status: string }> }).contacts.map((
          c
        ) => [c.phone_number, c.status])
      )
  )

/**
 * The conversations of both directions that `filter` selects (`campaign_id`, `from_number`,
 * `to_number`, `date_from`), newest first.
 *
 * @category constructors
 */
export const conversations = (api: Api, filter: Record<string, string> = {}) =>
  Effect.map(
    json(api, `/v1/conversations?${new URLSearchParams({ direction: "all", limit: "100", ...filter }).toString()}`),
    (body) => (body as { conversations: ReadonlyArray<Conversation> }).conversations
  )

/**
 * @category constructors
 */
export const transcript = (api: Api, callId: string) =>
  Effect.map(json(api, `/v1/conversations/${callId}/transcript`), (body) => body as ReadonlyArray<Turn>)

/**
 * A channel's recording (`agent`, `remote`, `mixed`): the WAV's bytes, or undefined (404).
 *
 * @category constructors
 */
export const recording = (api: Api, callId: string, channel: string) =>
  Effect.flatMap(
    call(api, `/v1/conversations/${callId}/channels/${channel}/recording`),
    ({ bytes, status }) =>
      status === 200
        ? Effect.succeed(bytes as Uint8Array | undefined)
        : status === 404
        ? Effect.succeed(undefined)
        : Effect.fail(new ApiError({ message: `recording ${callId}/${channel}: ${status}` }))
  )
