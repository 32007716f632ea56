import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import * as MuLaw from "./MuLaw.ts"
import * as SimSpeech from "./SimSpeech.ts"

const FRAME = 160
const throughMuLaw = (samples: Int16Array) => MuLaw.decode(MuLaw.encode(samples))

const concat = (...parts: ReadonlyArray<Int16Array>): Int16Array => {
  const out = new Int16Array(parts.reduce((n, part) => n + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

const silence = (samples: number) => new Int16Array(samples)

/** Feeds the signal to a fresh decoder in pieces cut at `cuts` (sorted or not). */
const decodeInPieces = (signal: Int16Array, cuts: ReadonlyArray<number> = []) => {
  const decoder = new SimSpeech.Decoder()
  const bounds = [...new Set([0, ...cuts.map((cut) => cut % (signal.length + 1)), signal.length])].sort((a, b) => a - b)
  const out: Array<SimSpeech.Utterance> = []
  for (let i = 1; i < bounds.length; i++) out.push(...decoder.push(signal.subarray(bounds[i - 1], bounds[i])))
  return out
}

const decodeInFrames = (signal: Int16Array) =>
  decodeInPieces(signal, Array.from({ length: Math.ceil(signal.length / FRAME) }, (_, i) => i * FRAME))

/** Inserts `length` zeros before sample `at` of `signal`, for each gap. */
const insertGaps = (signal: Int16Array, gaps: ReadonlyArray<{ readonly at: number; readonly length: number }>) => {
  const sorted = gaps.map((gap) => ({ at: gap.at % (signal.length + 1), length: gap.length }))
    .sort((a, b) => a.at - b.at)
  const parts: Array<Int16Array> = []
  let from = 0
  for (const gap of sorted) {
    parts.push(signal.subarray(from, gap.at), silence(gap.length))
    from = gap.at
  }
  parts.push(signal.subarray(from))
  return concat(...parts)
}

const only = (utterances: ReadonlyArray<SimSpeech.Utterance>): SimSpeech.Utterance => {
  assert.strictEqual(utterances.length, 1, JSON.stringify(utterances))
  return utterances[0]!
}

const texts = fc.string({ unit: "binary", maxLength: 40 })
const withinAFewSamples = (actual: number, expected: number) =>
  assert.isTrue(Math.abs(actual - expected) <= 4, `${actual} is not within 4 samples of ${expected}`)

describe("encode", () => {
  it("lasts (17 + 2 × bytes) symbols of 25 ms, plus a 5 ms fade", () => {
    assert.strictEqual(SimSpeech.encode("").length, 17 * 200 + 40)
    assert.strictEqual(SimSpeech.encode("Alex Morgan").length, (17 + 22) * 200 + 40)
    assert.strictEqual(SimSpeech.encode("日本").length, SimSpeech.encodedSamples(6))
  })

  it("speaks at a natural rate: 11 to 19 characters per second on the simulated person's and an agent's lines", () => {
    const rate = (text: string) => text.length / (SimSpeech.encode(text).length / SimSpeech.SAMPLE_RATE)
    const lines = {
      "Alex Morgan": [10, 12],
      "March third twenty twenty seven": [15, 16],
      "Hi Jane, this is Alex calling from Acme about your appointment. Can I confirm your full name?": [18, 19]
    } as const
    for (const [line, [low, high]] of Object.entries(lines)) {
      const measured = rate(line)
      assert.isTrue(measured >= low && measured <= high, `${line}: ${measured.toFixed(1)} characters per second`)
    }
  })

  it("is speech-level all along, and never quiet inside: every sample past the fades is ±64 or more", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const samples = throughMuLaw(SimSpeech.encode(text))
        let squares = 0
        let quietest = Infinity
        for (let i = 0; i < samples.length; i++) {
          const sample = samples[i]!
          squares += sample * sample
          // the 5 ms fades at both ends are allowed to be quiet
          if (i >= 40 && i < samples.length - 40) quietest = Math.min(quietest, Math.abs(sample))
        }
        const rms = Math.sqrt(squares / samples.length)
        return quietest >= 64 && rms > 4000 && rms < 8000
      }),
      { numRuns: 50 }
    )
  })

  it("is deterministic: the same samples on every run (sha256 of the Int16LE samples)", () => {
    const samples = SimSpeech.encode("Alex Morgan")
    const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)
    assert.strictEqual(
      createHash("sha256").update(bytes).digest("hex"),
      "529295d03dd9e476d3784f4cde11bba18a8fd18478cea65f934146aa9cfd839b"
    )
  })

  it("is sample for sample the straightforward formula (no table changes a sample)", () => {
    // the waveform as the module header describes it, one sine and one envelope per sample
    const reference = (text: string): Int16Array => {
      const bytes = new TextEncoder().encode(text)
      const n = bytes.length
      const crc = (data: ArrayLike<number>, width: 8 | 16): number => {
        const top = width === 8 ? 0x80 : 0x8000
        const poly = width === 8 ? 0x07 : 0x1021
        const mask = width === 8 ? 0xff : 0xffff
        let value = width === 8 ? 0 : 0xffff
        for (let i = 0; i < data.length; i++) {
          value ^= width === 8 ? data[i]! : data[i]! << 8
          for (let bit = 0; bit < 8; bit++) {
            value = (value & top) !== 0
              ? ((value << 1) ^ poly) & mask
              : (value << 1) & mask
          }
        }
        return value
      }
      const header = crc([n >> 8, n & 0xff], 8)
      const check = crc([n >> 8, n & 0xff, ...bytes], 16)
      const symbols = [0, 15, 3, 12, 6, 9, n >> 8, (n >> 4) & 15, n & 15, header >> 4, header & 15]
      for (const byte of bytes) symbols.push(byte >> 4, byte & 15)
      symbols.push(check >> 12, (check >> 8) & 15, (check >> 4) & 15, check & 15, 5, 10)
      const total = symbols.length * 200 + 40
      const out = new Int16Array(total)
      for (let t = 0; t < total; t++) {
        const s = Math.min(symbols.length - 1, Math.floor(t / 200))
        const n = t - s * 200
        const syllable = Math.sin((Math.PI * t) / 1600)
        const fade = Math.min(1, t / 40, (total - 1 - t) / 40)
        const envelope = (0.35 + (1 - 0.35) * syllable * syllable) * fade
        out[t] = Math.round(
          12000 * envelope * Math.sin((2 * Math.PI * ((((12 + 3 * symbols[s]!) * n) % 200) + 0.5)) / 200)
        )
      }
      return out
    }
    const same = (text: string) => {
      const samples = SimSpeech.encode(text)
      const expected = reference(text)
      assert.strictEqual(samples.length, expected.length)
      for (let i = 0; i < samples.length; i++) {
        if (samples[i] !== expected[i]) {
          assert.fail(`sample ${i} of ${samples.length}: ${samples[i]}, not ${expected[i]}`)
        }
      }
    }
    // lengths on both sides of the end of encode's table of envelopes (16.4 s)
    for (const bytes of [0, 1, 318, 319, 320, 1000, 4095]) same("é".repeat(bytes >> 1) + "a".repeat(bytes & 1))
    fc.assert(fc.property(texts, (text) => same(text)), { numRuns: 100 })
  })

  it("refuses a text longer than MAX_BYTES", () => {
    assert.strictEqual(SimSpeech.encode("a".repeat(SimSpeech.MAX_BYTES)).length, SimSpeech.encodedSamples(4095))
    assert.throws(() => SimSpeech.encode("a".repeat(SimSpeech.MAX_BYTES + 1)), RangeError)
  })
})

