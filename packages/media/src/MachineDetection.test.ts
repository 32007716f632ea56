import { assert, describe, it } from "@effect/vitest"
import { voiceFor } from "../test/fixtures/voice.ts"
import * as DtmfTones from "./DtmfTones.ts"
import * as MachineDetection from "./MachineDetection.ts"
import * as MuLaw from "./MuLaw.ts"

const RATE = 8000

/** `ms` of digital silence. */
const silence = (ms: number) => new Int16Array(ms * 8)

/** A sine of `hz` for `ms` at `dbfs` (mean square relative to full scale). */
const tone = (hz: number, ms: number, dbfs = -12) => {
  const amplitude = 32768 * 10 ** ((dbfs + 10 * Math.log10(2)) / 20)
  return Int16Array.from({ length: ms * 8 }, (_, n) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * n) / RATE)))
}

/** Pieces one after the other, with white noise at `noiseDbfs` over all of it, through μ-law. */
const line = (pieces: ReadonlyArray<Int16Array>, noiseDbfs?: number): Int16Array => {
  const out = new Int16Array(pieces.reduce((total, piece) => total + piece.length, 0))
  let at = 0
  for (const piece of pieces) {
    out.set(piece, at)
    at += piece.length
  }
  if (noiseDbfs !== undefined) {
    const amplitude = 32768 * 10 ** (noiseDbfs / 20) * Math.sqrt(3)
    let state = 99
    for (let i = 0; i < out.length; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0
      out[i] = Math.max(-32768, Math.min(32767, out[i]! + Math.round(amplitude * ((state / 2 ** 32) * 2 - 1))))
    }
  }
  return MuLaw.decode(MuLaw.encode(out))
}

/** Feeds `audio` in frames of `frameSamples` until the detector is done; the events and where. */
const run = (audio: Int16Array, options?: MachineDetection.Options, frameSamples = 160) => {
  const detection = MachineDetection.make(options)
  const events: Array<readonly [MachineDetection.Event, number]> = []
  for (let at = 0; at < audio.length && !MachineDetection.isDone(detection); at += frameSamples) {
    const event = MachineDetection.feed(detection, audio.subarray(at, at + frameSamples))
    if (event !== undefined) events.push([event, detection.position / 8])
  }
  return { detection, events }
}

// The stand-in voice: 70 ms a character, 450 ms of silence at each punctuation mark.
const hello = voiceFor("hello") // 0.75 s with its 200 ms edges
const greeting = voiceFor("hi you have reached the voicemail of alex morgan. please leave a message after the tone")

