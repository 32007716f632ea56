/**
 * Mixing two mono channels of 16-bit linear PCM into one: the sample-wise sum, saturated.
 *
 * Owns: the sum and its clipping. Samples are `Int16Array`s at the same rate, aligned from
 * sample 0; the shorter channel counts as silence past its end (padded, never truncated:
 * trimming to the shorter one was Pipecat's bug, fixed in pipecat-ai/pipecat#2676). The sum
 * is taken in double precision and clipped to -32768..32767, as Pipecat's `mix_audio` does.
 * Does not own alignment in time (the recorder places samples on the call's timeline) or
 * resampling.
 *
 * Buffer ownership: `mix` returns a new array and never modifies or keeps its inputs.
 *
 * @since 0.1.0
 */

/**
 * Clips a sum to the 16-bit range.
 *
 * @category math
 */
export const saturate = (value: number): number => value > 32767 ? 32767 : value < -32768 ? -32768 : value

/**
 * The saturated sample-wise sum of `a` and `b`, as long as the longer of the two.
 *
 * @category math
 */
export const mix = (a: Int16Array, b: Int16Array): Int16Array => {
  const [longer, shorter] = a.length >= b.length ? [a, b] : [b, a]
  const out = new Int16Array(longer.length)
  for (let i = 0; i < shorter.length; i++) out[i] = saturate(longer[i]! + shorter[i]!)
  out.set(longer.subarray(shorter.length), shorter.length)
  return out
}