describe("Decoder", () => {
  it("recovers any text through μ-law, with its offsets", () => {
    fc.assert(
      fc.property(texts, fc.nat(4000), fc.nat(4000), (text, before, after) => {
        const speech = SimSpeech.encode(text)
        const utterance = only(decodeInFrames(throughMuLaw(concat(silence(before), speech, silence(after)))))
        assert.strictEqual(utterance.text, text)
        withinAFewSamples(utterance.start, before)
        withinAFewSamples(utterance.end, before + speech.length)
      }),
      { numRuns: 100 }
    )
  })

  it("recovers any text cut at arbitrary boundaries", () => {
    fc.assert(
      fc.property(texts, fc.nat(500), fc.array(fc.nat(), { maxLength: 60 }), (text, before, cuts) => {
        const signal = throughMuLaw(concat(silence(before), SimSpeech.encode(text)))
        assert.deepStrictEqual(decodeInPieces(signal, cuts).map((u) => u.text), [text])
      }),
      { numRuns: 100 }
    )
  })

  it("recovers any text with small gaps of silence inserted anywhere in it, with its offsets", () => {
    const gaps = fc.array(fc.record({ at: fc.nat(), length: fc.integer({ min: 1, max: 1600 }) }), {
      minLength: 1,
      maxLength: 6
    })
    fc.assert(
      fc.property(texts, gaps, (text, gaps) => {
        const speech = SimSpeech.encode(text)
        // anywhere but in the 5 ms fades: a gap in the fade-in looks like silence before it, and
        // `end` is read at the end marker, the fade-out assumed whole
        const placed = gaps.map((gap) => {
          const at = gap.at % (speech.length - 80 + 801)
          return { at: at <= 800 ? at : at + 39, length: gap.length }
        })
        const signal = throughMuLaw(insertGaps(concat(silence(800), speech, silence(800)), placed))
        const utterance = only(decodeInFrames(signal))
        assert.strictEqual(utterance.text, text)
        // where a sample of the speech went: after every gap inserted before it
        const moved = (index: number) =>
          index + placed.filter((gap) => gap.at <= index).reduce((n, gap) => n + gap.length, 0)
        withinAFewSamples(utterance.start, moved(800))
        withinAFewSamples(utterance.end, moved(800 + speech.length - 1) + 1)
      }),
      { numRuns: 100 }
    )
  })

  it("recovers frames that arrive with whole frames of silence between them", () => {
    const speech = throughMuLaw(SimSpeech.encode("digit sequence: one two three four"))
    const gaps = Array.from({ length: 8 }, (_, i) => ({ at: (i + 1) * 7 * FRAME, length: FRAME * (1 + (i % 3)) }))
    const utterance = only(decodeInFrames(insertGaps(concat(silence(FRAME), speech), gaps)))
    assert.strictEqual(utterance.text, "digit sequence: one two three four")
    withinAFewSamples(utterance.start, FRAME)
    withinAFewSamples(utterance.end, FRAME + speech.length + gaps.reduce((n, gap) => n + gap.length, 0))
  })

  it("decodes two utterances back to back, with and without silence between them", () => {
    fc.assert(
      fc.property(texts, texts, fc.nat(3000), (first, second, between) => {
        const a = SimSpeech.encode(first)
        const b = SimSpeech.encode(second)
        const utterances = decodeInFrames(throughMuLaw(concat(a, silence(between), b)))
        assert.deepStrictEqual(utterances.map((u) => u.text), [first, second])
        withinAFewSamples(utterances[0]!.end, a.length)
        withinAFewSamples(utterances[1]!.start, a.length + between)
        withinAFewSamples(utterances[1]!.end, a.length + between + b.length)
      }),
      { numRuns: 50 }
    )
  })

  it("decodes a corrupted utterance to nothing, and the next one still", () => {
    const text = "next Tuesday at ten a m"
    const speech = SimSpeech.encode(text)
    const symbols = Math.floor(speech.length / SimSpeech.SYMBOL_SAMPLES)
    for (let symbol = 0; symbol < symbols; symbol++) {
      // replace one symbol by another tone: the waveform of its neighbour
      const corrupted = speech.slice()
      const at = symbol * SimSpeech.SYMBOL_SAMPLES
      const from = symbol === symbols - 1 ? at - SimSpeech.SYMBOL_SAMPLES : at + SimSpeech.SYMBOL_SAMPLES
      const replacement = speech.slice(from, from + SimSpeech.SYMBOL_SAMPLES)
      if (replacement.every((sample, i) => sample === speech[at + i])) continue
      corrupted.set(replacement, at)
      const texts = decodeInFrames(throughMuLaw(concat(corrupted, silence(1000), speech))).map((u) => u.text)
      assert.deepStrictEqual(texts, [text], `symbol ${symbol}`)
    }
  })

  it("decodes an utterance cut short to nothing, and the one after it", () => {
    fc.assert(
      fc.property(texts, texts, fc.nat(), fc.nat(2000), (first, second, cut, between) => {
        const a = SimSpeech.encode(first)
        // cut before the end marker's last symbol: all that follows is the next utterance
        const truncated = a.subarray(0, cut % (a.length - SimSpeech.SYMBOL_SAMPLES - 40))
        const texts = decodeInFrames(throughMuLaw(concat(truncated, silence(between), SimSpeech.encode(second))))
          .map((u) => u.text)
        assert.deepStrictEqual(texts, [second])
      }),
      { numRuns: 100 }
    )
  })

  it("stays bounded through a flood of utterances cut short, and hears the one after them", () => {
    let seed = 7
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % below
    }
    const cutShort = Array.from({ length: 60 }, (_, i) => {
      const speech = SimSpeech.encode(`utterance number ${i}, which nobody hears to its end`)
      // cut after its preamble, before its end marker's last symbol
      return speech.subarray(0, 1200 + random(speech.length - 1200 - 240))
    })
    const last = SimSpeech.encode("the one after")
    assert.deepStrictEqual(decodeInFrames(throughMuLaw(concat(...cutShort, last))).map((u) => u.text), [
      "the one after"
    ])
  })

  it("hears nothing in silence, in a beep or in noise", () => {
    const beep = Int16Array.from(
      { length: 8000 },
      (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * 1000 * i) / 8000))
    )
    let seed = 42
    const noise = Int16Array.from({ length: 80000 }, () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return (seed % 20000) - 10000
    })
    assert.deepStrictEqual(decodeInFrames(concat(silence(16000), beep, noise)), [])
  })

  it("pushSilence is pushing that many zeros", () => {
    const speech = SimSpeech.encode("forty two")
    const decoder = new SimSpeech.Decoder()
    decoder.pushSilence(1234)
    const first = decoder.push(speech.subarray(0, 1000))
    decoder.pushSilence(300)
    const rest = decoder.push(speech.subarray(1000))
    decoder.pushSilence(20000)
    const utterance = only([...first, ...rest])
    assert.strictEqual(utterance.text, "forty two")
    withinAFewSamples(utterance.start, 1234)
    withinAFewSamples(utterance.end, 1234 + 300 + speech.length)
    assert.strictEqual(decoder.offset, 1234 + 300 + speech.length + 20000)
    assert.deepStrictEqual(decoder.push(speech).map((u) => u.text), ["forty two"])
  })

  it("decode finds every utterance of a buffer", () => {
    const signal = concat(SimSpeech.encode("yes"), silence(9000), SimSpeech.encode("no"))
    assert.deepStrictEqual(SimSpeech.decode(signal).map((u) => u.text), ["yes", "no"])
  })
})
