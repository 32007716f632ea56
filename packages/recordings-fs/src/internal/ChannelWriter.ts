/**
 * The writer of one channel's file: the file created with the header of an empty WAV, appends
 * that the caller does not wait for, the header patched as audio lands, and the close.
 *
 * Why Node's `fs` here and not Effect's `FileSystem`: waiting for a write is a fiber suspended
 * and woken on the file system's callback, twice a second per call (a second of audio per
 * channel at a time), and the media session's recorder waited for both: a quarter of the
 * engine's fiber wakes at 100 calls (docs/PERFORMANCE.md). Here an append is a positional
 * `fs.write` on the file's descriptor, started synchronously, its outcome kept for the
 * writer's next step (Effect's `File` does not hand out its descriptor).
 *
 * - At most one write is in flight: an append while one is waits for it (in practice never:
 *   the session writes each channel once a second), so memory holds one chunk at most and
 *   each append's position is the end of what landed.
 * - The header is patched, in the same chain, once `patchEveryBytes` landed since the last
 *   patch: it never declares bytes that are not on disk, even when the process is killed.
 * - A failed append or patch ends the recording: the next append (or empty write) answers the
 *   error, once; when none comes, the close logs it. What landed before it stays declared.
 * - An empty write appends nothing and completes once every write before it landed: a
 *   barrier, for readers that must see what was written (tests, a caller about to read).
 *
 * @internal
 */
import { RecordingWriteError } from "@voice-agent/core/ports/RecordingStore"
import type { RecordingWriteFailure, RecordingWriter } from "@voice-agent/core/ports/RecordingStore"
import * as Wav from "@voice-agent/media/Wav"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** How the port classifies a system error code (`ENOSPC`, ...). */
export const failureOfCode = (code: string | undefined): RecordingWriteFailure => {
  if (code === "ENOSPC" || code === "EDQUOT" || code === "EFBIG") return "NoSpace"
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") return "Denied"
  return "Io"
}

/**
 * Writes all of `bytes` at `position` (a short write, as at a file-size limit, goes on with
 * the rest, which then fails), then calls `done` once, with the error if one stopped it.
 */
const writeFully = (
  fd: number,
  bytes: Uint8Array,
  position: number,
  done: (error: NodeJS.ErrnoException | null) => void
) => {
  let offset = 0
  const next = () =>
    NodeFs.write(fd, bytes, offset, bytes.length - offset, position + offset, (error, written) => {
      if (error !== null) return done(error)
      if (written === 0) return done(Object.assign(new Error("write wrote nothing"), { code: "EIO" }))
      offset += written
      return offset < bytes.length ? next() : done(null)
    })
  next()
}

interface Target {
  readonly file: string
  readonly callId: string
  readonly channel: "agent" | "remote"
  readonly patchEveryBytes: number
}

/** What failed, in the port's words: the operation, the file, the system's error code. */
const errorOf = (target: Target, operation: string, error: NodeJS.ErrnoException) =>
  new RecordingWriteError({
    callId: target.callId,
    channel: target.channel,
    reason: failureOfCode(error.code),
    message: `Could not ${operation} the ${target.channel} recording of call ${target.callId}: ${
      error.code ?? error.message
    } (${error.syscall ?? "write"})`
  })

/** An operation with a Node callback, as an effect failing with the port's error. */
const call = (target: Target, operation: string, run: (done: (error: NodeJS.ErrnoException | null) => void) => void) =>
  Effect.callback<void, RecordingWriteError>((resume) =>
    run((error) => resume(error === null ? Effect.void : Effect.fail(errorOf(target, operation, error))))
  )

interface ChannelWriter extends RecordingWriter {
  /**
   * Waits for the write in flight, then patches the header for what landed (when it is not
   * declared yet), stops taking writes and closes the file; logs a failure no write answered,
   * and a failing patch or close. Never fails.
   */
  readonly close: Effect.Effect<void>
}

