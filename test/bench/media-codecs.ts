/**
 * Micro-benchmark of the per-frame media codecs (`node test/bench/media-codecs.ts`, optionally
 * an iteration count, default 100,000, and names to run only some cases): the Twilio Media
 * Streams JSON frames both ways, μ-law, WAV samples, the call timeline and simulated speech, on
 * the inputs the media benchmark (`test/bench/media.ts`) feeds them. Each case runs a warm-up of
 * a tenth of its iterations, then the measured loop; it prints the mean time per call.
 *
 * Measures only the function on a hot, monomorphic path in one process: no GC pressure from
 * other work, no sockets. The figures compare versions of these functions on one machine; they
 * are not the share those functions take in a real call.
 */
import * as Flite from "@voice-agent/carrier-sim/Flite"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import * as CallTimeline from "@voice-agent/media/CallTimeline"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as TwilioMediaStream from "@voice-agent/media/TwilioMediaStream"
import * as Wav from "@voice-agent/media/Wav"
import { performance } from "node:perf_hooks"

const args = process.argv.slice(2)
const iterations = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000)
const only = args.filter((a) => !/^\d+$/.test(a))

const SID = "MZ0123456789abcdef0123456789abcdef"
const frame = new Int16Array(160).map((_, i) => Math.round(8000 * Math.sin(i / 3)))
const codes = MuLaw.encode(frame)
const payload = Buffer.from(codes).toString("base64")
const batch = new Int16Array(1600).map((_, i) => Math.round(8000 * Math.sin(i / 5)))
const batchBytes = Wav.encodeSamples(batch)
const line = "Hi Jane, this is Alex calling from Acme about your appointment. Can I confirm your full name?"
const voice = Flite.synthesize(line)
const speech = SimVoice.speak(line)
const seconds = (speech.length / 8000).toFixed(2)

const media: TwilioMediaStream.Media = {
  _tag: "Media",
  sequenceNumber: 1234,
  media: { track: "inbound", chunk: 1233, timestamp: 24640, payload },
  streamSid: SID
}
const mark: TwilioMediaStream.Mark = { _tag: "Mark", sequenceNumber: 77, streamSid: SID, mark: { name: "utterance-3" } }
const outboundMedia = TwilioMediaStream.outboundMedia(SID, payload)
const outboundMark = TwilioMediaStream.outboundMark(SID, "utterance-3")
const clear = TwilioMediaStream.clear(SID)
const mediaText = TwilioMediaStream.encode(media)
const markText = TwilioMediaStream.encode(mark)
const outboundMediaText = TwilioMediaStream.encode(outboundMedia)
const outboundMarkText = TwilioMediaStream.encode(outboundMark)
const clearText = TwilioMediaStream.encode(clear)

// every result is kept until the next one, so that no call is optimized away
let sink = 0
let last: unknown = undefined
const use = (value: unknown): void => {
  if (value !== last) sink++
  last = value
}

/** Each case: a name, how many of the default iterations it runs (1 = all), and one call. */
const cases: ReadonlyArray<readonly [string, number, (i: number) => void]> = [
  ["decode media", 1, () => use(TwilioMediaStream.decode(mediaText))],
  ["decode mark", 1, () => use(TwilioMediaStream.decode(markText))],
  ["decodeOutbound media", 1, () => use(TwilioMediaStream.decodeOutbound(outboundMediaText))],
  ["decodeOutbound mark", 1, () => use(TwilioMediaStream.decodeOutbound(outboundMarkText))],
  ["decodeOutbound clear", 1, () => use(TwilioMediaStream.decodeOutbound(clearText))],
  ["encode Media", 1, () => use(TwilioMediaStream.encode(media))],
  ["encode Mark", 1, () => use(TwilioMediaStream.encode(mark))],
  ["encode OutboundMedia", 1, () => use(TwilioMediaStream.encode(outboundMedia))],
  ["encode OutboundMark", 1, () => use(TwilioMediaStream.encode(outboundMark))],
  ["encode Clear", 1, () => use(TwilioMediaStream.encode(clear))],
  ["MuLaw.decode 160", 1, () => use(MuLaw.decode(codes))],
  ["MuLaw.encode 160", 1, () => use(MuLaw.encode(frame))],
  ["Wav.encodeSamples 160", 1, () => use(Wav.encodeSamples(frame))],
  ["Wav.encodeSamples 1600", 1, () => use(Wav.encodeSamples(batch))],
  ["Wav.decodeSamples 1600", 1, () => use(Wav.decodeSamples(batchBytes))],
  [
    "CallTimeline 20 ms remote + agent, advance 200 ms",
    1,
    (() => {
      let timeline = CallTimeline.make()
      let position = 0
      return () => {
        if (position > 8000 * 600) {
          timeline = CallTimeline.make()
          position = 0
        }
        CallTimeline.place(timeline, "remote", position, frame)
        CallTimeline.place(timeline, "agent", position, frame)
        position += 160
        if (position % 1600 === 0) {
          for (const segment of CallTimeline.advance(timeline, position - 1600)) use(segment.mixed)
        }
      }
    })()
  ],
  [`Flite.synthesize 93 characters (${seconds} s)`, 1 / 1000, () => use(Flite.synthesize(line))],
  [
    `SimSpeech.encode 93 characters over flite's voice (${seconds} s)`,
    1 / 100,
    () => use(SimSpeech.encode(line, voice))
  ],
  [`SimVoice.speak 93 characters, cached (${seconds} s)`, 1 / 100, () => use(SimVoice.speak(line))],
  [
    `SimSpeech.Decoder ${seconds} s of speech in 20 ms frames`,
    1 / 100,
    () => {
      const decoder = new SimSpeech.Decoder()
      for (let at = 0; at < speech.length; at += 160) use(decoder.push(speech.subarray(at, at + 160)))
    }
  ]
]

for (const [name, share, run] of cases) {
  if (only.length > 0 && !only.some((o) => name.includes(o))) continue
  const n = Math.max(1, Math.round(iterations * share))
  for (let i = 0; i < Math.max(1, n / 10); i++) run(i)
  const started = performance.now()
  for (let i = 0; i < n; i++) run(i)
  const perCall = ((performance.now() - started) * 1e6) / n
  const figure = perCall >= 1e6 ? `${(perCall / 1e6).toFixed(2)} ms` : `${(perCall / 1e3).toFixed(3)} µs`
  console.log(`${name.padEnd(52)} ${figure.padStart(12)}   (${n} calls)`)
}
if (sink === 0) console.log("nothing ran")
