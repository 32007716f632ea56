/**
 * Plays a live call in the page: Media Streams frames (base64 μ-law, 8 kHz, 20 ms) decoded with
 * media's μ-law codec and scheduled back to back on Web Audio, about 120 ms behind the first
 * frame (a jitter buffer that restarts after a gap). Keeps the frame count and a level (dBFS of
 * the last frames, decaying) for a meter.
 */
import * as MuLaw from "@voice-agent/media/MuLaw"

const SAMPLE_RATE = 8000

/**
 * How far behind the first frame the audio plays (the jitter buffer).
 *
 * @category constructors
 */
export const BUFFER_S = 0.12
const FLOOR_DB = -60

/**
 * @category models
 */
export class LiveAudio {
  private readonly context = new AudioContext({ latencyHint: "interactive" })
  private nextAt = 0
  /** Frames received so far. */
  frames = 0
  /** The level of the latest audio, 0 (silence, -60 dBFS or less) to 1 (full scale). */
  level = 0

  /** Starts the audio output; call from the click that starts listening (autoplay rules). */
  resume(): Promise<void> {
    return this.context.resume()
  }

  /** Decodes and schedules one frame's payload. */
  push(payload: string): void {
    const binary = atob(payload)
    const codes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) codes[i] = binary.charCodeAt(i)
    const pcm = MuLaw.decode(codes)
    if (pcm.length === 0) return
    const buffer = this.context.createBuffer(1, pcm.length, SAMPLE_RATE)
    const channel = buffer.getChannelData(0)
    let sum = 0
    for (let i = 0; i < pcm.length; i++) {
      const s = pcm[i]! / 32768
      channel[i] = s
      sum += s * s
    }
    const db = 10 * Math.log10(sum / pcm.length + 1e-12)
    const level = Math.max(0, Math.min(1, (db - FLOOR_DB) / -FLOOR_DB))
    this.level = Math.max(level, this.level * 0.85)
    this.frames++
    const now = this.context.currentTime
    if (this.nextAt < now + 0.02) this.nextAt = now + BUFFER_S
    const source = this.context.createBufferSource()
    source.buffer = buffer
    source.connect(this.context.destination)
    source.start(this.nextAt)
    this.nextAt += buffer.duration
  }

  close(): void {
    void this.context.close()
  }
}
