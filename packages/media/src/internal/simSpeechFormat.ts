/**
 * Simulated speech's data carrier, as both sides know it: the symbol layout of an utterance
 * (preamble, lengths, CRCs, filler, end marker), its tones and their waveform, and the
 * decoder's filter, whose delay sets the utterance's tail. `SimSpeech` documents the format
 * and exports what callers use; the encoder (`SimSpeech.encode`) and the streaming decoder
 * (`simSpeechDecoder`) both read it from here.
 */
import { kaiserLowPass } from "../Resample.ts"

/** Samples per second. */
export const SAMPLE_RATE = 8000

/** Samples per symbol (25 ms). */
export const SYMBOL_SAMPLES = 200

/** The data band: the lowest and highest tone, in Hz. */
export const DATA_BAND_HZ = { low: 2800, high: 3400 } as const

export const N = SYMBOL_SAMPLES
const FIRST_BIN = DATA_BAND_HZ.low / (SAMPLE_RATE / N)
export const PREAMBLE = [0, 15, 3, 12, 6, 9] as const
export const END_MARKER = [5, 10] as const
export const HEADER_SYMBOLS = 8
export const CRC_SYMBOLS = 4
/** Every symbol but the payload's and the filler's. */
export const FIXED_SYMBOLS = PREAMBLE.length + HEADER_SYMBOLS + CRC_SYMBOLS + END_MARKER.length
export const MAX_FILLER = 0xfff
export const FADE_SAMPLES = 40

/** Cycles per symbol window of each of the 16 tones. */
export const toneBin = (symbol: number): number => FIRST_BIN + symbol

export const sine = Float64Array.from({ length: N }, (_, m) => Math.sin((2 * Math.PI * m) / N))

/** The decoder's high-pass filter: a unit impulse at its centre less a low-pass. */
export const dataFilter = (() => {
  // 305 Hz of transition rather than 300: 79 taps, so that the tail is 40 samples (5 ms)
  const taps = kaiserLowPass(2650 / SAMPLE_RATE, 305 / SAMPLE_RATE, 50).map((tap) => -tap)
  taps[(taps.length - 1) / 2] = taps[(taps.length - 1) / 2]! + 1
  return taps
})()

/** Samples between a kept sample and the filtered sample the decoder reads for it. */
export const FILTER_DELAY = (dataFilter.length - 1) / 2

/**
 * Samples the last tone rings on after the end marker (7 ms): the ones the decoder's filter
 * needs past the end marker's window (39), the one it looks ahead to align each symbol, and 16
 * more for its alignment to catch up with samples lost on the way (a resampler can take a
 * quiet sample below the decoder's threshold): it reads the end marker with one of the
 * utterance's last 17 samples. With an even number of symbols, an utterance that starts on a
 * 20 ms frame's first sample has 56 or 136 samples in its last frame: it is read in that frame.
 */
export const TAIL_SAMPLES = 56

export const crc8 = (bytes: ArrayLike<number>): number => {
  let crc = 0
  for (let i = 0; i < bytes.length; i++) {
    crc ^= bytes[i]!
    for (let bit = 0; bit < 8; bit++) crc = (crc & 0x80) !== 0 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff
  }
  return crc
}

export const crc16 = (bytes: ArrayLike<number>): number => {
  let crc = 0xffff
  for (let i = 0; i < bytes.length; i++) {
    crc ^= bytes[i]! << 8
    for (let bit = 0; bit < 8; bit++) crc = (crc & 0x8000) !== 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc
}

export const utf8Encoder = new TextEncoder()
export const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The symbols of the data carrier of `bytes` with `filler` filler symbols. */
export const symbolsOf = (bytes: Uint8Array, filler: number): Array<number> => {
  const length = bytes.length
  const lengths = [length >> 8, length & 0xff, filler >> 8, filler & 0xff]
  const headerCheck = crc8(lengths)
  const symbols: Array<number> = [...PREAMBLE, length >> 8, (length >> 4) & 15, length & 15]
  symbols.push(filler >> 8, (filler >> 4) & 15, filler & 15)
  symbols.push(headerCheck >> 4, headerCheck & 15)
  for (const byte of bytes) symbols.push(byte >> 4, byte & 15)
  const check = crc16([...lengths, ...bytes])
  symbols.push(check >> 12, (check >> 8) & 15, (check >> 4) & 15, check & 15)
  for (let i = 0; i < filler; i++) symbols.push((7 * i + 3) % 16)
  symbols.push(...END_MARKER)
  return symbols
}
