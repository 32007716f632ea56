import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as ALaw from "./ALaw.ts"
import * as MuLaw from "./MuLaw.ts"

const allCodes = Uint8Array.from({ length: 256 }, (_, i) => i)
const allSamples = Int16Array.from({ length: 65536 }, (_, i) => i - 32768)

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")
const int16le = (samples: Int16Array) => new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)

describe("ALaw", () => {
  it("is byte-for-byte Python's audioop.lin2alaw and alaw2lin", () => {
    // python3: hashlib.sha256(audioop.lin2alaw(struct.pack('<65536h', *range(-32768, 32768)), 2))
    assert.strictEqual(
      sha256(ALaw.encode(allSamples)),
      "38488f6fd710f4686360edc4d38639f96c491595ef93f8eb8d62d5e07ca6ce7b"
    )
    // python3: hashlib.sha256(audioop.alaw2lin(bytes(range(256)), 2))
    assert.strictEqual(
      sha256(int16le(ALaw.decode(allCodes))),
      "e04788d110e58ff8c70c93b8480190d973e3b67876b6119abbaec766cc75c174"
    )
  })

  it("decodes the G.711 reference points", () => {
    assert.strictEqual(ALaw.decodeSample(0xd5), 8)
    assert.strictEqual(ALaw.decodeSample(0x55), -8)
    assert.strictEqual(ALaw.decodeSample(0xaa), 32256)
    assert.strictEqual(ALaw.decodeSample(0x2a), -32256)
    assert.strictEqual(ALaw.decodeSample(0xd4), 24)
    assert.strictEqual(ALaw.decodeSample(0xc5), 264)
  })

  it("encodes the extremes and silence", () => {
    assert.strictEqual(ALaw.encodeSample(0), ALaw.SILENCE)
    assert.strictEqual(ALaw.encodeSample(-1), 0x55)
    assert.strictEqual(ALaw.encodeSample(32767), 0xaa)
    assert.strictEqual(ALaw.encodeSample(-32768), 0x2a)
  })

  it("round-trips every code, and encoding is monotonic over every sample", () => {
    for (const code of allCodes) assert.strictEqual(ALaw.encodeSample(ALaw.decodeSample(code)), code)
    const decoded = Array.from(ALaw.decode(ALaw.encode(allSamples)))
    for (let i = 1; i < decoded.length; i++) assert.isTrue(decoded[i]! >= decoded[i - 1]!)
  })

  it("the batch functions agree with the sample functions", () => {
    const encoded = ALaw.encode(allSamples)
    for (let i = 0; i < allSamples.length; i += 7) assert.strictEqual(encoded[i], ALaw.encodeSample(allSamples[i]!))
    assert.deepStrictEqual(Array.from(ALaw.decode(allCodes)), Array.from(allCodes, ALaw.decodeSample))
  })

  it("keeps a tone within G.711's error, as μ-law does", () => {
    const tone = Int16Array.from(
      { length: 160 },
      (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * 440 * i) / 8000))
    )
    const error = (decoded: Int16Array) => Math.max(...Array.from(decoded, (s, i) => Math.abs(s - tone[i]!)))
    assert.isBelow(error(ALaw.decode(ALaw.encode(tone))), 260)
    assert.isBelow(error(MuLaw.decode(MuLaw.encode(tone))), 260)
  })
})
