/**
 * The DTMF keys heard in a recording (8 kHz, 16-bit): each 20 ms block's power at the four row
 * and four column frequencies (Goertzel); a key is a run of at least two blocks whose strongest
 * row and column tones each hold a clear share of the block's energy, and the same key again
 * needs a block without it in between. For tests: the engine plays keys as tones in band, so
 * the recording is what the person heard.
 */
import { WaveFile } from "wavefile"

const ROWS = [697, 770, 852, 941] as const
const COLUMNS = [1209, 1336, 1477, 1633] as const
const KEYS = ["123A", "456B", "789C", "*0#D"] as const
const BLOCK = 160

const power = (block: Int16Array, frequency: number, rate: number): number => {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / rate)
  let previous = 0
  let beforePrevious = 0
  for (const sample of block) {
    const current = sample + coefficient * previous - beforePrevious
    beforePrevious = previous
    previous = current
  }
  return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
}

const strongest = (powers: ReadonlyArray<number>): number => powers.indexOf(Math.max(...powers))

/** The key a block holds, if any. */
const keyOf = (block: Int16Array, rate: number): string | undefined => {
  let energy = 0
  for (const sample of block) energy += sample * sample
  if (energy / block.length < 1e5) return undefined
  const rows = ROWS.map((f) => power(block, f, rate))
  const columns = COLUMNS.map((f) => power(block, f, rate))
  const row = strongest(rows)
  const column = strongest(columns)
  // A pure tone's share of the block's energy is 2 P / (n E) (Goertzel power P); a key is two
  // tones, each with about half (one tone alone, speech or noise is not a key).
  const share = (p: number) => (2 * p) / (block.length * energy)
  return share(rows[row]!) > 0.3 && share(columns[column]!) > 0.3 ? KEYS[row]![column] : undefined
}

/**
 * @category decoding
 */
export const keysIn = (samples: Int16Array, rate = 8000): string => {
  let keys = ""
  let current: string | undefined
  let run = 0
  for (let at = 0; at + BLOCK <= samples.length; at += BLOCK) {
    const key = keyOf(samples.subarray(at, at + BLOCK), rate)
    if (key === current) {
      run++
      if (run === 2 && key !== undefined) keys += key
    } else {
      current = key
      run = 1
    }
  }
  return keys
}

/**
 * The keys in a WAV file's first channel.
 *
 * @category decoding
 */
export const keysInWav = (bytes: Uint8Array): string => {
  const wav = new WaveFile(bytes)
  wav.toBitDepth("16")
  const format = wav.fmt as { readonly sampleRate: number }
  const samples = wav.getSamples(false, Int16Array) as unknown as Int16Array
  return keysIn(samples, format.sampleRate)
}
