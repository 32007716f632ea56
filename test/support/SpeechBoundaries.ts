/**
 * Where speech starts and ends in a call's recordings, found from the audio alone, to check the
 * turn latency the engine reports (`GET /v1/conversations/{call_id}/latency`) against what the
 * recordings hold: each reply's `agent_started_ms` at the start of a stretch of sound on the
 * `agent` channel, each `user_stopped_ms` at the end of one on the `remote` channel.
 *
 * A stretch of sound: 10 ms windows whose RMS is above `thresholdRms`, pauses shorter than
 * `bridgeMs` (between words) bridged. On the simulated carrier both sides are exact silence
 * between utterances, so the boundaries are sharp.
 */
import { Effect } from "effect"
import { WaveFile } from "wavefile"
import * as Daemon from "./Daemon.ts"

/** A stretch of sound, in ms from the start of the recording (the answer). */
export interface Stretch {
  readonly startMs: number
  readonly endMs: number
}

const windowMs = 10

/**
 * The stretches of sound in 8 kHz PCM.
 *
 * @category decoding
 */
export const stretches = (
  samples: Int16Array,
  options: { readonly thresholdRms?: number; readonly bridgeMs?: number } = {}
): Array<Stretch> => {
  const threshold = options.thresholdRms ?? 100
  const bridgeMs = options.bridgeMs ?? 150
  const perWindow = 8 * windowMs
  const out: Array<{ startMs: number; endMs: number }> = []
  for (let at = 0; at < samples.length; at += perWindow) {
    const end = Math.min(samples.length, at + perWindow)
    let sum = 0
    for (let i = at; i < end; i++) sum += samples[i]! * samples[i]!
    if (Math.sqrt(sum / (end - at)) <= threshold) continue
    // the exact edges: the first and last sample above the threshold's level in the window
    let first = at
    while (first < end && Math.abs(samples[first]!) <= threshold) first++
    let last = end - 1
    while (last > first && Math.abs(samples[last]!) <= threshold) last--
    const startMs = first / 8
    const endMs = (last + 1) / 8
    const previous = out.at(-1)
    if (previous !== undefined && startMs - previous.endMs < bridgeMs) previous.endMs = endMs
    else out.push({ startMs, endMs })
  }
  return out
}

/**
 * A channel's recording of a call, as 8 kHz PCM.
 *
 * @category fetching
 */
export const channel = (url: string, key: string, callId: string, name: "agent" | "remote") =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/v1/conversations/${callId}/channels/${name}/recording`, Daemon.bearer(key))
    if (response.status !== 200) throw new Error(`${name} recording of ${callId}: ${response.status}`)
    const wav = new WaveFile(new Uint8Array(await response.arrayBuffer()))
    wav.toBitDepth("16")
    return wav.getSamples(false, Int16Array) as unknown as Int16Array
  })

/**
 * The stretch whose `edge` is nearest `ms`.
 *
 * @category matching
 */
export const nearest = (found: ReadonlyArray<Stretch>, edge: "startMs" | "endMs", ms: number): Stretch | undefined =>
  found.reduce<Stretch | undefined>(
    (best, stretch) => best === undefined || Math.abs(stretch[edge] - ms) < Math.abs(best[edge] - ms) ? stretch : best,
    undefined
  )