/** The writer of `fd`, after `Wav.HEADER_BYTES`, the file holding a header for no audio. */
const make = (fd: number, target: Target): ChannelWriter => {
  const { patchEveryBytes } = target
  let state: "open" | "failed" | "closed" = "open"
  // bytes of audio on disk, and how many of them the header declares
  let landed = 0
  let declared = 0
  // the write in flight, and who waits for it to end
  let busy = false
  let waiting: Array<() => void> = []
  let unanswered: RecordingWriteError | undefined

  const fail = (operation: string, error: NodeJS.ErrnoException) => {
    if (state !== "open") return
    state = "failed"
    unanswered = errorOf(target, operation, error)
  }
  const settle = () => {
    busy = false
    const waiters = waiting
    waiting = []
    for (const wake of waiters) wake()
  }
  const patch = (then: (error: NodeJS.ErrnoException | null) => void) => {
    const declaring = landed
    writeFully(fd, Wav.header(declaring), 0, (error) => {
      if (error === null) declared = declaring
      then(error)
    })
  }
  const append = (bytes: Uint8Array) => {
    busy = true
    writeFully(fd, bytes, Wav.HEADER_BYTES + landed, (error) => {
      if (error !== null) {
        fail("write", error)
        return settle()
      }
      landed += bytes.length
      if (landed - declared < patchEveryBytes) return settle()
      return patch((error) => {
        if (error !== null) fail("update the header of", error)
        settle()
      })
    })
  }
  const idle: Effect.Effect<void> = Effect.callback<void>((resume) => {
    const wake = () => resume(Effect.void)
    waiting.push(wake)
    return Effect.sync(() => {
      waiting = waiting.filter((w) => w !== wake)
    })
  })

  const write = (samples: Int16Array): Effect.Effect<void, RecordingWriteError> =>
    Effect.suspend(() => {
      if (busy) return Effect.andThen(idle, write(samples))
      if (unanswered !== undefined) {
        const error = unanswered
        unanswered = undefined
        return Effect.fail(error)
      }
      if (state === "open" && samples.length > 0) append(Wav.encodeSamples(samples))
      return Effect.void
    })

  const close: Effect.Effect<void> = Effect.suspend(() => {
    if (busy) return Effect.andThen(idle, close)
    state = "closed"
    const report = unanswered === undefined ? Effect.void : Effect.logError(unanswered.message)
    unanswered = undefined
    const finalize = landed === declared ?
      Effect.void :
      Effect.callback<void>((resume) =>
        patch((error) =>
          resume(
            error === null ? Effect.void : Effect.logWarning(errorOf(target, "finalize the header of", error).message)
          )
        )
      )
    const closeFile = call(target, "close", (done) => NodeFs.close(fd, done)).pipe(
      Effect.catch((error) => Effect.logWarning(error.message))
    )
    return Effect.andThen(Effect.andThen(report, finalize), closeFile)
  })

  return { write, close }
}

/**
 * Creates `file` ("wx"), and its directory first when it is missing: one directory a call holds
 * both channels, so the first channel's open makes it and the second's finds it (one `mkdir` a
 * call, not one a channel). `done` names what failed in the port's words.
 */
const createFile = (
  file: string,
  done: (operation: string, error: NodeJS.ErrnoException | null, fd: number) => void
) =>
  NodeFs.open(file, "wx", 0o666, (error, fd) => {
    if (error?.code !== "ENOENT") return done("create", error, fd)
    NodeFs.mkdir(NodePath.dirname(file), { recursive: true }, (mkdirError) => {
      if (mkdirError !== null) return done("create the directory of", mkdirError, -1)
      NodeFs.open(file, "wx", 0o666, (error, fd) => done("create", error, fd))
    })
  })

/**
 * Creates `file` (it must not exist: a second writer for the same call and channel is a bug, a
 * defect here) with the header of an empty WAV, and answers its writer; the writer is closed
 * and the file with it when the scope closes. When even the header cannot be written, the
 * file is removed (the channel then reads as absent rather than as a truncated WAV).
 *
 * @internal
 */
export const open = (target: Target): Effect.Effect<RecordingWriter, RecordingWriteError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      let fd = -1
      yield* Effect.callback<void, RecordingWriteError>((resume) =>
        createFile(target.file, (operation, error, opened) => {
          if (error === null) {
            fd = opened
            return resume(Effect.void)
          }
          return resume(
            error.code === "EEXIST" ? Effect.die(error) : Effect.fail(errorOf(target, operation, error))
          )
        })
      )
      yield* call(target, "write the header of", (done) => writeFully(fd, Wav.header(0), 0, done)).pipe(
        Effect.onError(() =>
          Effect.callback<void>((resume) =>
            NodeFs.close(fd, () => NodeFs.unlink(target.file, () => resume(Effect.void)))
          )
        )
      )
      return make(fd, target)
    }),
    (writer) => writer.close
  ).pipe(Effect.map((writer) => ({ write: writer.write })))
