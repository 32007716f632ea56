/**
 * PCM arrays as the media session gathers them.
 */

/**
 * The arrays end to end. When they already lie end to end in one buffer (a synthesizer's frames
 * cut from one decoded or cached line), a view of that buffer; else a new array (the one array
 * itself when there is only one). The result is for reading: it may share the inputs' memory.
 */
export const concat = (parts: ReadonlyArray<Int16Array>): Int16Array => {
  if (parts.length === 1) return parts[0]!
  let length = 0
  let adjacent = true
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (i > 0) {
      const before = parts[i - 1]!
      adjacent &&= part.buffer === before.buffer && part.byteOffset === before.byteOffset + before.byteLength
    }
    length += part.length
  }
  if (adjacent && parts.length > 0) return new Int16Array(parts[0]!.buffer, parts[0]!.byteOffset, length)
  const all = new Int16Array(length)
  let offset = 0
  for (const part of parts) {
    all.set(part, offset)
    offset += part.length
  }
  return all
}
