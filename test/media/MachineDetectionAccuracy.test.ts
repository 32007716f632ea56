/**
 * How well the engine's answering-machine detection (`@voice-agent/media/MachineDetection`)
 * tells people from machines, on generated calls: flite (the simulated carrier's voice) saying
 * what people say when they pick up and what answering machines say, at three pitches and paces,
 * three speech levels, after a pause of 0 to 2.5 s, with or without a beep (four frequencies,
 * 0.3 to 1 s, 0.3 or 0.8 s after the greeting), over no noise, white noise or mains hum, through
 * μ-law, in 20 ms frames as the media session feeds it. Also the simulated carrier's own person
 * and machine (`SimPerson`, simulated speech with its data band). The figures it prints are the
 * ones docs/MEDIA.md gives ("Answering machines detected by the engine").
 */
import { assert, describe, it } from "@effect/vitest"
import * as Flite from "@voice-agent/carrier-sim/Flite"
import * as SimPerson from "@voice-agent/carrier-sim/SimPerson"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import * as MachineDetection from "@voice-agent/media/MachineDetection"
import * as MuLaw from "@voice-agent/media/MuLaw"

/** What people say as they pick up. */
const openings = [
  "Hello?",
  "Hello.",
  "Yes, hello?",
  "Who is this?",
  "Hi.",
  "Yeah?",
  "Hello, who's calling?",
  "Speaking.",
  "Good afternoon.",
  "Hello, this is Sam.",
  "Yes?",
  "Hey, what's up?"
]

/** What answering machines say, long enough to be heard as a machine without a beep. */
const greetings = [
  "Hi, you've reached Sam. I can't come to the phone right now. Please leave a message after the tone.",
  "Hello, this is the Morgan residence. We are not available to take your call. Please leave your name and number and we will call you back.",
  "The person you are calling is not available. Please record your message at the tone. When you are finished, hang up.",
  "You have reached the voicemail box of extension two one four. Please leave a message.",
  "Thank you for calling Acme Dental. Our office is currently closed. Our hours are Monday to Friday, nine to five. Please leave a message.",
  "Hi, this is Jordan. Sorry I missed your call. Leave me a message and I'll get back to you as soon as I can.",
  "Hello. You've reached Dana and Chris. We can't come to the phone. Please leave a message.",
  SimPerson.voicemailGreeting
]

/** Greetings as short as a person's: only their beep tells them. */
const shortGreetings = [
  "Hey, it's Alex. Leave a message.",
  "Please leave a message after the beep.",
  "Leave a message."
]

/** Beeps: frequency (Hz) and length (ms). */
const beeps = [[1000, 500], [440, 1000], [850, 300], [1400, 700]] as const

const pitches = [100, 165, 230]
const stretches = [0.9, 1, 1.1]
const levels = [-18, -24, -30]
const noises = ["none", "white -55", "white -45", "hum -45", "white -40"] as const

const RATE = 8000

/** A deterministic generator (mulberry32). */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The voice without the silence flite puts around it (samples under 1 % of the peak). */
const trimmed = (voice: Int16Array) => {
  let peak = 0
  for (const sample of voice) peak = Math.max(peak, Math.abs(sample))
  let from = 0
  let to = voice.length - 1
  while (from < to && Math.abs(voice[from]!) < peak / 100) from++
  while (to > from && Math.abs(voice[to]!) < peak / 100) to--
  return voice.slice(from, to + 1)
}

/** `voice` scaled to `dbfs` RMS. */
const atLevel = (voice: Int16Array, dbfs: number) => {
  let sum = 0
  for (const sample of voice) sum += sample * sample
  const gain = (32768 * 10 ** (dbfs / 20)) / Math.sqrt(sum / voice.length)
  return Float64Array.from(voice, (sample) => sample * gain)
}

const tone = (hz: number, ms: number, dbfs: number) =>
  Float64Array.from(
    { length: ms * 8 },
    (_, n) => 32768 * 10 ** (dbfs / 20) * Math.SQRT2 * Math.sin((2 * Math.PI * hz * n) / RATE)
  )

