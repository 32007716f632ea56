/**
 * WAV (RIFF) for 16-bit linear PCM: the canonical 44-byte header, the placeholder header and
 * size patches of a streaming writer, a header parser, and the sample codec of the data chunk.
 *
 * Owns: byte layouts. Pure: bytes in, bytes or plain data out; no file handles. A writer
 * (the filesystem recording store, for example) writes `streamingHeader()`, appends
 * `encodeSamples(frame)` as frames arrive, and on close writes each of `patchSizes(total)`
 * at its offset.
 *
 * Format: PCM (format tag 1), 16 bits per sample, mono at 8000 Hz unless told otherwise;
 * samples of several channels are interleaved by the caller. Everything is little-endian:
 * the header's integers (written through `DataView`) and the samples (copied as they are on a
 * little-endian host, swapped through `DataView` on a big-endian one), whatever the host's
 * byte order. Header layout (Microsoft WAVEFORMATEX, Microsoft's WAVEFORMATEX):
 *
 * | offset | bytes | field                                  |
 * | ------ | ----- | -------------------------------------- |
 * | 0      | 4     | "RIFF"                                 |
 * | 4      | 4     | RIFF size = file size − 8 = 36 + data  |
 * | 8      | 4     | "WAVE"                                 |
 * | 12     | 4     | "fmt "                                 |
 * | 16     | 4     | 16 (fmt chunk size for PCM)            |
 * | 20     | 2     | 1 (PCM)                                |
 * | 22     | 2     | channels                               |
 * | 24     | 4     | sample rate                            |
 * | 28     | 4     | byte rate = rate × block align         |
 * | 32     | 2     | block align = channels × 2             |
 * | 34     | 2     | 16 (bits per sample)                   |
 * | 36     | 4     | "data"                                 |
 * | 40     | 4     | data size in bytes                     |
 *
 * Streaming placeholders are `0xFFFFFFFF`, not 0: FFmpeg and Python's `wave` then read to
 * the end of the file, while Python rejects a RIFF size of 0 and reads no frames for a data
 * size of 0 (measured, Microsoft's WAVEFORMATEX). Sizes are 32-bit; a data size past
 * `MAX_DATA_BYTES` (about 74 h of 8 kHz mono) is declared as that maximum, so readers stop
 * early rather than read a wrapped size.
 *
 * Why no library: the header is 44 bytes of fixed layout; `wavefile` builds whole files in
 * memory and has no notion of a placeholder header patched later, which is what a recording
 * written frame by frame needs.
 *
 * Buffer ownership: every function returns freshly allocated bytes and keeps no reference to
 * its input.
 *
 * @since 0.1.0
 */
import { Data, Result } from "effect"

/**
 * Size of the canonical PCM header, and the offset of the first sample.
 *
 * @category encoding
 */
export const HEADER_BYTES = 44

/**
 * Offset of the RIFF chunk size (file size − 8), patched when a streaming writer closes.
 *
 * @category encoding
 */
export const RIFF_SIZE_OFFSET = 4

/**
 * Offset of the data chunk size, patched when a streaming writer closes.
 *
 * @category encoding
 */
export const DATA_SIZE_OFFSET = 40

/**
 * The size a streaming writer declares until it knows the real one.
 *
 * @category encoding
 */
export const PLACEHOLDER_SIZE = 0xffffffff

/**
 * The largest data size a 32-bit RIFF size can describe (0xFFFFFFFF − 36).
 *
 * @category encoding
 */
export const MAX_DATA_BYTES = 0xffffffff - 36

/**
 * @category models
 */
export interface Format {
  readonly sampleRate: number
  readonly channels: number
}

/**
 * Telephony recordings: 8000 Hz mono.
 *
 * @category constructors
 */
export const defaultFormat: Format = { sampleRate: 8000, channels: 1 }

const BITS_PER_SAMPLE = 16

const writeAscii = (view: DataView, offset: number, text: string): void => {
  for (let i = 0; i < text.length; i++) view.setUint8(offset + i, text.charCodeAt(i))
}

const checkedDataBytes = (dataBytes: number): number => {
  if (!Number.isSafeInteger(dataBytes) || dataBytes < 0) {
    throw new RangeError(`WAV data size must be a non-negative integer, got ${dataBytes}`)
  }
  return Math.min(dataBytes, MAX_DATA_BYTES)
}

