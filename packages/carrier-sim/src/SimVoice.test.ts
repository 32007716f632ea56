import { assert, describe, it } from "@effect/vitest"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as Vad from "@voice-agent/media/Vad"
import { createHash } from "node:crypto"
import { correlation, filtered, lowPass, rms } from "../../media/test/fixtures/signal.ts"
import * as Flite from "./Flite.ts"
import * as SimPerson from "./SimPerson.ts"
import * as SimVoice from "./SimVoice.ts"

const throughMuLaw = (samples: Int16Array) => MuLaw.decode(MuLaw.encode(samples))

/** The median pitch of the loud 50 ms stretches of `signal`, by autocorrelation (60 to 400 Hz). */
const pitchHz = (signal: Float64Array): number => {
  const pitches: Array<number> = []
  for (let at = 0; at + 400 <= signal.length; at += 160) {
    const frame = signal.subarray(at, at + 400)
    if (rms(frame) < 3000) continue
    let best = 0
    let bestLag = 0
    for (let lag = 20; lag <= 133; lag++) {
      let sum = 0
      for (let n = 0; n + lag < frame.length; n++) sum += frame[n]! * frame[n + lag]!
      if (sum > best) {
        best = sum
        bestLag = lag
      }
    }
    pitches.push(8000 / bestLag)
  }
  pitches.sort((a, b) => a - b)
  return pitches[Math.floor(pitches.length / 2)]!
}

/** The simulated speech of the MFSK codec this replaced: `(17 + 2 × bytes) × 25 + 5` ms. */
const tonesMs = (text: string) => (17 + 2 * new TextEncoder().encode(text).length) * 25 + 5

const agentLines = [
  "Hello Ann, this is an automated call. Do you have a moment?",
  "Thank you for your time. Goodbye.",
  "Hello, this is an automated call. We will call again later. Goodbye."
]
const personLines = [...Object.values(SimPerson.answers), SimPerson.earlyHangupLine, SimPerson.voicemailGreeting]

