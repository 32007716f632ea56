/**
 * G.711 A-law: 8-bit codes to and from 16-bit linear PCM, one sample or a whole frame (PCMA,
 * RTP payload type 8, what European SIP trunks send).
 *
 * Owns: the code ↔ sample mapping only, like `MuLaw`: signed 16-bit samples, byte codes, any
 * length, fresh output arrays. The formulas are the CCITT/Sun `alaw2linear` and `linear2alaw`
 * (13-bit linear: the three low bits of a sample never change its code; even bits inverted by
 * XOR 0x55), which is what Python's `audioop.lin2alaw`/`alaw2lin` compute. Silence is `0xD5`
 * (decodes to +8; A-law has no code for 0).
 *
 * @since 0.1.0
 */

const SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff]

const decodeTable: Int16Array = (() => {
  const table = new Int16Array(256)
  for (let code = 0; code < 256; code++) {
    const a = code ^ 0x55
    let t = (a & 0x0f) << 4
    const segment = (a & 0x70) >> 4
    if (segment === 0) t += 8
    else t = (t + 0x108) << (segment - 1)
    table[code] = (a & 0x80) !== 0 ? t : -t
  }
  return table
})()

/**
 * The A-law code of (near) silence: decodes to +8.
 *
 * @category encoding
 */
export const SILENCE = 0xd5

/**
 * Decodes one A-law code (0..255) to a 16-bit linear sample (-32256..32256).
 *
 * @category decoding
 */
export const decodeSample = (code: number): number => decodeTable[code & 0xff]!

/**
 * Encodes one 16-bit linear sample (clamped to -32768..32767) to its A-law code.
 *
 * @category encoding
 */
export const encodeSample = (sample: number): number => {
  let value = Math.max(-32768, Math.min(32767, Math.trunc(sample))) >> 3
  let mask: number
  if (value >= 0) mask = 0xd5
  else {
    mask = 0x55
    value = -value - 1
  }
  let segment = 0
  while (segment < 8 && value > SEGMENT_ENDS[segment]!) segment++
  if (segment >= 8) return 0x7f ^ mask
  const quantized = segment < 2 ? (value >> 1) & 0x0f : (value >> segment) & 0x0f
  return ((segment << 4) | quantized) ^ mask
}

const encodeTable: Uint8Array = (() => {
  const table = new Uint8Array(1 << 13)
  for (let i = 0; i < table.length; i++) table[i] = encodeSample((i - (1 << 12)) << 3)
  return table
})()

/**
 * Decodes A-law codes to 16-bit linear samples.
 *
 * @category decoding
 */
export const decode = (codes: Uint8Array): Int16Array => {
  const out = new Int16Array(codes.length)
  for (let i = 0; i < codes.length; i++) out[i] = decodeTable[codes[i]!]!
  return out
}

/**
 * Encodes 16-bit linear samples to A-law codes.
 *
 * @category encoding
 */
export const encode = (samples: Int16Array): Uint8Array => {
  const out = new Uint8Array(samples.length)
  for (let i = 0; i < samples.length; i++) out[i] = encodeTable[(samples[i]! >> 3) + (1 << 12)]!
  return out
}