const encode = (riffSize: number, dataSize: number, format: Partial<Format>): Uint8Array => {
  const { sampleRate, channels } = { ...defaultFormat, ...format }
  if (!Number.isInteger(sampleRate) || sampleRate < 1 || sampleRate > 0xffffffff) {
    throw new RangeError(`WAV sample rate must be a positive 32-bit integer, got ${sampleRate}`)
  }
  const blockAlign = channels * (BITS_PER_SAMPLE / 8)
  if (!Number.isInteger(channels) || channels < 1 || blockAlign * sampleRate > 0xffffffff) {
    throw new RangeError(`WAV channel count must be a positive integer, got ${channels}`)
  }
  const bytes = new Uint8Array(HEADER_BYTES)
  const view = new DataView(bytes.buffer)
  writeAscii(view, 0, "RIFF")
  view.setUint32(RIFF_SIZE_OFFSET, riffSize, true)
  writeAscii(view, 8, "WAVE")
  writeAscii(view, 12, "fmt ")
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, channels, true)
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * blockAlign, true)
  view.setUint16(32, blockAlign, true)
  view.setUint16(34, BITS_PER_SAMPLE, true)
  writeAscii(view, 36, "data")
  view.setUint32(DATA_SIZE_OFFSET, dataSize, true)
  return bytes
}

/**
 * The 44-byte header of a file whose data chunk holds `dataBytes` bytes of samples. Throws
 * a `RangeError` for a negative or fractional size or an impossible format (caller bugs);
 * sizes above `MAX_DATA_BYTES` are declared as `MAX_DATA_BYTES`.
 *
 * @category encoding
 */
export const header = (dataBytes: number, format: Partial<Format> = {}): Uint8Array => {
  const size = checkedDataBytes(dataBytes)
  return encode(36 + size, size, format)
}

/**
 * The header a streaming writer starts with: both sizes are `PLACEHOLDER_SIZE` until
 * `patchSizes` replaces them.
 *
 * @category encoding
 */
export const streamingHeader = (format: Partial<Format> = {}): Uint8Array =>
  encode(PLACEHOLDER_SIZE, PLACEHOLDER_SIZE, format)

/**
 * Four bytes to write at `offset` of a file that starts with `streamingHeader()`.
 *
 * @category models
 */
export interface SizePatch {
  readonly offset: number
  readonly bytes: Uint8Array
}

/**
 * What a streaming writer writes on close, once `dataBytes` bytes of samples follow the
 * header: the RIFF size at `RIFF_SIZE_OFFSET` and the data size at `DATA_SIZE_OFFSET`.
 * Applied to `streamingHeader(format)`, the result is `header(dataBytes, format)`.
 *
 * @category encoding
 */
export const patchSizes = (dataBytes: number): readonly [SizePatch, SizePatch] => {
  const size = checkedDataBytes(dataBytes)
  const u32 = (n: number): Uint8Array => {
    const bytes = new Uint8Array(4)
    new DataView(bytes.buffer).setUint32(0, n, true)
    return bytes
  }
  return [
    { offset: RIFF_SIZE_OFFSET, bytes: u32(36 + size) },
    { offset: DATA_SIZE_OFFSET, bytes: u32(size) }
  ]
}

/**
 * What `parseHeader` read. `dataSize` is the declared size, possibly a placeholder: see
 * `readableDataBytes`.
 *
 * @category models
 */
export interface Header {
  readonly formatTag: number
  readonly channels: number
  readonly sampleRate: number
  readonly byteRate: number
  readonly blockAlign: number
  readonly bitsPerSample: number
  readonly riffSize: number
  /** Offset of the first sample byte (44 for the canonical layout). */
  readonly dataOffset: number
  readonly dataSize: number
}

/**
 * Why bytes are not a readable WAV header.
 *
 * @category errors
 */
export class WavParseError extends Data.TaggedError("WavParseError")<{
  readonly reason: "NotRiff" | "NotWave" | "MissingFmt" | "BadFmt" | "Truncated"
}> {
  override get message(): string {
    return `Not a readable WAV header: ${this.reason}`
  }
}

const readAscii = (bytes: Uint8Array, offset: number): string =>
  String.fromCharCode(bytes[offset]!, bytes[offset + 1]!, bytes[offset + 2]!, bytes[offset + 3]!)

