/**
 * Listening to a call in progress in the browser (docs/LISTEN.md): a listen ticket from
 * `POST /v1/conversations/{call_id}/listen-tickets` (the API key cannot go on a WebSocket), then
 * the live-listen WebSocket with `?ticket=`; its μ-law frames are decoded and played in the page
 * (audio/LiveAudio.ts), with a level meter. The time from the click to the first audio is shown.
 */
import type { RecordingChannel } from "@voice-agent/core/Conversation"
import { useEffect, useRef, useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import { BUFFER_S, LiveAudio } from "../audio/LiveAudio.ts"
import { toFailure } from "../ui/Resource.ts"

type State =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Connecting" }
  | { readonly _tag: "Waiting" }
  | { readonly _tag: "Listening" }
  | { readonly _tag: "Ended" }
  | { readonly _tag: "Failed"; readonly message: string }

interface Frame {
  readonly event?: string
  readonly media?: { readonly payload?: string }
}

const channelNames: Record<RecordingChannel, string> = { mixed: "Both sides", agent: "The agent", remote: "The person" }

const socketUrl = (callId: string, channel: RecordingChannel, ticket: string): string => {
  const url = new URL(`/v1/conversations/${encodeURIComponent(callId)}/listen`, location.href)
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:"
  url.searchParams.set("channel", channel)
  url.searchParams.set("ticket", ticket)
  return url.toString()
}

export const Listener = ({ callId }: { readonly callId: string }) => {
  const [channel, setChannel] = useState<RecordingChannel>("mixed")
  const [state, setState] = useState<State>({ _tag: "Idle" })
  const [meter, setMeter] = useState({ level: 0, frames: 0 })
  const [firstAudioMs, setFirstAudioMs] = useState<number | undefined>(undefined)
  const session = useRef<{ readonly audio: LiveAudio; socket?: WebSocket; timer?: ReturnType<typeof setInterval> }>(
    undefined
  )

  const stop = () => {
    const current = session.current
    session.current = undefined
    if (current === undefined) return
    clearInterval(current.timer)
    current.socket?.close()
    current.audio.close()
  }
  useEffect(() => stop, [callId])

  const start = () => {
    stop()
    const clicked = performance.now()
    // Made in the click, so the browser lets it play.
    const audio = new LiveAudio()
    const current: { readonly audio: LiveAudio; socket?: WebSocket; timer?: ReturnType<typeof setInterval> } = {
      audio
    }
    session.current = current
    setState({ _tag: "Connecting" })
    setFirstAudioMs(undefined)
    setMeter({ level: 0, frames: 0 })
    void audio.resume()
    current.timer = setInterval(() => setMeter({ level: audio.level, frames: audio.frames }), 100)
    run((client) => client.conversations.createListenTicket({ params: { call_id: callId } })).then(
      ({ ticket }) => {
        if (session.current !== current) return
        const socket = new WebSocket(socketUrl(callId, channel, ticket))
        current.socket = socket
        socket.onopen = () => setState({ _tag: "Waiting" })
        socket.onmessage = (event: MessageEvent<string>) => {
          const frame = JSON.parse(event.data) as Frame
          if (frame.event === "media" && typeof frame.media?.payload === "string") {
            if (audio.frames === 0) {
              // Heard once the jitter buffer has played out ahead of the first frame.
              setFirstAudioMs(performance.now() - clicked + BUFFER_S * 1000)
              setState({ _tag: "Listening" })
            }
            audio.push(frame.media.payload)
          } else if (frame.event === "stop") {
            setState({ _tag: "Ended" })
          }
        }
        socket.onclose = () => {
          setState((previous) =>
            previous._tag === "Connecting"
              ? { _tag: "Failed", message: "The daemon did not stream this call" }
              : previous._tag === "Failed"
              ? previous
              : { _tag: "Ended" }
          )
          clearInterval(current.timer)
          setMeter({ level: 0, frames: audio.frames })
        }
      },
      (error: unknown) => {
        const failure = toFailure(error)
        setState({
          _tag: "Failed",
          message: failure._tag === "Refused" && failure.status === 404 ? "This call has ended" : failure.message
        })
        stop()
      }
    )
  }

  const active = state._tag === "Connecting" || state._tag === "Waiting" || state._tag === "Listening"
  return (
    <div class="listener" data-state={state._tag} data-frames={meter.frames} data-level={meter.level.toFixed(3)}>
      <div class="row">
        <label>
          Listen to
          <select
            name="channel"
            value={channel}
            disabled={active}
            onChange={(e) => setChannel(e.currentTarget.value as RecordingChannel)}
          >
            {(["mixed", "agent", "remote"] as const).map((c) => <option key={c} value={c}>{channelNames[c]}</option>)}
          </select>
        </label>
        {active
          ? (
            <button
              type="button"
              onClick={() => {
                stop()
                setState({ _tag: "Idle" })
              }}
            >
              Stop
            </button>
          )
          : <button type="button" class="primary listen" onClick={start}>Listen</button>}
      </div>
      <div
        class="meter"
        role="meter"
        aria-label="Level"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(meter.level * 100)}
      >
        <span style={{ width: `${Math.round(meter.level * 100)}%` }} />
      </div>
      <p class="muted" role="status" aria-live="polite">
        {state._tag === "Idle" && "Press Listen to hear the call in this browser."}
        {state._tag === "Connecting" && "Connecting…"}
        {state._tag === "Waiting" && "Connected: the audio starts when the call is answered."}
        {state._tag === "Listening" &&
          `Listening: ${meter.frames} frames${
            firstAudioMs === undefined ? "" : `, first audio ${(firstAudioMs / 1000).toFixed(2)} s after the click`
          }.`}
        {state._tag === "Ended" && `The call ended (${meter.frames} frames heard).`}
        {state._tag === "Failed" && <span class="error">{state.message}</span>}
      </p>
    </div>
  )
}
