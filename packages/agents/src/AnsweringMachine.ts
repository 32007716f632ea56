/**
 * Waiting out an answering machine's greeting and beep before leaving a message: speech, then
 * enough quiet. Voice activity (the session's `SpeechStarted`/`SpeechStopped`) is all it
 * reads, so a greeting of any length works, and a beep counts as more speech.
 *
 * @since 0.1.0
 */
import type { Effect, Option } from "effect"
import { Effect as E, Option as O } from "effect"

/**
 * A voice-activity signal.
 *
 * @category models
 */
export type TurnSignal = { readonly _tag: "Started" } | { readonly _tag: "Stopped" }

/**
 * Returns once the machine has been quiet for `quietMs` after speaking (or said nothing for
 * `10 × quietMs`), or the line went dead. `nextSignal(timeoutMs)` is the next signal, none on
 * timeout or hang-up.
 *
 * @category combinators
 */
export const awaitBeepEnd = (
  nextSignal: (timeoutMs: number) => Effect.Effect<Option.Option<TurnSignal>>,
  quietMs: number
): Effect.Effect<void> =>
  E.gen(function*() {
    for (;;) {
      const signal = yield* nextSignal(quietMs * 10)
      if (O.isNone(signal)) return
      if (signal.value._tag === "Stopped") {
        const more = yield* nextSignal(quietMs)
        if (O.isNone(more)) return
      }
    }
  })
