/**
 * Text on standard error exactly as given (no line break added): a progress bar redrawn in
 * place, a question answered on the same line.
 *
 * @since 0.1.0
 */
import { Effect, Stdio, Stream } from "effect"

/**
 * A writer bound to this process's standard error.
 *
 * @category constructors
 */
export const writer: Effect.Effect<(text: string) => Effect.Effect<void>, never, Stdio.Stdio> = Effect.gen(
  function*() {
    const stdio = yield* Stdio.Stdio
    return (text: string) => Stream.run(Stream.make(text), stdio.stderr({ endOnDone: false })).pipe(Effect.orDie)
  }
)
