import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { mono8k4000Samples, mono8kEmpty, stereo8k8000Frames } from "../test/fixtures/wav.goldens.ts"
import * as Wav from "./Wav.ts"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
const fromHex = (text: string) => Uint8Array.from(Buffer.from(text, "hex"))
const u32 = (bytes: Uint8Array, offset: number) => new DataView(bytes.buffer, bytes.byteOffset).getUint32(offset, true)
const parsed = (bytes: Uint8Array) => Result.getOrThrow(Wav.parseHeader(bytes))
const parseFailure = (bytes: Uint8Array) => {
  const result = Wav.parseHeader(bytes)
  assert.isTrue(Result.isFailure(result))
  return Result.isFailure(result) ? result.failure.reason : undefined
}

describe("header", () => {
  it("equals the header SoX writes (8 kHz mono, 16-bit PCM)", () => {
    assert.strictEqual(hex(Wav.header(8000)), mono8k4000Samples)
    assert.strictEqual(hex(Wav.header(0)), mono8kEmpty)
  })
  it("writes other formats (8 kHz stereo, as SoX does)", () => {
    assert.strictEqual(hex(Wav.header(32000, { channels: 2 })), stereo8k8000Frames)
    const wide = parsed(Wav.header(4, { sampleRate: 16000 }))
    assert.deepStrictEqual([wide.sampleRate, wide.byteRate, wide.blockAlign], [16000, 32000, 2])
  })
  it("declares MAX_DATA_BYTES past the 32-bit limit", () => {
    const bytes = Wav.header(2 ** 40)
    assert.strictEqual(u32(bytes, Wav.DATA_SIZE_OFFSET), Wav.MAX_DATA_BYTES)
    assert.strictEqual(u32(bytes, Wav.RIFF_SIZE_OFFSET), 0xffffffff)
  })
  it("rejects sizes and formats that are caller bugs", () => {
    assert.throws(() => Wav.header(-2), RangeError)
    assert.throws(() => Wav.header(1.5), RangeError)
    assert.throws(() => Wav.header(0, { channels: 0 }), RangeError)
    assert.throws(() => Wav.header(0, { sampleRate: 0 }), RangeError)
  })
})

describe("streamingHeader / patchSizes", () => {
  it("starts with 0xFFFFFFFF placeholders at offsets 4 and 40 and the final format", () => {
    const bytes = Wav.streamingHeader()
    assert.strictEqual(bytes.length, Wav.HEADER_BYTES)
    assert.strictEqual(u32(bytes, 4), Wav.PLACEHOLDER_SIZE)
    assert.strictEqual(u32(bytes, 40), Wav.PLACEHOLDER_SIZE)
    const final = Wav.header(0)
    assert.strictEqual(hex(bytes.subarray(8, 40)), hex(final.subarray(8, 40)))
  })
  it("patches into exactly the header of the final size", () => {
    for (const dataBytes of [0, 2, 8000, 24000, Wav.MAX_DATA_BYTES]) {
      const bytes = Wav.streamingHeader()
      const patches = Wav.patchSizes(dataBytes)
      assert.deepStrictEqual(patches.map((p) => p.offset), [Wav.RIFF_SIZE_OFFSET, Wav.DATA_SIZE_OFFSET])
      for (const { offset, bytes: patch } of patches) bytes.set(patch, offset)
      assert.strictEqual(hex(bytes), hex(Wav.header(dataBytes)), `${dataBytes}`)
    }
    assert.strictEqual(hex(Wav.patchSizes(24000)[0].bytes), "e45d0000") // 24036 = 36 + 24000, little-endian
    assert.strictEqual(hex(Wav.patchSizes(24000)[1].bytes), "c05d0000")
  })
  it("keeps the format of a streaming header of another format", () => {
    const bytes = Wav.streamingHeader({ channels: 2 })
    for (const { offset, bytes: patch } of Wav.patchSizes(32000)) bytes.set(patch, offset)
    assert.strictEqual(hex(bytes), stereo8k8000Frames)
  })
})

