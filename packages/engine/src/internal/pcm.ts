/**
 * PCM arrays as the media session gathers them.
 */

/** The arrays end to end, in a new array (the one array itself when there is only one). */
export const concat = (parts: ReadonlyArray<Int16Array>): Int16Array => {
  if (parts.length === 1) return parts[0]!
  let length = 0
  for (const part of parts) length += part.length
  const all = new Int16Array(length)
  let offset = 0
  for (const part of parts) {
    all.set(part, offset)
    offset += part.length
  }
  return all
}
