/**
 * How a reply's turn latency is drawn (docs/CONSOLE.md, "Turn latency"): one bar per reply,
 * as long as its voice-to-voice on a scale shared by the call's bars, split into the stages
 * that were measured (speech recognition, the model's first token, the speech's first byte,
 * the engine) in the order they happen, and what voice-to-voice holds beyond them. A reply
 * whose steps were not measured is one unsplit bar.
 */
import type { TurnLatency } from "@voice-agent/core/TurnLatency"

/**
 * @category models
 */
export type Stage = "stt" | "llm" | "tts" | "engine" | "unmeasured"

/**
 * @category models
 */
export interface Segment {
  readonly stage: Stage
  readonly ms: number
}

type Turn = typeof TurnLatency.Type

const measured: ReadonlyArray<readonly [Stage, keyof Turn["stages"]]> = [
  ["stt", "stt_ms"],
  ["llm", "llm_first_token_ms"],
  ["tts", "tts_first_byte_ms"],
  ["engine", "engine_ms"]
]

/**
 * What each part is called where it is shown.
 *
 * @category encoding
 */
export const stageNames: Record<Stage, string> = {
  stt: "Speech recognition",
  llm: "Model's first token",
  tts: "Speech's first byte",
  engine: "Engine",
  unmeasured: "Not measured by step"
}

/**
 * The parts of a reply's bar: each measured stage, in order, then the rest of voice-to-voice
 * (the whole of it when no stage was measured; nothing when the stages cover it).
 *
 * @category encoding
 */
export const segmentsOf = (turn: Turn): ReadonlyArray<Segment> => {
  const parts: Array<Segment> = []
  for (const [stage, key] of measured) {
    const ms = turn.stages[key]
    if (ms !== undefined) parts.push({ stage, ms })
  }
  const rest = turn.voice_to_voice_ms - parts.reduce((sum, part) => sum + part.ms, 0)
  if (rest > 0 || parts.length === 0) parts.push({ stage: "unmeasured", ms: Math.max(0, rest) })
  return parts
}

/**
 * The ms a reply's bar spans: its voice-to-voice, or its stages' sum when that is longer.
 *
 * @category encoding
 */
export const spanOf = (turn: Turn): number =>
  Math.max(turn.voice_to_voice_ms, segmentsOf(turn).reduce((sum, part) => sum + part.ms, 0))

/**
 * Each bar's length as a percentage of the longest (at least 1 ms, so no bar divides by 0).
 *
 * @category encoding
 */
export const widths = (turns: ReadonlyArray<Turn>): ReadonlyArray<number> => {
  const longest = Math.max(1, ...turns.map(spanOf))
  return turns.map((turn) => (100 * spanOf(turn)) / longest)
}
