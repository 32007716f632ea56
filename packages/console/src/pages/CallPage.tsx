/**
 * One call: its record, its recording in a player (the agent's and the person's waveforms on
 * one time axis) with each channel downloadable, the transcript (a turn click moves the player
 * there), each reply's turn latency as a bar split into its stages (a click plays from there),
 * the fields the agent collected, and the webhook events it caused (with the admin token).
 */
import type { Conversation, RecordingChannel } from "@voice-agent/core/Conversation"
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import { waveform } from "../audio/Peaks.ts"
import { Player } from "../audio/Player.tsx"
import type { PlayerHandle } from "../audio/Player.tsx"
import { dateTime, duration, position } from "../Format.ts"
import { href } from "../Router.ts"
import { useResource } from "../ui/Resource.ts"
import { Empty, Show } from "../ui/States.tsx"
import { inProgress } from "../Words.ts"
import { CallEvents } from "./CallEvents.tsx"
import { CallLatency } from "./Latency.tsx"

const channels: ReadonlyArray<RecordingChannel> = ["mixed", "agent", "remote"]

/** Calls that were never answered have no recording (docs/DECISIONS.md): none is asked for. */
const neverAnswered: ReadonlyArray<string> = ["busy", "no-answer", "failed"]
const channelNames: Record<RecordingChannel, string> = { mixed: "Both (mixed)", agent: "Agent", remote: "Person" }

const wav = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "audio/wav" })

const Record = ({ call }: { readonly call: Conversation }) => (
  <dl class="facts">
    <dt>Call</dt>
    <dd class="mono">{call.call_id}</dd>
    <dt>When</dt>
    <dd>{dateTime(call.ts)}</dd>
    <dt>Direction</dt>
    <dd>{call.direction}</dd>
    <dt>From</dt>
    <dd class="mono">{call.from_number}</dd>
    <dt>To</dt>
    <dd class="mono">{call.to_number}</dd>
    <dt>Duration</dt>
    <dd>{duration(call.duration_sec)}</dd>
    <dt>Outcome</dt>
    <dd>
      {inProgress(call)
        ? <a class="badge live" href={href(["live", call.call_id])}>in progress: listen</a>
        : call.termination_reason ?? "–"}
    </dd>
    {call.campaign_id !== null && (
      <>
        <dt>Campaign</dt>
        <dd>
          <a href={href(["calls"], { campaign: call.campaign_id })}>Calls of this campaign</a>
        </dd>
      </>
    )}
  </dl>
)

const Recordings = (
  { callId, onReady, onTime }: {
    readonly callId: string
    readonly onReady: (handle: PlayerHandle) => void
    readonly onTime: (seconds: number) => void
  }
) => {
  const files = useResource(
    () =>
      Promise.all(
        channels.map((channel) =>
          run((client) =>
            client.conversations.channelRecording({ params: { call_id: callId, channel_name: channel }, headers: {} })
          )
        )
      ),
    [callId]
  )
  const ready = files.state === "ready" ? files.value : undefined
  const decoded = useMemo(
    () =>
      ready === undefined ? undefined : {
        mixed: wav(ready[0]!),
        agent: waveform(ready[1]!),
        remote: waveform(ready[2]!),
        links: channels.map((channel, i) => ({ channel, url: URL.createObjectURL(wav(ready[i]!)) }))
      },
    [ready]
  )
  useEffect(() => () => decoded?.links.forEach((link) => URL.revokeObjectURL(link.url)), [decoded])
  if (files.state === "failed" && files.failure._tag === "Refused" && files.failure.status === 404) {
    return <Empty>No recording: the call was not answered, or it has not started yet.</Empty>
  }
  return (
    <Show resource={files} loading="Loading the recording…">
      {() =>
        decoded === undefined ? null : (
          <>
            <Player
              mixed={decoded.mixed}
              agent={decoded.agent}
              remote={decoded.remote}
              onReady={onReady}
              onTime={onTime}
            />
            <p class="downloads">
              Download:{" "}
              {decoded.links.map(({ channel, url }) => (
                <a key={channel} class="button" href={url} download={`${callId}-${channel}.wav`}>
                  {channelNames[channel]}
                </a>
              ))}
            </p>
          </>
        )}
    </Show>
  )
}

