/**
 * Turn latency (docs/CONSOLE.md): a call's replies as bars split into their stages, with the
 * call's p50, p90 and max (`GET /v1/conversations/{call_id}/latency`); a campaign's p50 and p90
 * over its calls (`GET /v2/campaigns/{campaign_code}/latency`). CSS bars, no chart library.
 */
import type { LatencySummary } from "@voice-agent/core/TurnLatency"
import { run } from "../api/Client.ts"
import { count, ms, position } from "../Format.ts"
import { segmentsOf, stageNames, widths } from "../LatencyBars.ts"
import type { Stage } from "../LatencyBars.ts"
import { useResource } from "../ui/Resource.ts"
import { Empty, Show } from "../ui/States.tsx"

const legend: ReadonlyArray<Stage> = ["stt", "llm", "tts", "engine", "unmeasured"]

const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`

const Figures = ({ summary }: { readonly summary: typeof LatencySummary.Type }) => (
  <>
    <dt>p50</dt>
    <dd data-figure="p50">{ms(summary.p50_ms)}</dd>
    <dt>p90</dt>
    <dd data-figure="p90">{ms(summary.p90_ms)}</dd>
    <dt>Max</dt>
    <dd data-figure="max">{ms(summary.max_ms)}</dd>
  </>
)

/**
 * A call's replies, one bar each (a click plays from the end of the person's speech), and
 * their summary.
 */
export const CallLatency = (
  { callId, live, onSeek }: {
    readonly callId: string
    readonly live: boolean
    readonly onSeek: (ms: number) => void
  }
) => {
  const latency = useResource(
    () => run((client) => client.conversations.latency({ params: { call_id: callId } })),
    [callId, live],
    live ? 2000 : undefined
  )
  return (
    <Show resource={latency}>
      {({ summary, turns }) => {
        if (turns.length === 0) return <Empty>No reply to the person in this call.</Empty>
        const lengths = widths(turns)
        return (
          <>
            <dl class="facts latency-summary" aria-label="Turn latency summary">
              <dt>Replies</dt>
              <dd data-figure="count">{count(summary.count)}</dd>
              <Figures summary={summary} />
            </dl>
            <ul class="latency-legend" aria-label="Stages">
              {legend.map((stage) => (
                <li key={stage}>
                  <span class={`swatch ${stage}`} aria-hidden="true" />
                  {stageNames[stage]}
                </li>
              ))}
            </ul>
            <ol class="latency-bars">
              {turns.map((turn, i) => {
                const parts = segmentsOf(turn)
                const words = parts.map((part) => `${stageNames[part.stage]} ${ms(part.ms)}`).join(", ")
                return (
                  <li key={i} data-voice-to-voice-ms={turn.voice_to_voice_ms}>
                    <button
                      type="button"
                      onClick={() => onSeek(turn.user_stopped_ms)}
                      aria-label={`Reply at ${position(turn.agent_started_ms)}: ${
                        ms(turn.voice_to_voice_ms)
                      } voice to voice (${words}). Play from the end of the person's speech.`}
                    >
                      <span class="mono">{position(turn.user_stopped_ms)}</span>
                      <span class="track">
                        <span class="bar" style={{ width: `${lengths[i]}%` }}>
                          {parts.map((part) => (
                            <span
                              key={part.stage}
                              class={`segment ${part.stage}`}
                              data-stage={part.stage}
                              data-ms={part.ms}
                              style={{ flexGrow: part.ms }}
                              title={`${stageNames[part.stage]}: ${ms(part.ms)}`}
                            />
                          ))}
                        </span>
                      </span>
                      <span class="num">{ms(turn.voice_to_voice_ms)}</span>
                    </button>
                  </li>
                )
              })}
            </ol>
          </>
        )
      }}
    </Show>
  )
}

/**
 * A campaign's p50 and p90 (and max) over every reply of its calls.
 */
export const CampaignLatency = ({ code }: { readonly code: string }) => {
  const latency = useResource(
    () => run((client) => client.campaigns.latency({ params: { campaign_code: code } })),
    [code],
    10_000
  )
  return (
    <Show resource={latency}>
      {({ calls, summary }) =>
        summary.count === 0 ? <p class="muted">No agent reply to a person yet.</p> : (
          <>
            <dl class="facts latency-summary" aria-label="Campaign turn latency">
              <Figures summary={summary} />
            </dl>
            <p class="muted">
              Voice to voice, over {plural(summary.count, "reply", "replies")} in {plural(calls, "call", "calls")}.
            </p>
          </>
        )}
    </Show>
  )
}
