/**
 * The conversation endpoints of the documented API: list, details, transcript, turn latency,
 * recordings; and
 * listen tickets (docs/LISTEN.md), the browser's credential for the live-listen WebSocket.
 *
 * @since 0.1.0
 */
import { Conversation, ConversationList, RecordingChannel, TranscriptTurn } from "@voice-agent/core/Conversation"
import { ListenTicket } from "@voice-agent/core/ListenTicket"
import { E164 } from "@voice-agent/core/PhoneNumber"
import { ConversationLatency } from "@voice-agent/core/TurnLatency"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, NotFound } from "./HttpErrors.ts"
import { Authorization } from "./Security.ts"

const callId = { call_id: Schema.String }

const Wav = Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "audio/wav" })).annotate({
  description: "WAV audio: 16-bit PCM, 8 kHz, mono. Byte ranges (Range) are honored."
})

const rangeHeader = { range: Schema.optional(Schema.String) }

/**
 * @category models
 */
export class ConversationsApi extends HttpApiGroup.make("conversations")
  .add(
    HttpApiEndpoint.get("list", "/v1/conversations", {
      query: {
        from_number: Schema.optional(E164),
        to_number: Schema.optional(E164),
        direction: Schema.optional(Schema.Literals(["inbound", "outbound", "all"])),
        date_from: Schema.optional(Schema.String),
        date_to: Schema.optional(Schema.String),
        campaign_id: Schema.optional(Schema.String),
        limit: Schema.optional(Schema.String),
        after: Schema.optional(Schema.String)
      },
      success: ConversationList,
      error: BadRequest
    }).annotate(OpenApi.Summary, "List conversations"),
    HttpApiEndpoint.get("get", "/v1/conversations/:call_id", {
      params: callId,
      success: Conversation,
      error: NotFound
    }).annotate(OpenApi.Summary, "Get conversation details"),
    HttpApiEndpoint.get("transcript", "/v1/conversations/:call_id/transcript", {
      params: callId,
      success: Schema.Array(TranscriptTurn),
      error: NotFound
    }).annotate(OpenApi.Summary, "Transcript"),
    HttpApiEndpoint.get("latency", "/v1/conversations/:call_id/latency", {
      params: callId,
      success: ConversationLatency,
      error: NotFound
    }).annotateMerge(OpenApi.annotations({
      summary: "Turn latency",
      description: "One entry per agent reply to the person (the greeting is not a reply), in order: the end " +
        "of the person's speech it answers and the start of the reply's audio, in ms from the answer on the " +
        "call's timeline (as the recordings), their difference (never negative), and the ms each step took " +
        "(absent keys for steps that did not run). The summary's percentiles are nearest-rank over " +
        "voice_to_voice_ms; with no reply, count is 0 and the figures are null."
    })),
    HttpApiEndpoint.get("recording", "/v1/conversations/:call_id/recording", {
      params: callId,
      headers: rangeHeader,
      success: Wav,
      error: NotFound
    }).annotate(OpenApi.Summary, "Recording"),
    HttpApiEndpoint.get("channelRecording", "/v1/conversations/:call_id/channels/:channel_name/recording", {
      params: { call_id: Schema.String, channel_name: RecordingChannel },
      headers: rangeHeader,
      success: Wav,
      error: NotFound
    }).annotate(OpenApi.Summary, "Channel recording"),
    HttpApiEndpoint.post("createListenTicket", "/v1/conversations/:call_id/listen-tickets", {
      params: callId,
      success: ListenTicket.pipe(HttpApiSchema.status(201)),
      error: NotFound
    }).annotateMerge(OpenApi.annotations({
      summary: "Create a listen ticket",
      description: "A credential for one live-listen WebSocket upgrade of this call, for clients that cannot " +
        "send an Authorization header on an upgrade (browsers): " +
        "`GET /v1/conversations/{call_id}/listen?channel=agent|remote|mixed&ticket=<ticket>`. Good for one " +
        "upgrade, for 60 s, for this call only; any other use is 401. A call that has not ended may have one " +
        "(ringing included); an ended call is 404."
    }))
  )
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({ title: "Conversations", description: "Call records, transcripts, recordings" }))
{}