/** Silences (ms) and sounds one after the other, with the noise over all of it, through μ-law. */
const line = (pieces: ReadonlyArray<Float64Array | number>, noise: typeof noises[number], seed: number) => {
  const length = pieces.reduce<number>(
    (total, piece) => total + (typeof piece === "number" ? piece * 8 : piece.length),
    0
  )
  const out = new Float64Array(length)
  let at = 0
  for (const piece of pieces) {
    if (typeof piece === "number") {
      at += piece * 8
    } else {
      out.set(piece, at)
      at += piece.length
    }
  }
  const [kind, level] = noise.split(" ")
  const amplitude = 32768 * 10 ** (Number(level) / 20)
  const next = random(seed)
  for (let i = 0; i < length && kind !== "none"; i++) {
    out[i]! += kind === "hum"
      ? amplitude * (Math.sin((2 * Math.PI * 60 * i) / RATE) + 0.5 * Math.sin((2 * Math.PI * 180 * i) / RATE))
      : amplitude * Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next())
  }
  const pcm = Int16Array.from(out, (sample) => Math.max(-32768, Math.min(32767, Math.round(sample))))
  return MuLaw.decode(MuLaw.encode(pcm))
}

interface Sample {
  readonly name: string
  readonly truth: "human" | "machine"
  readonly audio: Int16Array
  /** Where the speech ends, ms from the answer. */
  readonly speechEndMs: number
  /** A machine's: where its greeting ends (its beep's end, or its speech's), if measured. */
  readonly greetingEndMs?: number
  readonly beeped: boolean
}

const corpus = (): ReadonlyArray<Sample> => {
  const samples: Array<Sample> = []
  let k = 0
  const voiceOf = (text: string, pitch: number) =>
    trimmed(Flite.synthesize(text, { pitchHz: pitch, stretch: stretches[k % stretches.length]! }))
  for (const text of openings) {
    for (const pitch of pitches) {
      const voice = voiceOf(text, pitch)
      for (const lead of [0, 300, 1000, 2500]) {
        const noise = noises[k % noises.length]!
        const speech = atLevel(voice, levels[(k >> 1) % levels.length]!)
        const speechEndMs = lead + speech.length / 8
        samples.push({
          name: `person ${JSON.stringify(text)} at ${pitch} Hz after ${lead} ms, ${noise}`,
          truth: "human",
          audio: line([lead, speech, 6000], noise, k++),
          speechEndMs,
          beeped: false
        })
      }
    }
  }
  // "Hello? … Hello?": a second hello after a pause
  for (const pitch of pitches) {
    const hello = atLevel(voiceOf("Hello?", pitch), -22)
    for (const pause of [700, 1500]) {
      const noise = noises[k % noises.length]!
      samples.push({
        name: `person "Hello? … Hello?" at ${pitch} Hz, ${pause} ms apart, ${noise}`,
        truth: "human",
        audio: line([400, hello, pause, hello, 6000], noise, k++),
        speechEndMs: 400 + hello.length / 8,
        beeped: false
      })
    }
  }
  for (const text of [...greetings, ...shortGreetings]) {
    for (const pitch of pitches) {
      const voice = voiceOf(text, pitch)
      for (const beep of [...beeps, undefined]) {
        if (beep === undefined && shortGreetings.includes(text)) continue
        const noise = noises[k % noises.length]!
        const speech = atLevel(voice, levels[(k >> 1) % levels.length]!)
        const lead = [0, 150, 600][k % 3]!
        const gap = [300, 800][k % 2]!
        const speechEndMs = lead + speech.length / 8
        const pieces = beep === undefined
          ? [lead, speech, 4000]
          : [lead, speech, gap, tone(beep[0], beep[1], -12 - (k % 3) * 6), 4000]
        samples.push({
          name: `machine ${JSON.stringify(text.slice(0, 24))}… (${
            (speech.length / RATE).toFixed(1)
          } s) at ${pitch} Hz, ${beep === undefined ? "no beep" : `beep ${beep[0]} Hz ${beep[1]} ms`}, ${noise}`,
          truth: "machine",
          audio: line(pieces, noise, k++),
          speechEndMs,
          greetingEndMs: beep === undefined ? speechEndMs : speechEndMs + gap + beep[1],
          beeped: beep !== undefined
        })
      }
    }
  }
  // The simulated carrier's own: a person's hello, and its machine (greeting, 300 ms, beep). Its
  // greeting's end is not measured: its voice ends 1 s before the text's data band does, quiet
  // (−38 dBFS), so the silence before the beep is long enough to end it (Twilio's
  // `machine_end_silence` would too).
  const hello = SimVoice.speak(SimPerson.helloLine, "person")
  const greeting = SimVoice.speak(SimPerson.voicemailGreeting, "person")
  for (const noise of ["none", "white -45"] as const) {
    samples.push({
      name: `the simulated person's hello, ${noise}`,
      truth: "human",
      audio: line([0, Float64Array.from(hello), 6000], noise, k++),
      speechEndMs: hello.length / 8,
      beeped: false
    })
    const beep = Float64Array.from(SimPerson.beep())
    samples.push({
      name: `the simulated machine, ${noise}`,
      truth: "machine",
      audio: line([0, Float64Array.from(greeting), SimPerson.timings.beepGapMs, beep, 4000], noise, k++),
      speechEndMs: greeting.length / 8,
      beeped: true
    })
  }
  return samples
}

