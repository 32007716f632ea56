/**
 * The audio the kit's trunk plays (raw μ-law, 8 kHz, mono: SIPp 3.6.1 plays a WAV header as
 * audio), in simulated speech (`@voice-agent/media/SimSpeech`, voiced by carrier-sim's
 * `SimVoice`), which the daemon's default recognizer (simulated speech) transcribes:
 *
 * - `person.ulaw`: a person picking up ("Hello?"), then, `answerAtMs` in (after the agent's
 *   greeting), their answer ("Yes, I have a moment."), then silence to `lengthMs`;
 * - `machine.ulaw`: an answering machine: carrier-sim's long voicemail greeting, 300 ms of
 *   silence, a 500 ms beep at 1 kHz, then silence to `lengthMs` (the agent's message);
 * - `hello.ulaw`: a person picking up ("Hello?") and 1 s of silence: the engine knows a person
 *   at once, and the agent asks its question;
 * - `keys.pcap`: the key presses `keys` (RFC 4733, Pcap.ts), which SIPp replays.
 *
 * @since 0.1.0
 */
import * as SimPerson from "@voice-agent/carrier-sim/SimPerson"
import * as SimVoice from "@voice-agent/carrier-sim/SimVoice"
import * as MuLaw from "@voice-agent/media/MuLaw"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Pcap from "./Pcap.ts"

/**
 * When the person answers and how long each file lasts, in ms.
 *
 * @category models
 */
export const timings = { answerAtMs: 7_500, personMs: 20_000, machineMs: 20_000 }

/**
 * The keys the `dtmf` check's person presses: a member number, then the pound key.
 *
 * @category models
 */
export const keys = "12#"

const place = (length: number, parts: ReadonlyArray<readonly [atMs: number, samples: Int16Array]>) => {
  const out = new Int16Array(length * 8)
  for (const [atMs, samples] of parts) out.set(samples.subarray(0, out.length - atMs * 8), atMs * 8)
  return MuLaw.encode(out)
}

/**
 * The person's audio.
 *
 * @category constructors
 */
export const person = (): Uint8Array =>
  place(timings.personMs, [
    [0, SimVoice.speak(SimPerson.helloLine, "person")],
    [timings.answerAtMs, SimVoice.speak(SimPerson.yesAnswer, "person")]
  ])

/**
 * A person picking up, and nothing more.
 *
 * @category constructors
 */
export const hello = (): Uint8Array => {
  const said = SimVoice.speak(SimPerson.helloLine, "person")
  return place(Math.ceil(said.length / 8) + 1000, [[0, said]])
}

/**
 * The answering machine's audio.
 *
 * @category constructors
 */
export const machine = (): Uint8Array => {
  const greeting = SimVoice.speak(SimPerson.voicemailGreeting, "person")
  const beepAtMs = Math.ceil(greeting.length / 8) + SimPerson.timings.beepGapMs
  return place(timings.machineMs, [[0, greeting], [beepAtMs, SimPerson.beep()]])
}

/**
 * Writes `person.ulaw`, `machine.ulaw`, `hello.ulaw` and `keys.pcap` into `dir` (the trunk scenario reads them
 * from SIPp's working directory).
 *
 * @category constructors
 */
export const write = (dir: string): void => {
  fs.writeFileSync(path.join(dir, "person.ulaw"), person())
  fs.writeFileSync(path.join(dir, "machine.ulaw"), machine())
  fs.writeFileSync(path.join(dir, "hello.ulaw"), hello())
  fs.writeFileSync(path.join(dir, "keys.pcap"), Pcap.presses(keys))
}