describe("SimVoice", () => {
  it("speaks a text that comes back whole through μ-law, from its first sample to its last", () => {
    for (const [text, speaker] of [["Alex Morgan", "person"], ["¿Hablas español? Sí. 日本語も。", "agent"]] as const) {
      const samples = SimVoice.speak(text, speaker)
      const signal = new Int16Array(800 + samples.length + 800)
      signal.set(samples, 800)
      assert.deepStrictEqual(SimSpeech.decode(throughMuLaw(signal)), [{ text, start: 800, end: 800 + samples.length }])
    }
  })

  it("is flite's voice below the data band: the agent's own, the person's higher", () => {
    const text = "Hello Ann, this is an automated call. Do you have a moment?"
    const pitches = (["agent", "person"] as const).map((speaker) => {
      const speech = filtered(throughMuLaw(SimVoice.speak(text, speaker)), lowPass(2450))
      const reference = SimSpeech.speechOf(Flite.synthesize(text, SimVoice.voices[speaker]))
      // the speech band is flite's rendering, μ-law aside
      assert.isAbove(correlation(speech, reference), 0.99)
      // and it is 15 dB or more above the data band, pauses included (16 to 18 dB on this line)
      assert.isAbove(20 * Math.log10(rms(reference) / (SimSpeech.DATA_AMPLITUDE / Math.SQRT2)), 15)
      return pitchHz(speech)
    })
    assert.isTrue(pitches[0]! > 75 && pitches[0]! < 110, `agent ${pitches[0]} Hz`)
    assert.isTrue(pitches[1]! > 140 && pitches[1]! < 190, `person ${pitches[1]} Hz`)
  })

  it("lasts about as long as the tones it replaced: 0.8 to 1.25 times, 12 to 19 characters a second on long lines", () => {
    for (const [lines, speaker] of [[agentLines, "agent"], [personLines, "person"]] as const) {
      for (const line of lines) {
        const ms = SimVoice.speak(line, speaker).length / 8
        const ratio = ms / tonesMs(line)
        assert.isTrue(ratio >= 0.8 && ratio <= 1.25, `${line}: ${ms} ms, ${ratio.toFixed(2)} times`)
        if (line.length > 30) {
          const rate = line.length / (ms / 1000)
          assert.isTrue(rate >= 12 && rate <= 19, `${line}: ${rate.toFixed(1)} characters a second`)
        }
      }
    }
  })

  it("is one stretch of speech to the voice-activity detector, through μ-law, pauses between sentences included", () => {
    for (const [lines, speaker] of [[agentLines, "agent"], [personLines, "person"]] as const) {
      for (const line of lines) {
        const samples = throughMuLaw(SimVoice.speak(line, speaker))
        let vad = Vad.make()
        const events: Array<string> = []
        const frames = Math.ceil(samples.length / 160) + 40
        for (let n = 0; n < frames; n++) {
          const frame = new Int16Array(160)
          frame.set(samples.subarray(n * 160, (n + 1) * 160))
          const step = Vad.step(vad, frame)
          vad = step.state
          if (step.event !== undefined) events.push(`${n} ${step.event}`)
        }
        assert.strictEqual(events.length, 2, `${line}: ${events.join(", ")}`)
        // within 300 ms of the first sample (a soft first sound, "f", is mostly above 2.45 kHz)
        assert.match(events[0]!, /^1?[0-9] speech-start$/)
      }
    }
  })

  it("is deterministic (sha256 of the Int16LE samples), and cached: a line said again is a copy of the first", () => {
    const before = SimVoice.cacheStats()
    const first = SimVoice.speak("A line said twice.", "person")
    const bytes = new Uint8Array(first.buffer, first.byteOffset, first.byteLength)
    assert.strictEqual(
      createHash("sha256").update(bytes).digest("hex"),
      "e29490bc1eb75c0ca0363b2d9a35726ffba7a18a0e7a0d85549a86e44bb603c0"
    )
    first.fill(0)
    const second = SimVoice.speak("A line said twice.", "person")
    assert.notStrictEqual(second, first)
    assert.isAbove(new Set(second).size, 100)
    const after = SimVoice.cacheStats()
    assert.deepStrictEqual([after.misses - before.misses, after.hits - before.hits], [1, 1])
    // another speaker is another line
    assert.notDeepEqual(SimVoice.speak("A line said twice.", "agent"), second)
  })

  it("shares a cached line with speakShared: the same samples as speak's, no copy", () => {
    const shared = SimVoice.speakShared("A line said on every call.")
    assert.strictEqual(SimVoice.speakShared("A line said on every call."), shared, "the cached utterance itself")
    const copy = SimVoice.speak("A line said on every call.")
    assert.notStrictEqual(copy, shared)
    assert.deepStrictEqual(copy, shared)
  })

  it("says a long text in runs, and only its first 500 characters; the text crosses whole", () => {
    assert.deepStrictEqual(SimVoice.runsOf("Hello there."), ["Hello there."])
    const sentences = "This is one sentence of a long answer. ".repeat(30)
    const runs = SimVoice.runsOf(sentences)
    assert.strictEqual(runs.join(""), sentences.slice(0, SimVoice.VOICED_CHARACTERS))
    for (const run of runs) assert.isAtMost(run.length, SimVoice.RUN_CHARACTERS)
    for (const run of runs.slice(0, -1)) assert.match(run, /\. $/)
    assert.deepStrictEqual(SimVoice.runsOf("a".repeat(600)).map((run) => run.length), [250, 250])
    const samples = SimVoice.speak(sentences)
    assert.deepStrictEqual(SimSpeech.decode(samples).map((u) => u.text), [sentences])
  })

  it("refuses a text longer than SimSpeech.MAX_BYTES before any synthesis", () => {
    const before = SimVoice.cacheStats()
    assert.throws(() => SimVoice.speak("é".repeat(2048)), RangeError)
    assert.deepStrictEqual(SimVoice.cacheStats(), before)
  })
})

describe("Flite", () => {
  it("speaks 8 kHz PCM, the same samples every time, and takes a text that looks like an option as text", () => {
    const voice = Flite.synthesize("--help")
    assert.isAbove(voice.length, 2000)
    assert.isAbove(rms(voice), 1000)
    assert.deepStrictEqual(Flite.synthesize("--help"), voice)
  })
})