/** Nearest-rank percentile. */
const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

describe("MachineDetection on generated calls", () => {
  it("tells people from machines 95 % of the time or better, quickly, and finds the greeting's end", () => {
    const samples = corpus()
    const wrong: Array<string> = []
    const personDelays: Array<number> = []
    const machineTimes: Array<number> = []
    const beepEndErrors: Array<number> = []
    const silenceEndErrors: Array<number> = []
    for (const sample of samples) {
      const detection = MachineDetection.make()
      for (let at = 0; at < sample.audio.length && !MachineDetection.isDone(detection); at += 160) {
        MachineDetection.feed(detection, sample.audio.subarray(at, at + 160), at / 8)
      }
      const verdict = detection.verdict
      if (verdict?._tag !== sample.truth) {
        wrong.push(`${sample.name}: ${JSON.stringify(verdict)}`)
        continue
      }
      if (verdict._tag === "human") {
        personDelays.push(verdict.atMs - sample.speechEndMs)
        continue
      }
      machineTimes.push(verdict.atMs)
      const end = detection.greetingEnd
      assert.isDefined(end, `${sample.name}: the greeting's end`)
      if (sample.greetingEndMs === undefined) continue
      if (sample.beeped) {
        assert.strictEqual(end.by, "beep", sample.name)
        beepEndErrors.push(end.atMs - sample.greetingEndMs)
      } else {
        assert.strictEqual(end.by, "silence", sample.name)
        silenceEndErrors.push(end.atMs - sample.greetingEndMs)
      }
    }
    const people = samples.filter((sample) => sample.truth === "human").length
    const machines = samples.length - people
    const wrongPeople = wrong.filter((line) => line.startsWith("person") || line.startsWith("the simulated person"))
    const figures = {
      samples: samples.length,
      people,
      machines,
      accuracy: 1 - wrong.length / samples.length,
      personDecisionAfterSpeechMs: { p50: percentile(personDelays, 50), p90: percentile(personDelays, 90) },
      machineDecisionFromAnswerMs: { p50: percentile(machineTimes, 50), p90: percentile(machineTimes, 90) },
      beepEndErrorMs: { min: Math.min(...beepEndErrors), max: Math.max(...beepEndErrors) },
      silenceEndErrorMs: { min: Math.min(...silenceEndErrors), max: Math.max(...silenceEndErrors) }
    }
    console.info(`MachineDetection accuracy: ${JSON.stringify(figures)}`)
    assert.isAtLeast(samples.length, 300)
    assert.isAtLeast(1 - wrongPeople.length / people, 0.95, wrongPeople.join("\n"))
    assert.isAtLeast(1 - (wrong.length - wrongPeople.length) / machines, 0.95, wrong.join("\n"))
    // a person waits speechEndMs (1.2 s) of silence after their hello, give or take a frame
    assert.isAtMost(figures.personDecisionAfterSpeechMs.p90, 1300)
    // a machine is heard 2.4 s into its greeting, or by its beep
    assert.isAtMost(figures.machineDecisionFromAnswerMs.p90, 3600)
    // the beep's end within a frame or two; the silence's start within the voice's quiet tail
    assert.isAtMost(Math.max(...beepEndErrors.map(Math.abs)), 50)
    assert.isAtMost(Math.max(...silenceEndErrors.map(Math.abs)), 200)
  }, 120_000)
})
