/**
 * Handlers of the conversation endpoints: list (keyset cursor), details, transcript, turn
 * latency, recordings streamed with byte-range support, and listen tickets.
 *
 * @since 0.1.0
 */
import type { RecordingChannel } from "@voice-agent/core/Conversation"
import { toConversation, toTranscriptTurn } from "@voice-agent/core/Conversation"
import { ConversationService } from "@voice-agent/core/ConversationService"
import { InvalidCursor, InvalidParameter } from "@voice-agent/core/Errors"
import { ListenTickets } from "@voice-agent/core/ListenTicket"
import { pageInfo } from "@voice-agent/core/Page"
import { fromMillis } from "@voice-agent/core/Time"
import { toConversationLatency } from "@voice-agent/core/TurnLatency"
import { isUuid } from "@voice-agent/core/Uuid"
import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/Api.ts"
import { CurrentOrganization } from "../api/Security.ts"
import { parseRange } from "./ByteRange.ts"
import { CursorCodec } from "./Cursor.ts"
import { mapDomainErrors } from "./ErrorMapping.ts"
import { parseInstant, parseLimit } from "./QueryParams.ts"
import { AuthorizationLive } from "./Security.ts"
import { FastApiValidationLive } from "./Validation.ts"

const recording = (
  service: ConversationService["Service"],
  callId: string,
  channel: RecordingChannel,
  rangeHeader: string | undefined
) =>
  Effect.gen(function*() {
    const organization = yield* CurrentOrganization
    const whole = yield* service.recording(organization.id, callId, channel)
    const range = parseRange(rangeHeader, whole.size)
    const headers = { "accept-ranges": "bytes" }
    switch (range._tag) {
      case "Full":
        return HttpServerResponse.stream(whole.bytes, { contentType: "audio/wav", contentLength: whole.size, headers })
      case "Unsatisfiable":
        return HttpServerResponse.empty({
          status: 416,
          headers: { ...headers, "content-range": `bytes */${whole.size}` }
        })
      case "Partial": {
        const part = yield* service.recording(organization.id, callId, channel, range)
        return HttpServerResponse.stream(part.bytes, {
          status: 206,
          contentType: "audio/wav",
          contentLength: range.end - range.start + 1,
          headers: { ...headers, "content-range": `bytes ${range.start}-${range.end}/${whole.size}` }
        })
      }
    }
  }).pipe(mapDomainErrors)

/**
 * @category layers
 */
export const ConversationsHandlersNoDeps = HttpApiBuilder.group(
  Api,
  "conversations",
  Effect.fnUntraced(function*(handlers) {
    const service = yield* ConversationService
    const cursors = yield* CursorCodec
    const tickets = yield* ListenTickets
    return handlers.handleAll({
      list: ({ query }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const dateFrom = yield* parseInstant(query.date_from, "date_from")
          const dateTo = yield* parseInstant(query.date_to, "date_to")
          const limit = yield* parseLimit(query.limit, { min: 1, max: 100, fallback: 50 })
          if (query.campaign_id !== undefined && !isUuid(query.campaign_id)) {
            return yield* new InvalidParameter({ parameter: "campaign_id", message: "not a campaign id" })
          }
          let after: { startedAt: Date; id: string } | undefined
          if (query.after !== undefined) {
            const position = yield* cursors.decode("conversations", organization.id, query.after)
            if (typeof position.t !== "number" || typeof position.id !== "string" || !isUuid(position.id)) {
              return yield* new InvalidCursor()
            }
            after = { startedAt: fromMillis(position.t), id: position.id }
          }
          const page = yield* service.list({
            organizationId: organization.id,
            fromNumber: query.from_number,
            toNumber: query.to_number,
            direction: query.direction === "all" ? undefined : query.direction,
            dateFrom,
            dateTo,
            campaignId: query.campaign_id?.toLowerCase(),
            limit,
            after
          })
          return {
            conversations: page.conversations.map(toConversation),
            ...pageInfo(
              page.conversations,
              page.hasMore,
              (last) => cursors.encode("conversations", organization.id, { t: last.startedAt.getTime(), id: last.id })
            )
          }
        }).pipe(mapDomainErrors),
      get: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          return toConversation(yield* service.get(organization.id, params.call_id))
        }).pipe(mapDomainErrors),
      transcript: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          const turns = yield* service.transcript(organization.id, params.call_id)
          return turns.map(toTranscriptTurn)
        }).pipe(mapDomainErrors),
      latency: ({ params }) =>
        Effect.gen(function*() {
          const organization = yield* CurrentOrganization
          return toConversationLatency(yield* service.latency(organization.id, params.call_id))
        }).pipe(mapDomainErrors),
      recording: ({ params, headers }) => recording(service, params.call_id, "mixed", headers.range),
      channelRecording: ({ params, headers }) => recording(service, params.call_id, params.channel_name, headers.range),
      createListenTicket: ({ params }) =>
        Effect.flatMap(CurrentOrganization, (organization) => tickets.issue(organization.id, params.call_id)).pipe(
          mapDomainErrors
        )
    })
  })
)

/**
 * @category layers
 */
export const ConversationsHandlers = ConversationsHandlersNoDeps.pipe(
  Layer.provide([AuthorizationLive, FastApiValidationLive])
)