describe("feed", () => {
  it("a short hello then silence is a person, once the silence has lasted speechEndMs", () => {
    const { detection, events } = run(line([silence(300), hello, silence(3000)]))
    const speechEndMs = 300 + (hello.length - 1600) / 8
    assert.strictEqual(detection.verdict?._tag, "human")
    assert.strictEqual(detection.verdict?.reason, "short-greeting")
    assert.deepStrictEqual(events.map(([event]) => event), ["human"])
    assert.approximately(detection.verdict!.atMs - speechEndMs, 1200, 60)
    assert.isTrue(MachineDetection.isDone(detection))
  })

  it("a long greeting is a machine once it has talked speechThresholdMs, and ends with its beep", () => {
    const audio = line([silence(200), greeting, silence(300), tone(1000, 500), silence(3000)])
    const { detection, events } = run(audio)
    const speechStartMs = 200 + 200
    assert.deepStrictEqual(detection.verdict?._tag, "machine")
    assert.strictEqual(detection.verdict?.reason, "long-greeting")
    assert.approximately(detection.verdict!.atMs - speechStartMs, 2400, 100)
    const beepEndMs = 200 + greeting.length / 8 + 300 + 500
    assert.strictEqual(detection.greetingEnd?.by, "beep")
    assert.approximately(detection.greetingEnd!.atMs, beepEndMs, 20)
    assert.deepStrictEqual(events.map(([event]) => event), ["machine", "greeting-end"])
    // the end is known 40 ms (the tone's tolerated gap) and a frame after it
    assert.approximately(events[1]![1] - beepEndMs, 60, 20)
  })

  it("a long greeting with no beep ends greetingEndSilenceMs into the silence after it", () => {
    const { detection } = run(line([greeting, silence(4000)], -60))
    const speechEndMs = (greeting.length - 1600) / 8
    assert.strictEqual(detection.verdict?._tag, "machine")
    assert.strictEqual(detection.greetingEnd?.by, "silence")
    assert.approximately(detection.greetingEnd!.atMs, speechEndMs, 60)
  })

  it("a beep after a short greeting is a machine as soon as the beep has lasted beepMinMs", () => {
    const greetingMs = 300 + hello.length / 8 + 500
    const { detection, events } = run(line([silence(300), hello, silence(500), tone(850, 400, -20), silence(2000)]))
    assert.deepStrictEqual(detection.verdict, { _tag: "machine", atMs: detection.verdict!.atMs, reason: "beep" })
    assert.approximately(detection.verdict!.atMs - greetingMs, 160, 30)
    assert.approximately(detection.greetingEnd!.atMs - (greetingMs + 400), 0, 20)
    assert.deepStrictEqual(events.map(([event]) => event), ["machine", "greeting-end"])
  })

  it("hears beeps across the band and through line noise (15 dB under the tone)", () => {
    for (const hz of [440, 800, 1000, 1400, 1800, 2000, 2200, 2500]) {
      const { detection } = run(line([silence(500), tone(hz, 300, -25), silence(2000)], -40))
      assert.strictEqual(detection.verdict?.reason, "beep", `${hz} Hz`)
      assert.approximately(detection.greetingEnd!.atMs, 800, 40, `${hz} Hz`)
    }
  })

  it("takes no steady tone outside 300 to 2600 Hz, no tone shorter than beepMinMs and no DTMF for a beep", () => {
    for (const audio of [tone(200, 600), tone(3000, 600), tone(1000, 100), DtmfTones.encode("5")[0]!]) {
      const { detection } = run(line([silence(400), audio, silence(3000)]))
      assert.deepStrictEqual(detection.verdict?._tag, "human")
      assert.strictEqual(detection.verdict?.reason, "short-greeting")
    }
  })

  it("nothing said for silenceTimeoutMs is a person; so is line noise", () => {
    for (const noise of [undefined, -55, -40]) {
      const { detection } = run(line([silence(8000)], noise))
      assert.deepStrictEqual(detection.verdict, { _tag: "human", atMs: 5000, reason: "silence" }, `noise ${noise}`)
    }
  })

  it("follows a noisy line: a hello over noise at −40 dBFS is still short, a greeting still long", () => {
    assert.strictEqual(run(line([silence(1500), hello, silence(3000)], -40)).detection.verdict?._tag, "human")
    assert.strictEqual(run(line([silence(1500), greeting, silence(3000)], -40)).detection.verdict?._tag, "machine")
  })

  it("pauses shorter than speechEndMs are part of the utterance: hello, hello is a person, three a machine", () => {
    const twice = line([silence(300), hello, silence(400), hello, silence(3000)])
    assert.strictEqual(run(twice).detection.verdict?.reason, "short-greeting")
    const longer = line([silence(300), hello, silence(600), hello, silence(600), hello, silence(600), hello])
    assert.strictEqual(run(longer).detection.verdict?.reason, "long-greeting")
  })

  it("decides the same whatever the frame length", () => {
    const audio = line([silence(300), greeting, silence(300), tone(1000, 500), silence(3000)])
    const reference = run(audio).detection
    for (const frameSamples of [80, 240, 333, 1024]) {
      const { detection } = run(audio, undefined, frameSamples)
      assert.strictEqual(detection.verdict?._tag, reference.verdict?._tag, `${frameSamples}`)
      assert.approximately(detection.verdict!.atMs, reference.verdict!.atMs, 130, `${frameSamples}`)
      assert.approximately(detection.greetingEnd!.atMs, reference.greetingEnd!.atMs, 130, `${frameSamples}`)
    }
  })

  it("hears a gap in the frames' timestamps as silence", () => {
    const detection = MachineDetection.make()
    const audio = line([silence(300), hello])
    for (let at = 0; at < audio.length; at += 160) {
      assert.isUndefined(MachineDetection.feed(detection, audio.subarray(at, at + 160), at / 8))
    }
    // the carrier sends nothing in silence, then a frame 2 s later
    assert.strictEqual(MachineDetection.feed(detection, silence(20), audio.length / 8 + 2000), "human")
    assert.strictEqual(detection.verdict?.reason, "short-greeting")
  })

  it("is configurable, and ignores frames once done", () => {
    const quick = run(line([silence(300), hello, silence(3000)]), { speechEndMs: 600 }).detection
    assert.approximately(quick.verdict!.atMs - (300 + (hello.length - 1600) / 8), 600, 60)
    assert.isUndefined(MachineDetection.feed(quick, tone(1000, 500)))
    assert.strictEqual(quick.verdict?._tag, "human")
    const machine = run(line([greeting, silence(4000)]), { greetingEndSilenceMs: 3000, timeoutMs: 5000 }).detection
    assert.deepStrictEqual(machine.greetingEnd?.by, "timeout")
    assert.throws(() => MachineDetection.make({ speechEndMs: 0 }), RangeError)
    assert.throws(() => MachineDetection.make({ timeoutMs: Number.NaN }), RangeError)
  })
})
