/**
 * The voices of the simulated carrier's calls: a text said by the agent or by the person, as
 * one utterance of simulated speech, flite saying it (`Flite`) with the text in the data band
 * above the voice (`@voice-agent/media/SimSpeech`). A recording of a simulated call is two
 * people talking (docs/MEDIA.md, "Simulated speech"): the agent in flite's own voice (about 90 Hz
 * of mean pitch), the person in a higher one (165 Hz), both at a brisk pace (`voices`).
 *
 * Flite's cost grows faster than the text on long runs without a full stop (4095 letters "a",
 * spelled one by one, take it 55 s), so the voice says the text in runs of at most
 * `RUN_CHARACTERS` (250), cut at sentence ends where it can, at spaces otherwise, and only
 * its first `VOICED_CHARACTERS` (500, about 30 s of speech): a longer monologue goes on as
 * the data band alone, quiet, to its end. The text crosses the audio path whole either way.
 *
 * Utterances are cached by speaker and text, the most recently used kept up to
 * `CACHE_SAMPLES` (4 Mi samples: 8 MiB, about 8.7 minutes of speech), so a line said on many
 * calls (the person's answers, an agent's greeting) is synthesized once per process. A miss
 * costs the synthesis (`Flite`: about 30 ms of CPU for a line of a few seconds, on the event
 * loop; `warmUp` takes the module's compilation, about 70 ms more, out of the first call) and
 * `SimSpeech.encode` (about 1.5 ms per second of speech); a hit, a copy.
 *
 * @since 0.1.0
 */
import * as SimSpeech from "@voice-agent/media/SimSpeech"
import * as Flite from "./Flite.ts"

/**
 * Who is speaking.
 *
 * @category models
 */
export type Speaker = "agent" | "person"

/**
 * How flite says each speaker's lines: the agent in the voice's own pitch, the person at
 * 165 Hz; both a tenth faster than the voice's own pace (flite's `kal` is a slow talker, about
 * 15 characters a second; so a call lasts about as long as with the tones this replaced).
 *
 * @category models
 */
export const voices: { readonly [speaker in Speaker]: Flite.Options } = {
  agent: { stretch: 0.9 },
  person: { pitchHz: 165, stretch: 0.9 }
}

/**
 * How many samples of utterances the cache keeps.
 *
 * @category models
 */
export const CACHE_SAMPLES = 1 << 22

/**
 * The longest run of text flite is given at once, in UTF-16 code units.
 *
 * @category models
 */
export const RUN_CHARACTERS = 250

/**
 * How much of a text the voice says, in UTF-16 code units.
 *
 * @category models
 */
export const VOICED_CHARACTERS = 500

/**
 * The runs the voice says of `text`: its first `VOICED_CHARACTERS`, in runs of at most
 * `RUN_CHARACTERS` that end at a sentence's end once past half that, at a space otherwise, in
 * the middle of a word longer than a run where they must. (A run may cut a character made of
 * two code units in two: flite then says nothing for it; the data band carries it whole.)
 *
 * @category constructors
 */
export const runsOf = (text: string): ReadonlyArray<string> => {
  const pieces: Array<string> = []
  for (const word of text.slice(0, VOICED_CHARACTERS).split(/(?<=\s)/)) {
    for (let at = 0; at < word.length; at += RUN_CHARACTERS) pieces.push(word.slice(at, at + RUN_CHARACTERS))
  }
  const runs: Array<string> = []
  let run = ""
  for (const piece of pieces) {
    if (run.length + piece.length > RUN_CHARACTERS || (run.length > RUN_CHARACTERS / 2 && /[.!?]\s*$/.test(run))) {
      if (run.trim() !== "") runs.push(run)
      run = ""
    }
    run += piece
  }
  if (run.trim() !== "" || runs.length === 0) runs.push(run)
  return runs
}

/** Flite saying `text` in runs, one after the other. */
const voiceOf = (text: string, speaker: Speaker): Int16Array => {
  const rendered = runsOf(text).map((run) => Flite.synthesize(run, voices[speaker]))
  const out = new Int16Array(rendered.reduce((total, voice) => total + voice.length, 0))
  let at = 0
  for (const voice of rendered) {
    out.set(voice, at)
    at += voice.length
  }
  return out
}

const cache = new Map<string, Int16Array>()
let cachedSamples = 0
let hits = 0
let misses = 0

const utf8 = new TextEncoder()

/**
 * `text` said by `speaker`, as one utterance of simulated speech (8 kHz 16-bit PCM, no
 * silence before or after): a fresh array the caller owns. Deterministic. Throws a
 * `RangeError` for a text of more than `SimSpeech.MAX_BYTES` UTF-8 bytes (before any
 * synthesis), and an `Error` if flite fails (a broken installation).
 *
 * @category constructors
 */
export const speak = (text: string, speaker: Speaker = "agent"): Int16Array => speakShared(text, speaker).slice()

/**
 * `text` said by `speaker`, as `speak` says it but not copied: the cached utterance itself,
 * shared with every other caller of the same line, which nobody may change (`SimTextToSpeech`
 * cuts it into views). A line said on every call then costs no copy of its audio per call.
 *
 * @category constructors
 */
export const speakShared = (text: string, speaker: Speaker = "agent"): Int16Array => {
  const bytes = utf8.encode(text).length
  if (bytes > SimSpeech.MAX_BYTES) {
    throw new RangeError(`SimVoice.speak: ${bytes} bytes, more than ${SimSpeech.MAX_BYTES}`)
  }
  const key = `${speaker}\u0000${text}`
  const known = cache.get(key)
  if (known !== undefined) {
    hits++
    // the most recently used last, in the map's order
    cache.delete(key)
    cache.set(key, known)
    return known
  }
  misses++
  const utterance = SimSpeech.encode(text, voiceOf(text, speaker))
  cache.set(key, utterance)
  cachedSamples += utterance.length
  for (const [oldest, samples] of cache) {
    if (cachedSamples <= CACHE_SAMPLES) break
    cache.delete(oldest)
    cachedSamples -= samples.length
  }
  return utterance
}

/**
 * Makes flite ready: compiles its module and runs it once (about 100 ms of CPU), so that the
 * first line of the first call does not wait for it. Idempotent; the layers that speak call it
 * when they are built.
 *
 * @category constructors
 */
export const warmUp = (): void => {
  if (warm) return
  warm = true
  Flite.synthesize("Hello.")
}
let warm = false

/**
 * The cache's counters since the process started.
 *
 * @category getters
 */
export const cacheStats = (): { readonly hits: number; readonly misses: number; readonly samples: number } => ({
  hits,
  misses,
  samples: cachedSamples
})