/**
 * Reads the RIFF/WAVE header at the start of `bytes`, walking the chunks up to the start of
 * the `data` chunk (so a `LIST` or `fact` chunk before it is skipped). `bytes` must reach at
 * least the data chunk's 8-byte header; the samples themselves are not needed. Any format tag
 * is reported as read: callers check for PCM.
 *
 * @category decoding
 */
export const parseHeader = (bytes: Uint8Array): Result.Result<Header, WavParseError> => {
  if (bytes.length < 12 || readAscii(bytes, 0) !== "RIFF") return Result.fail(new WavParseError({ reason: "NotRiff" }))
  if (readAscii(bytes, 8) !== "WAVE") return Result.fail(new WavParseError({ reason: "NotWave" }))
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const riffSize = view.getUint32(RIFF_SIZE_OFFSET, true)
  let fmt: Omit<Header, "riffSize" | "dataOffset" | "dataSize"> | undefined
  let offset = 12
  while (offset + 8 <= bytes.length) {
    const id = readAscii(bytes, offset)
    const size = view.getUint32(offset + 4, true)
    const body = offset + 8
    if (id === "data") {
      if (fmt === undefined) return Result.fail(new WavParseError({ reason: "MissingFmt" }))
      return Result.succeed({ ...fmt, riffSize, dataOffset: body, dataSize: size })
    }
    if (id === "fmt ") {
      if (size < 16) return Result.fail(new WavParseError({ reason: "BadFmt" }))
      if (body + 16 > bytes.length) break
      fmt = {
        formatTag: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        byteRate: view.getUint32(body + 8, true),
        blockAlign: view.getUint16(body + 12, true),
        bitsPerSample: view.getUint16(body + 14, true)
      }
    }
    // chunks are padded to an even size
    offset = body + size + (size & 1)
  }
  return Result.fail(new WavParseError({ reason: "Truncated" }))
}

/**
 * How many data bytes a reader should take from a file of `fileSize` bytes: the declared
 * size, or everything up to the end of the file when the declared size is a placeholder
 * (`0xFFFFFFFF`, or 0 as some writers leave it; FFmpeg reads to EOF for both), and never more
 * than the file holds (a file cut short declares more than it has).
 *
 * @category decoding
 */
export const readableDataBytes = (parsed: Header, fileSize: number): number => {
  const available = Math.max(0, fileSize - parsed.dataOffset)
  const placeholder = parsed.dataSize === PLACEHOLDER_SIZE || parsed.dataSize === 0
  return placeholder ? available : Math.min(parsed.dataSize, available)
}

/** Whether this host stores a 16-bit integer little-endian first (every platform Node runs on today). */
const LITTLE_ENDIAN_HOST = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1

/**
 * 16-bit samples as little-endian bytes (a new buffer of `2 × samples.length` bytes).
 *
 * On a little-endian host the samples' bytes are already in that order and are copied as they
 * are; a big-endian host swaps each sample through a `DataView`. Measured on this machine
 * (Node 24), 200 ms (1600 samples): 1.9 µs, most of it allocating the new buffer (4.4 µs
 * through the `DataView`); 20 ms: 0.7 µs.
 *
 * @category encoding
 */
export const encodeSamples = (samples: Int16Array): Uint8Array => {
  const bytes = new Uint8Array(samples.length * 2)
  if (LITTLE_ENDIAN_HOST) {
    bytes.set(new Uint8Array(samples.buffer, samples.byteOffset, bytes.length))
    return bytes
  }
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true)
  return bytes
}

/**
 * Little-endian bytes as 16-bit samples (a new array); an odd trailing byte is ignored.
 * `bytes` may be a view at any offset.
 *
 * On a little-endian host the bytes are copied as they are into the new array's buffer (which
 * is aligned whatever the offset of `bytes`); a big-endian host reads each sample through a
 * `DataView`. Measured on this machine (Node 24), 200 ms: 2.0 µs (3.7 µs through the `DataView`).
 *
 * @category decoding
 */
export const decodeSamples = (bytes: Uint8Array): Int16Array => {
  const samples = new Int16Array(bytes.length >> 1)
  if (LITTLE_ENDIAN_HOST) {
    new Uint8Array(samples.buffer).set(new Uint8Array(bytes.buffer, bytes.byteOffset, samples.byteLength))
    return samples
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true)
  return samples
}