const fieldType = (value: unknown): string =>
  typeof value === "number" ? "integer" : typeof value === "object" ? "date" : "text"

const fieldText = (value: unknown): string => {
  if (typeof value === "object" && value !== null && "year" in value) {
    const d = value as { readonly year: number; readonly month: number; readonly day: number }
    return `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`
  }
  return String(value)
}

const Fields = ({ callId }: { readonly callId: string }) => {
  const fields = useResource(() => run((client) => client.agents.fields({ params: { call_id: callId } })), [callId])
  return (
    <Show resource={fields}>
      {({ fields: values }) =>
        Object.keys(values).length === 0 ?
          <Empty>The agent collected no field in this call.</Empty> :
          (
            <div class="table-wrap">
              <table class="fields">
                <thead>
                  <tr>
                    <th>Field</th>
                    <th>Value</th>
                    <th>Type</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(values).map(([key, value]) => (
                    <tr key={key}>
                      <td class="mono">{key}</td>
                      <td>{fieldText(value)}</td>
                      <td class="muted">{fieldType(value)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
    </Show>
  )
}

export const CallPage = ({ callId }: { readonly callId: string }) => {
  const call = useResource(() => run((client) => client.conversations.get({ params: { call_id: callId } })), [callId])
  const live = call.state === "ready" && inProgress(call.value)
  const transcript = useResource(
    () => run((client) => client.conversations.transcript({ params: { call_id: callId } })),
    [callId, live],
    live ? 2000 : undefined
  )
  const player = useRef<PlayerHandle | undefined>(undefined)
  const [time, setTime] = useState(0)
  const turns = transcript.state === "ready" ? transcript.value : []
  // A millisecond of slack: the player reports the position it seeked to in float seconds.
  const current = turns.findLastIndex((turn) => turn.offset_ms <= time * 1000 + 1)
  return (
    <section aria-labelledby="call-title">
      <p>
        <a href={href(["calls"])}>← Calls</a>
      </p>
      <h1 id="call-title">Call</h1>
      <Show resource={call} loading="Loading the call…">
        {(c) => (
          <div class="grid">
            <div class="card">
              <Record call={c} />
            </div>
            <div class="card">
              <h2>Collected fields</h2>
              <Fields callId={callId} />
            </div>
          </div>
        )}
      </Show>
      {call.state === "ready" && !live && !neverAnswered.includes(call.value.termination_reason ?? "") && (
        <div class="card">
          <h2>Recording</h2>
          <Recordings
            callId={callId}
            onReady={(handle) => (player.current = handle)}
            onTime={setTime}
          />
        </div>
      )}
      <div class="card">
        <h2>Transcript</h2>
        <Show resource={transcript}>
          {(list) =>
            list.length === 0 ? <Empty>No turns.</Empty> : (
              <ol class="transcript">
                {list.map((turn, i) => (
                  <li key={i}>
                    <button
                      type="button"
                      aria-current={i === current ? "true" : undefined}
                      data-offset-ms={turn.offset_ms}
                      onClick={() => player.current?.seek(turn.offset_ms / 1000)}
                    >
                      <span class="mono">{position(turn.offset_ms)}</span>
                      <span class={`who ${turn.speaker}`}>{turn.speaker === "AGENT" ? "Agent" : "Person"}</span>
                      <span class="text">{turn.text}</span>
                    </button>
                  </li>
                ))}
              </ol>
            )}
        </Show>
      </div>
      <div class="card">
        <h2>Turn latency</h2>
        <CallLatency callId={callId} live={live} onSeek={(ms) => player.current?.seek(ms / 1000)} />
      </div>
      <CallEvents callId={callId} live={live} />
    </section>
  )
}