describe("parseHeader", () => {
  it("reads the SoX header", () => {
    assert.deepStrictEqual(parsed(fromHex(mono8k4000Samples)), {
      formatTag: 1,
      channels: 1,
      sampleRate: 8000,
      byteRate: 16000,
      blockAlign: 2,
      bitsPerSample: 16,
      riffSize: 8036,
      dataOffset: 44,
      dataSize: 8000
    })
  })
  it("reads its own headers back, placeholders included", () => {
    assert.strictEqual(parsed(Wav.header(1234)).dataSize, 1234)
    const streaming = parsed(Wav.streamingHeader())
    assert.strictEqual(streaming.dataSize, Wav.PLACEHOLDER_SIZE)
    assert.strictEqual(streaming.riffSize, Wav.PLACEHOLDER_SIZE)
  })
  it("skips chunks before data, with their pad byte, and accepts a view at any offset", () => {
    const canonical = Wav.header(6)
    const list = Uint8Array.of(0x4c, 0x49, 0x53, 0x54, 3, 0, 0, 0, 1, 2, 3, 0) // "LIST", odd size 3, pad
    const bytes = new Uint8Array(1 + canonical.length + list.length)
    bytes.set(canonical.subarray(0, 36), 1)
    bytes.set(list, 37)
    bytes.set(canonical.subarray(36), 37 + list.length)
    const header = parsed(bytes.subarray(1))
    assert.strictEqual(header.dataOffset, 44 + list.length)
    assert.strictEqual(header.dataSize, 6)
  })
  it("fails with a reason on bytes that are not a WAV header", () => {
    const good = Wav.header(0)
    const edited = (offset: number, text: string) => {
      const copy = good.slice()
      copy.set(new TextEncoder().encode(text), offset)
      return copy
    }
    assert.strictEqual(parseFailure(new Uint8Array(0)), "NotRiff")
    assert.strictEqual(parseFailure(edited(0, "RIFX")), "NotRiff")
    assert.strictEqual(parseFailure(edited(8, "AVI ")), "NotWave")
    assert.strictEqual(parseFailure(good.subarray(0, 40)), "Truncated")
    assert.strictEqual(parseFailure(good.subarray(0, 30)), "Truncated")
    assert.strictEqual(parseFailure(edited(12, "data")), "MissingFmt")
    const shortFmt = good.slice()
    shortFmt[16] = 14
    assert.strictEqual(parseFailure(shortFmt), "BadFmt")
  })
})

describe("readableDataBytes", () => {
  it("takes the declared size, or everything to EOF for a placeholder, never more than the file holds", () => {
    const declared = parsed(Wav.header(100))
    assert.strictEqual(Wav.readableDataBytes(declared, 44 + 200), 100)
    assert.strictEqual(Wav.readableDataBytes(declared, 44 + 50), 50)
    const streaming = parsed(Wav.streamingHeader())
    assert.strictEqual(Wav.readableDataBytes(streaming, 44 + 320), 320)
    assert.strictEqual(Wav.readableDataBytes(streaming, 44), 0)
    assert.strictEqual(Wav.readableDataBytes(parsed(Wav.header(0)), 44), 0)
  })
})

describe("encodeSamples / decodeSamples", () => {
  it("are little-endian", () => {
    assert.strictEqual(hex(Wav.encodeSamples(Int16Array.of(1, -2, 0x1234, -32768, 32767))), "0100feff34120080ff7f")
    assert.deepStrictEqual(Array.from(Wav.decodeSamples(fromHex("0100feff34120080ff7f"))), [
      1,
      -2,
      0x1234,
      -32768,
      32767
    ])
  })
  it("ignore an odd trailing byte and read views at odd offsets", () => {
    const bytes = fromHex("aa0100feff99")
    assert.deepStrictEqual(Array.from(Wav.decodeSamples(bytes.subarray(1))), [1, -2])
  })
  // what the DataView loop wrote before the little-endian copy, byte for byte, and a new buffer
  const reference = (samples: Int16Array) => {
    const bytes = new Uint8Array(samples.length * 2)
    for (let i = 0; i < samples.length; i++) new DataView(bytes.buffer).setInt16(i * 2, samples[i]!, true)
    return bytes
  }
  it("encode views at any offset to the little-endian bytes, in a buffer of their own", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -32768, max: 32767 })), fc.nat(), fc.nat(), (values, from, to) => {
        const all = Int16Array.from(values)
        const view = all.subarray(from % (all.length + 1), to % (all.length + 1))
        const bytes = Wav.encodeSamples(view)
        const expected = reference(view)
        assert.deepStrictEqual(bytes, expected)
        assert.strictEqual(bytes.byteOffset, 0)
        assert.strictEqual(bytes.buffer.byteLength, view.length * 2)
        all.fill(7)
        assert.deepStrictEqual(bytes, expected)
      })
    )
  })
  it("decode views at any offset, Buffers included, into an array of their own", () => {
    fc.assert(
      fc.property(fc.uint8Array(), fc.nat(), fc.nat(), fc.boolean(), (values, from, to, asBuffer) => {
        const all = asBuffer ? Buffer.from(values) : Uint8Array.from(values)
        const view = all.subarray(from % (all.length + 1), to % (all.length + 1))
        const expected = Array.from(
          { length: view.length >> 1 },
          (_, i) => (view[2 * i]! | (view[2 * i + 1]! << 8)) << 16 >> 16
        )
        const samples = Wav.decodeSamples(view)
        assert.deepStrictEqual(Array.from(samples), expected)
        assert.strictEqual(samples.byteOffset, 0)
        assert.strictEqual(samples.buffer.byteLength, samples.byteLength)
        view.fill(7)
        assert.deepStrictEqual(Array.from(samples), expected)
      })
    )
  })
  it("round-trip every sample value", () => {
    const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768)
    assert.deepStrictEqual(Wav.decodeSamples(Wav.encodeSamples(all)), all)
  })
})
