import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import {
  decodePairs,
  decodeTableSha256,
  encodeAllSha256,
  encodePairs,
  twilioDocPayload
} from "../test/fixtures/mulaw.goldens.ts"
import * as MuLaw from "./MuLaw.ts"

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")
const allCodes = Uint8Array.from({ length: 256 }, (_, i) => i)
const allSamples = Int16Array.from({ length: 65536 }, (_, i) => i - 32768)
const int16le = (samples: Int16Array) => new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)

describe("decodeSample", () => {
  it("maps the documented codes", () => {
    assert.strictEqual(MuLaw.decodeSample(0xff), 0)
    assert.strictEqual(MuLaw.decodeSample(0x7f), 0)
    assert.strictEqual(MuLaw.decodeSample(0x00), -32124)
    assert.strictEqual(MuLaw.decodeSample(0x80), 32124)
    assert.strictEqual(MuLaw.decodeSample(0x01), -31100)
    assert.strictEqual(MuLaw.decodeSample(0xfe), 8)
    assert.deepStrictEqual([0, 1, 2, 3, 4, 5, 6, 7].map(MuLaw.decodeSample), [
      -32124,
      -31100,
      -30076,
      -29052,
      -28028,
      -27004,
      -25980,
      -24956
    ])
    assert.deepStrictEqual([0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff].map(MuLaw.decodeSample), [
      56,
      48,
      40,
      32,
      24,
      16,
      8,
      0
    ])
  })
  it("agrees with audioop on the golden pairs", () => {
    for (const [code, sample] of decodePairs) assert.strictEqual(MuLaw.decodeSample(code), sample, `code ${code}`)
  })
  it("is audioop's table byte for byte (sha256 of the Int16LE table)", () => {
    // the host is little-endian on every platform Node supports; the golden is Int16LE
    assert.strictEqual(sha256(int16le(MuLaw.decode(allCodes))), decodeTableSha256)
  })
  it("is symmetric: flipping the sign bit negates the sample", () => {
    for (let code = 0; code < 128; code++) {
      assert.strictEqual(MuLaw.decodeSample(code), -MuLaw.decodeSample(code | 0x80))
    }
  })
})

describe("encodeSample", () => {
  it("maps silence, full scale and clipping", () => {
    assert.strictEqual(MuLaw.encodeSample(0), MuLaw.SILENCE)
    assert.strictEqual(MuLaw.encodeSample(32124), 0x80)
    assert.strictEqual(MuLaw.encodeSample(-32124), 0x00)
    assert.strictEqual(MuLaw.encodeSample(32767), 0x80)
    assert.strictEqual(MuLaw.encodeSample(-32768), 0x00)
    assert.strictEqual(MuLaw.encodeSample(8), 0xfe)
    assert.strictEqual(MuLaw.encodeSample(-8), 0x7e)
  })
  it("agrees with audioop on the golden pairs", () => {
    for (const [sample, code] of encodePairs) assert.strictEqual(MuLaw.encodeSample(sample), code, `sample ${sample}`)
  })
  it("equals audioop.lin2ulaw for all 65,536 samples", () => {
    assert.strictEqual(sha256(MuLaw.encode(allSamples)), encodeAllSha256)
  })
  it("encode (a table) is encodeSample (the formula) for all 65,536 samples", () => {
    const codes = MuLaw.encode(allSamples)
    allSamples.forEach((sample, i) => {
      if (codes[i] !== MuLaw.encodeSample(sample)) assert.fail(`sample ${sample}`)
    })
  })
  it("is monotonic and within one quantization step of the input", () => {
    const bad: Array<number> = []
    let previous = -Infinity
    for (const sample of allSamples) {
      const code = MuLaw.encodeSample(sample)
      const decoded = MuLaw.decodeSample(code)
      // the step of the code's segment is 8 << exponent (8 in segment 0, 1024 in segment 7)
      const step = 8 << ((~code >> 4) & 7)
      if (decoded < previous || Math.abs(decoded - sample) > step) bad.push(sample)
      previous = decoded
    }
    assert.deepStrictEqual(bad, [])
  })
})

describe("round trip", () => {
  it("decode then encode gives every code back, except 0x7F (negative zero) which becomes 0xFF", () => {
    const back = MuLaw.encode(MuLaw.decode(allCodes))
    for (let code = 0; code < 256; code++) assert.strictEqual(back[code], code === 0x7f ? 0xff : code, `code ${code}`)
  })
})

describe("decode / encode", () => {
  it("decode the Twilio documentation payload", () => {
    const codes = Uint8Array.from(Buffer.from(twilioDocPayload.base64, "base64"))
    assert.deepStrictEqual(Array.from(codes), [...twilioDocPayload.codes])
    assert.deepStrictEqual(Array.from(MuLaw.decode(codes)), [...twilioDocPayload.samples])
  })
  it("keep the length, accept views and empty buffers, and do not touch their input", () => {
    const frame = new Uint8Array(160).fill(MuLaw.SILENCE)
    const samples = MuLaw.decode(frame)
    assert.strictEqual(samples.length, 160)
    assert.isTrue(samples.every((s) => s === 0))
    assert.deepStrictEqual(Array.from(MuLaw.decode(allCodes.subarray(254))), [8, 0])
    assert.strictEqual(MuLaw.decode(new Uint8Array(0)).length, 0)
    assert.strictEqual(MuLaw.encode(new Int16Array(0)).length, 0)
    const input = Int16Array.of(1000, -1000)
    assert.deepStrictEqual(Array.from(MuLaw.encode(input)), [206, 78])
    assert.deepStrictEqual(Array.from(input), [1000, -1000])
  })
})
