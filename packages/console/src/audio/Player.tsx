/**
 * A call's recording in a player: the `mixed` recording plays, and the agent's and the person's
 * waveforms are drawn one above the other on one time axis (wavesurfer.js with two channels of
 * peaks and its timeline). `seek` moves the playhead (transcript turns call it).
 */
import { useEffect, useRef, useState } from "preact/hooks"
import type WaveSurfer from "wavesurfer.js"
import { position } from "../Format.ts"
import type { Waveform } from "./Peaks.ts"

/**
 * @category models
 */
export interface PlayerHandle {
  readonly seek: (seconds: number) => void
}

const color = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim()

export const Player = (
  { mixed, agent, remote, onReady, onTime }: {
    readonly mixed: Blob
    readonly agent: Waveform
    readonly remote: Waveform
    readonly onReady: (handle: PlayerHandle) => void
    readonly onTime: (seconds: number) => void
  }
) => {
  const container = useRef<HTMLDivElement>(null)
  const timeline = useRef<HTMLDivElement>(null)
  const [player, setPlayer] = useState<WaveSurfer | undefined>(undefined)
  const [playing, setPlaying] = useState(false)
  const [time, setTime] = useState(0)
  const [length, setLength] = useState(Math.max(agent.duration, remote.duration))

  useEffect(() => {
    let disposed = false
    let instance: WaveSurfer | undefined
    void Promise.all([import("wavesurfer.js"), import("wavesurfer.js/dist/plugins/timeline.esm.js")]).then(
      ([{ default: WaveSurferModule }, { default: TimelinePlugin }]) => {
        if (disposed || container.current === null || timeline.current === null) return
        const agentColor = color("--agent")
        const remoteColor = color("--remote")
        instance = WaveSurferModule.create({
          container: container.current,
          height: 64,
          normalize: false,
          cursorColor: color("--text"),
          cursorWidth: 2,
          interact: true,
          splitChannels: [
            { waveColor: agentColor, progressColor: agentColor, overlay: false },
            { waveColor: remoteColor, progressColor: remoteColor, overlay: false }
          ],
          plugins: [TimelinePlugin.create({ container: timeline.current })]
        })
        instance.on("timeupdate", (seconds) => {
          setTime(seconds)
          onTime(seconds)
        })
        instance.on("play", () => setPlaying(true))
        instance.on("pause", () => setPlaying(false))
        instance.on("finish", () => setPlaying(false))
        instance.on("ready", (seconds) => setLength(seconds))
        void instance.loadBlob(mixed, [agent.peaks, remote.peaks], Math.max(agent.duration, remote.duration))
        setPlayer(instance)
        onReady({ seek: (seconds) => instance?.setTime(seconds) })
      }
    )
    return () => {
      disposed = true
      instance?.destroy()
    }
  }, [mixed, agent, remote])

  return (
    <div class="player" data-duration={length} data-time={time} data-playing={playing}>
      <div class="labels" aria-hidden="true">
        <span class="agent">■ Agent</span>
        <span class="remote">■ Person</span>
      </div>
      <div ref={container} class="waveform" aria-label="Waveforms: the agent above, the person below" role="img" />
      <div ref={timeline} class="timeline" aria-hidden="true" />
      <div class="row">
        <button
          type="button"
          class="primary play"
          disabled={player === undefined}
          onClick={() => void player?.playPause()}
        >
          {playing ? "Pause" : "Play"}
        </button>
        <span class="mono" aria-live="off">
          <span class="current-time">{position(time * 1000)}</span> / {position(length * 1000)}
        </span>
      </div>
    </div>
  )
}
