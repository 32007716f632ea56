/**
 * A recording's waveform, reduced for drawing: the WAV's 16-bit samples (media's WAV codec)
 * bucketed into at most `buckets` pairs of (max, min), scaled to -1..1. Drawing a 5-minute call
 * (2.4 million samples a channel) from 8,000 values keeps the page responsive.
 */
import * as Wav from "@voice-agent/media/Wav"
import { Result } from "effect"

/**
 * @category models
 */
export interface Waveform {
  readonly peaks: Float32Array
  /** Seconds of audio in the file. */
  readonly duration: number
}

/**
 * @category decoding
 */
export const waveform = (file: Uint8Array, buckets = 4000): Waveform => {
  const header = Result.getOrThrow(Wav.parseHeader(file))
  const dataBytes = Wav.readableDataBytes(header, file.length)
  const samples = Wav.decodeSamples(file.subarray(header.dataOffset, header.dataOffset + dataBytes))
  const count = Math.max(1, Math.min(buckets, samples.length))
  const size = samples.length / count
  const peaks = new Float32Array(count * 2)
  for (let b = 0; b < count; b++) {
    let max = 0
    let min = 0
    const end = Math.min(samples.length, Math.floor((b + 1) * size))
    for (let i = Math.floor(b * size); i < end; i++) {
      const s = samples[i]!
      if (s > max) max = s
      if (s < min) min = s
    }
    peaks[2 * b] = max / 32768
    peaks[2 * b + 1] = min / 32768
  }
  return { peaks, duration: samples.length / header.sampleRate }
}
