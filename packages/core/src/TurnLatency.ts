/**
 * Turn latency: for each agent reply to the person (the greeting is not a reply), the end of
 * the person's speech it answers and the start of its audio, both in ms from the answer on the
 * call's timeline (so they agree with the recordings), their difference (voice-to-voice, never
 * negative), and the time each step took. Served by `GET /v1/conversations/{call_id}/latency`
 * with a nearest-rank summary, and over a campaign's calls by
 * `GET /v2/campaigns/{campaign_code}/latency` (docs/HTTP_API.md).
 *
 * The summary's rule lives here (`summarize`); the campaign's is computed in SQL over all its
 * replies (store-sql's `campaignLatency`, `percentile_disc`, which is nearest-rank), and its
 * tests hold it to this one on the same figures.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * Ms spent in each step of a turn that ran; a step that did not run has no key.
 *
 * @category models
 */
export interface TurnStages {
  readonly stt_ms?: number | undefined
  readonly llm_first_token_ms?: number | undefined
  readonly tts_first_byte_ms?: number | undefined
  readonly engine_ms?: number | undefined
}

/**
 * One reply's figures as stored.
 *
 * @category models
 */
export interface TurnLatencyRecord {
  readonly userStoppedMs: number
  readonly agentStartedMs: number
  readonly stages: TurnStages
}

/**
 * One reply's record from the steps measured (absent: the step did not run); `engine_ms` is what
 * is left of voice-to-voice once they are counted (queueing, the dialogue, playout), never
 * negative. The steps are rounded to whole ms.
 *
 * @category constructors
 */
export const fromSteps = (
  userStoppedMs: number,
  agentStartedMs: number,
  steps: Omit<TurnStages, "engine_ms">
): TurnLatencyRecord => {
  const stages: { -readonly [K in keyof TurnStages]: number } = {}
  let measured = 0
  for (const key of ["stt_ms", "llm_first_token_ms", "tts_first_byte_ms"] as const) {
    const value = steps[key]
    if (value === undefined) continue
    stages[key] = Math.max(0, Math.round(value))
    measured += stages[key]
  }
  stages.engine_ms = Math.max(0, Math.round(agentStartedMs - userStoppedMs - measured))
  return { userStoppedMs, agentStartedMs, stages }
}

const Ms = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * @category schemas
 */
export const TurnStagesSchema = Schema.Struct({
  stt_ms: Schema.optionalKey(Ms),
  llm_first_token_ms: Schema.optionalKey(Ms),
  tts_first_byte_ms: Schema.optionalKey(Ms),
  engine_ms: Schema.optionalKey(Ms)
}).annotate({ identifier: "TurnStages" })

/**
 * @category schemas
 */
export const TurnLatency = Schema.Struct({
  user_stopped_ms: Ms,
  agent_started_ms: Ms,
  voice_to_voice_ms: Ms,
  stages: TurnStagesSchema
}).annotate({ identifier: "TurnLatency" })

/**
 * Nearest-rank percentiles of the turns' voice-to-voice figures; all null when there is no turn.
 *
 * @category schemas
 */
export const LatencySummary = Schema.Struct({
  count: Schema.Int,
  p50_ms: Schema.NullOr(Schema.Int),
  p90_ms: Schema.NullOr(Schema.Int),
  max_ms: Schema.NullOr(Schema.Int)
}).annotate({ identifier: "LatencySummary" })

/**
 * A campaign's summary as stored figures give it: nearest-rank percentiles of the
 * voice-to-voice figures of every reply in the campaign's calls (null with no reply), and how
 * many calls have a reply.
 *
 * @category models
 */
export interface CampaignLatencyRecord {
  readonly calls: number
  readonly count: number
  readonly p50Ms: number | null
  readonly p90Ms: number | null
  readonly maxMs: number | null
}

/**
 * Response of `GET /v1/conversations/{call_id}/latency`.
 *
 * @category schemas
 */
export const ConversationLatency = Schema.Struct({
  turns: Schema.Array(TurnLatency),
  summary: LatencySummary
}).annotate({ identifier: "ConversationLatency" })

/**
 * Response of `GET /v2/campaigns/{campaign_code}/latency`: the summary over every reply of the
 * campaign's calls, and `calls`, how many of its calls have at least one reply.
 *
 * @category schemas
 */
export const CampaignLatency = Schema.Struct({
  summary: LatencySummary,
  calls: Schema.Int
}).annotate({ identifier: "CampaignLatency" })

/**
 * Voice-to-voice of a reply: from the end of the speech to the start of the reply, never negative.
 *
 * @category encoding
 */
export const voiceToVoiceMs = (turn: TurnLatencyRecord): number =>
  Math.max(0, Math.round(turn.agentStartedMs) - Math.round(turn.userStoppedMs))

/**
 * The nearest-rank `p`-th percentile (0 < p <= 100) of ascending `sorted` values: the value at
 * rank ceil(p/100 × n); null for no value.
 *
 * @category encoding
 */
export const nearestRank = (sorted: ReadonlyArray<number>, p: number): number | null =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!

/**
 * The summary of voice-to-voice figures (in any order): their count, nearest-rank p50 and p90,
 * and maximum; null figures for none.
 *
 * @category encoding
 */
export const summarize = (voiceToVoice: ReadonlyArray<number>): typeof LatencySummary.Type => {
  const sorted = [...voiceToVoice].sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50_ms: nearestRank(sorted, 50),
    p90_ms: nearestRank(sorted, 90),
    max_ms: sorted.length === 0 ? null : sorted[sorted.length - 1]!
  }
}

const stagesOf = (stages: TurnStages): typeof TurnStagesSchema.Type => {
  const out: { -readonly [K in keyof TurnStages]: number } = {}
  for (const key of ["stt_ms", "llm_first_token_ms", "tts_first_byte_ms", "engine_ms"] as const) {
    const value = stages[key]
    if (value !== undefined) out[key] = Math.max(0, Math.round(value))
  }
  return out
}

/**
 * @category encoding
 */
export const toConversationLatency = (
  turns: ReadonlyArray<TurnLatencyRecord>
): typeof ConversationLatency.Type => {
  const encoded = turns.map((turn) => ({
    user_stopped_ms: Math.max(0, Math.round(turn.userStoppedMs)),
    agent_started_ms: Math.max(0, Math.round(turn.agentStartedMs)),
    voice_to_voice_ms: voiceToVoiceMs(turn),
    stages: stagesOf(turn.stages)
  }))
  return { turns: encoded, summary: summarize(encoded.map((turn) => turn.voice_to_voice_ms)) }
}

/**
 * @category encoding
 */
export const toCampaignLatency = (record: CampaignLatencyRecord): typeof CampaignLatency.Type => ({
  summary: { count: record.count, p50_ms: record.p50Ms, p90_ms: record.p90Ms, max_ms: record.maxMs },
  calls: record.calls
})
