import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import { correlation, filtered, highPass, lowPass, rms } from "../test/fixtures/signal.ts"
import { voiceFor } from "../test/fixtures/voice.ts"
import * as CallTimeline from "./CallTimeline.ts"
import * as MuLaw from "./MuLaw.ts"
import { Downsampler, kaiserLowPass } from "./Resample.ts"
import * as SimSpeech from "./SimSpeech.ts"

const FRAME = 160
const throughMuLaw = (samples: Int16Array) => MuLaw.decode(MuLaw.encode(samples))

/** `text` as an utterance over the test voice. */
const utter = (text: string) => SimSpeech.encode(text, voiceFor(text))

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

describe("encode", () => {
  it("lasts as long as the speech, or (20 + 2 × bytes) symbols of 25 ms, in an even number of symbols, plus a 7 ms tail", () => {
    const tail = SimSpeech.TAIL_SAMPLES
    // no voice: the data alone
    assert.strictEqual(SimSpeech.encode("", new Int16Array(800)).length, 20 * 200 + tail)
    assert.strictEqual(SimSpeech.encode("日本", new Int16Array(0)).length, (20 + 12) * 200 + tail)
    // a voice longer than the data: the data's filler covers it, to the next even symbol
    for (const text of ["Alex Morgan", "Hi Jane, this is Alex calling from Acme. Can I confirm your name?"]) {
      const speech = SimSpeech.speechOf(voiceFor(text)).length
      const length = utter(text).length
      assert.isAtLeast(length, speech)
      assert.isBelow(length, Math.max(speech, (20 + 2 * text.length) * 200) + tail + 400)
      assert.strictEqual((length - tail) % 400, 0)
    }
  })

  it("keeps the voice below the data band, and only the data in it, well under the speech", () => {
    const text = "Hi Jane, this is Alex calling from Acme. Can I confirm your name?"
    const voice = voiceFor(text)
    const utterance = utter(text)
    const speech = SimSpeech.speechOf(voice)
    // below 2.45 kHz, the utterance is the voice (trimmed, low-passed, scaled)
    const low = filtered(utterance, lowPass(2450))
    assert.isAbove(correlation(low, speech), 0.999)
    // the voice had energy above 2.8 kHz (its buzz and noise); in the utterance, only the data is there
    assert.isAbove(rms(filtered(voice, highPass(2800))), 1000)
    const high = filtered(utterance, highPass(2700))
    const dataRms = SimSpeech.DATA_AMPLITUDE / Math.SQRT2
    assert.closeTo(rms(high, 400, utterance.length - 400) / dataRms, 1, 0.05)
    // the data band well under the speech (this voice pauses for long; flite's is 18 dB over it)
    assert.isAbove(20 * Math.log10(rms(speech) / dataRms), 12)
  })

  it("never has a sample quieter than ±64, so none is taken for silence after μ-law", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const samples = utter(text)
        const received = throughMuLaw(samples)
        return samples.every((sample) => Math.abs(sample) >= SimSpeech.MIN_MAGNITUDE) &&
          received.every((sample) => Math.abs(sample) >= 32)
      }),
      { numRuns: 50 }
    )
  })

  it("is deterministic: the same samples on every run (sha256 of the Int16LE samples)", () => {
    const samples = utter("Alex Morgan")
    assert.deepStrictEqual(utter("Alex Morgan"), samples)
    const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)
    assert.strictEqual(
      createHash("sha256").update(bytes).digest("hex"),
      "101081c58e891df4270b70402d9bf34735f66be2313fd5a5b2bd2730780f646b"
    )
  })

  it("refuses a text longer than MAX_BYTES", () => {
    assert.isTrue(
      SimSpeech.decode(SimSpeech.encode("a".repeat(SimSpeech.MAX_BYTES), new Int16Array(0)))[0]!.text.length === 4095
    )
    assert.throws(() => SimSpeech.encode("a".repeat(SimSpeech.MAX_BYTES + 1), new Int16Array(0)), RangeError)
  })
})

describe("Decoder", () => {
  it("recovers any text through μ-law, with its offsets", () => {
    fc.assert(
      fc.property(texts, fc.nat(4000), fc.nat(4000), (text, before, after) => {
        const speech = utter(text)
        const utterance = only(decodeInFrames(throughMuLaw(concat(silence(before), speech, silence(after)))))
        assert.strictEqual(utterance.text, text)
        assert.strictEqual(utterance.start, before)
        assert.strictEqual(utterance.end, before + speech.length)
      }),
      { numRuns: 100 }
    )
  })

  it("recovers any text cut at arbitrary boundaries", () => {
    fc.assert(
      fc.property(texts, fc.nat(500), fc.array(fc.nat(), { maxLength: 60 }), (text, before, cuts) => {
        const signal = throughMuLaw(concat(silence(before), utter(text)))
        assert.deepStrictEqual(decodeInPieces(signal, cuts).map((u) => u.text), [text])
      }),
      { numRuns: 100 }
    )
  })

  it("recovers any text with gaps of silence inserted anywhere in it, with its offsets", () => {
    // whole milliseconds: timestamps are in ms, frames 20 ms long, on every path
    const gaps = fc.array(fc.record({ at: fc.nat(), length: fc.integer({ min: 1, max: 200 }).map((ms) => 8 * ms) }), {
      minLength: 1,
      maxLength: 6
    })
    fc.assert(
      fc.property(texts, gaps, (text, gaps) => {
        const speech = utter(text)
        // anywhere but in the tail, nor right before it: `end` is known at the end marker, the
        // tail assumed whole after it
        const placed = gaps.map((gap) => ({
          at: gap.at % (800 + speech.length - SimSpeech.TAIL_SAMPLES),
          length: gap.length
        }))
        const signal = throughMuLaw(insertGaps(concat(silence(800), speech, silence(800)), placed))
        const utterance = only(decodeInFrames(signal))
        assert.strictEqual(utterance.text, text)
        // where a sample of the speech went: after every gap inserted before it
        const moved = (index: number) =>
          index + placed.filter((gap) => gap.at <= index).reduce((n, gap) => n + gap.length, 0)
        assert.strictEqual(utterance.start, moved(800))
        assert.strictEqual(utterance.end, moved(800 + speech.length - 1) + 1)
      }),
      { numRuns: 100 }
    )
  })

  it("recovers frames that arrive with whole frames of silence between them", () => {
    const speech = throughMuLaw(utter("digit sequence: one two three four"))
    const gaps = Array.from({ length: 8 }, (_, i) => ({ at: (i + 1) * 7 * FRAME, length: FRAME * (1 + (i % 3)) }))
    const utterance = only(decodeInFrames(insertGaps(concat(silence(FRAME), speech), gaps)))
    assert.strictEqual(utterance.text, "digit sequence: one two three four")
    assert.strictEqual(utterance.start, FRAME)
    assert.strictEqual(utterance.end, FRAME + speech.length + gaps.reduce((n, gap) => n + gap.length, 0))
  })

  it("keeps quiet samples inside an utterance: silence is 8 quiet samples in a row or more", () => {
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { maxLength: 40 }), (text, quiet) => {
        const speech = throughMuLaw(utter(text))
        // samples that were quiet-ish (under ±128) brought under ±32, as a resampler's rounding
        // can, anywhere but next to the silence around (there, a quiet sample is silence)
        const damaged = speech.slice()
        const small = [...speech.keys()].filter((i) => i > 0 && i < speech.length - 1 && Math.abs(speech[i]!) < 128)
        for (const at of quiet) {
          if (small.length > 0) damaged[small[at % small.length]!] = Math.trunc(speech[small[at % small.length]!]! / 4)
        }
        const utterance = only(decodeInFrames(concat(silence(800), damaged, silence(800))))
        assert.strictEqual(utterance.text, text)
        assert.strictEqual(utterance.start, 800)
        assert.strictEqual(utterance.end, 800 + speech.length)
      }),
      { numRuns: 100 }
    )
  })

  it("survives a 24 kHz round trip (a provider's rate): up by an interpolator, down by Resample's Downsampler", () => {
    const up = kaiserLowPass(0.4625 / 3, 0.075 / 3, 60)
    fc.assert(
      fc.property(texts, (text) => {
        const speech = utter(text)
        const stuffed = new Float64Array(3 * speech.length)
        for (let i = 0; i < speech.length; i++) stuffed[3 * i] = 3 * speech[i]!
        const high = Int16Array.from(
          filtered(stuffed, up),
          (value) => Math.max(-32768, Math.min(32767, Math.round(value)))
        )
        const downsampler = new Downsampler(24000, 8000)
        const back = concat(downsampler.push(high), downsampler.flush())
        const utterance = only(decodeInFrames(throughMuLaw(concat(silence(800), back, silence(800)))))
        assert.strictEqual(utterance.text, text)
        assert.isAtMost(Math.abs(utterance.start - 800), 2)
        assert.isAtMost(Math.abs(utterance.end - 800 - speech.length), 2)
      }),
      { numRuns: 30 }
    )
  })

  it("decodes an utterance that lost samples on the way to its text or to nothing, never to another", () => {
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), (text, losses) => {
        const speech = throughMuLaw(utter(text))
        const lost = new Set(losses.map((at) => at % speech.length))
        const received = speech.filter((_, i) => !lost.has(i))
        for (const u of decodeInFrames(concat(received, silence(800), utter("after")))) {
          assert.oneOf(u.text, [text, "after"])
        }
      }),
      { numRuns: 100 }
    )
  })

  it("reads each channel of a call's timeline, and the mixed one, as the call plays", () => {
    // The agent asks, the person answers 300 ms after it, the agent thanks them. The agent's audio
    // goes out in 100 ms chunks, and three of them come late (the player waited 60 ms for each);
    // the person's comes in 20 ms frames stamped on the stream's grid. Every side through μ-law.
    const question = throughMuLaw(SimSpeech.encode("Do you have a moment?", voiceFor("Do you have a moment?")))
    const answer = throughMuLaw(utter("Yes, I have a moment."))
    const thanks = throughMuLaw(utter("Thank you for your time. Goodbye."))
    const timeline = CallTimeline.make()
    let playout = 800
    const agentLine = (samples: Int16Array) => {
      const start = playout
      for (let k = 0; k * 800 < samples.length; k++) {
        if (k % 7 === 3) playout += 480
        CallTimeline.place(timeline, "agent", playout, samples.subarray(k * 800, (k + 1) * 800))
        playout += Math.min(800, samples.length - k * 800)
      }
      return { start, end: playout }
    }
    const asked = agentLine(question)
    const answerAt = Math.ceil((asked.end + 2400) / FRAME) * FRAME
    for (let at = 0; at < answer.length; at += FRAME) {
      CallTimeline.place(timeline, "remote", answerAt + at, answer.subarray(at, at + FRAME))
    }
    playout = answerAt + answer.length + 2400
    const thanked = agentLine(thanks)
    const segments = [...CallTimeline.finish(timeline)]
    const channel = (name: "agent" | "remote" | "mixed") => concat(...segments.map((segment) => segment[name]))
    const agent = decodeInFrames(channel("agent"))
    const remote = decodeInFrames(channel("remote"))
    const mixed = decodeInFrames(channel("mixed"))
    assert.deepStrictEqual(agent.map((u) => [u.text, u.start, u.end]), [
      ["Do you have a moment?", asked.start, asked.end],
      ["Thank you for your time. Goodbye.", thanked.start, thanked.end]
    ])
    assert.deepStrictEqual(remote.map((u) => [u.text, u.start, u.end]), [
      ["Yes, I have a moment.", answerAt, answerAt + answer.length]
    ])
    assert.deepStrictEqual(mixed, [agent[0]!, remote[0]!, agent[1]!])
  })

  it("reads nothing, and never a wrong text, where both sides speak at once in the mixed channel", () => {
    const a = utter("Hello, this is an automated call.")
    const b = utter("Bye.")
    const mixed = new Int16Array(a.length + 800)
    mixed.set(a)
    for (let i = 0; i < b.length; i++) mixed[400 + i] = Math.max(-32768, Math.min(32767, mixed[400 + i]! + b[i]!))
    for (const u of decodeInFrames(throughMuLaw(mixed))) {
      assert.oneOf(u.text, ["Hello, this is an automated call.", "Bye."])
    }
  })

  it("decodes two utterances back to back, with and without silence between them", () => {
    fc.assert(
      fc.property(texts, texts, fc.nat(3000), (first, second, between) => {
        const a = utter(first)
        const b = utter(second)
        const utterances = decodeInFrames(throughMuLaw(concat(a, silence(between), b)))
        assert.deepStrictEqual(utterances.map((u) => u.text), [first, second])
        assert.strictEqual(utterances[0]!.end, a.length)
        assert.strictEqual(utterances[1]!.start, a.length + between)
        assert.strictEqual(utterances[1]!.end, a.length + between + b.length)
      }),
      { numRuns: 50 }
    )
  })

  it("decodes a corrupted utterance to nothing, and the next one still", () => {
    const text = "next Tuesday at ten a m"
    const speech = utter(text)
    const symbols = Math.floor(speech.length / SimSpeech.SYMBOL_SAMPLES)
    // a tone of the data band, loud, over one symbol (the tone of `symbol`'s neighbour in the band)
    for (let symbol = 0; symbol < symbols; symbol++) {
      const corrupted = speech.slice()
      const at = symbol * SimSpeech.SYMBOL_SAMPLES
      const bin = 70 + ((symbol * 5) % 16)
      for (let n = 0; n < SimSpeech.SYMBOL_SAMPLES; n++) {
        corrupted[at + n] = Math.round(speech[at + n]! * 0.2 + 3000 * Math.sin((2 * Math.PI * bin * n) / 200))
      }
      const decoded = decodeInFrames(throughMuLaw(concat(corrupted, silence(1000), speech))).map((u) => u.text)
      // a symbol of the filler carries nothing: the utterance may survive it, never changed
      assert.isTrue(
        decoded.length === 1 || (decoded.length === 2 && decoded[0] === text),
        `symbol ${symbol}: ${JSON.stringify(decoded)}`
      )
      assert.strictEqual(decoded.at(-1), text)
    }
  })

  it("decodes an utterance cut short to nothing, and the one after it", () => {
    fc.assert(
      fc.property(texts, texts, fc.nat(), fc.nat(2000), (first, second, cut, between) => {
        const a = utter(first)
        // cut before the end marker's last symbol: all that follows is the next utterance
        const truncated = a.subarray(0, cut % (a.length - SimSpeech.SYMBOL_SAMPLES - SimSpeech.TAIL_SAMPLES))
        const texts = decodeInFrames(throughMuLaw(concat(truncated, silence(between), utter(second))))
          .map((u) => u.text)
        assert.deepStrictEqual(texts, [second])
      }),
      { numRuns: 100 }
    )
  })

  it("decodes an utterance with a frame lost in it to nothing, and the one after it", () => {
    const first = utter("March third twenty twenty seven")
    for (const frame of [3, 20, 60]) {
      const lost = concat(first.subarray(0, frame * FRAME), first.subarray((frame + 1) * FRAME))
      const replaced = concat(first.subarray(0, frame * FRAME), silence(FRAME), first.subarray((frame + 1) * FRAME))
      for (const damaged of [lost, replaced]) {
        const texts = decodeInFrames(throughMuLaw(concat(damaged, silence(800), utter("forty two")))).map((u) => u.text)
        assert.deepStrictEqual(texts, ["forty two"])
      }
    }
  })

  it("stays bounded through a flood of utterances cut short, and hears the one after them", () => {
    let seed = 7
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % below
    }
    const voice = voiceFor("utterance number 0, which nobody hears to its end")
    const cutShort = Array.from({ length: 60 }, (_, i) => {
      const speech = SimSpeech.encode(`utterance number ${i}, which nobody hears to its end`, voice)
      // cut after its preamble, before its end marker's last symbol
      return speech.subarray(0, 1200 + random(speech.length - 1200 - 280))
    })
    const last = utter("the one after")
    assert.deepStrictEqual(decodeInFrames(throughMuLaw(concat(...cutShort, last))).map((u) => u.text), [
      "the one after"
    ])
  })

  it("hears nothing in silence, in a beep, in noise, or in the voice without its data", () => {
    const beep = Int16Array.from(
      { length: 8000 },
      (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * 1000 * i) / 8000))
    )
    let seed = 42
    const noise = Int16Array.from({ length: 80000 }, () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return (seed % 20000) - 10000
    })
    const voice = voiceFor("Hello, this is an automated call. Do you have a moment?")
    const speech = Int16Array.from(SimSpeech.speechOf(voice), Math.round)
    assert.deepStrictEqual(decodeInFrames(concat(silence(16000), beep, noise, voice, speech)), [])
  })

  it("pushSilence is pushing that many zeros", () => {
    const speech = utter("forty two")
    const decoder = new SimSpeech.Decoder()
    decoder.pushSilence(1234)
    const first = decoder.push(speech.subarray(0, 1000))
    decoder.pushSilence(300)
    const rest = decoder.push(speech.subarray(1000))
    decoder.pushSilence(20000)
    const utterance = only([...first, ...rest])
    assert.strictEqual(utterance.text, "forty two")
    assert.strictEqual(utterance.start, 1234)
    assert.strictEqual(utterance.end, 1234 + 300 + speech.length)
    assert.strictEqual(decoder.offset, 1234 + 300 + speech.length + 20000)
    assert.deepStrictEqual(decoder.push(speech).map((u) => u.text), ["forty two"])
  })

  it("decode finds every utterance of a buffer", () => {
    const signal = concat(utter("yes"), silence(9000), utter("no"))
    assert.deepStrictEqual(SimSpeech.decode(signal).map((u) => u.text), ["yes", "no"])
  })
})
