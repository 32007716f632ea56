/**
 * One run of the media benchmark (`media.ts`) in a child process, and the figures read from what
 * it prints: p99 frame lag, CPU per second of call, the server's share of a core, memory per call.
 */
import { spawnSync } from "node:child_process"
import { median } from "./Paired.ts"

export interface MediaRun {
  readonly p99: number
  /** After the warm-up; and in it. */
  readonly cpuMsPerCallSecond: number
  readonly warmupCpuMsPerCallSecond: number
  readonly coreShare: number
  readonly mbPerCall: number
}

/**
 * A server's share of a core from which its CPU per second of call is capped: one event loop at
 * a whole core cannot spend more as its cost grows, only fall behind (the frame lag grows
 * instead), so a ratio of two such runs understates the difference (docs/PERFORMANCE.md, "A
 * slower machine, and where the gap goes by activity"). V8's and libuv's threads count in the
 * share too, hence below 1.
 */
export const CAPPED_CORE_SHARE = 0.9

/**
 * What to say beside a CPU ratio when either side's median run was at a capped share of a
 * core (`CAPPED_CORE_SHARE`), else nothing; `runs` are each side's, named. The engine capped
 * makes the ratio understate its cost; the baseline capped, overstate it.
 */
export const cappedNote = (runs: ReadonlyArray<readonly [name: string, runs: ReadonlyArray<MediaRun>]>): string => {
  const capped = runs.flatMap(([name, side]) => {
    const share = side.length === 0 ? 0 : median(side.map((run) => run.coreShare))
    return share >= CAPPED_CORE_SHARE ? [`${name} ${(100 * share).toFixed(0)}%`] : []
  })
  return capped.length === 0
    ? ""
    : `a server at a whole core, ${
      capped.join(", ")
    } (a capped side's CPU per second of call is what one core allows, not what it costs)`
}

/**
 * `calls` calls for `seconds` against the engine (`ours`, with `workers` processes) or the
 * hand-written server (`raw`); `extra` are more arguments for media.ts; `checkout` is the
 * project's root whose media.ts runs (by default this one: another, to compare two commits).
 */
export const mediaRun = (
  calls: number,
  seconds: number,
  server: "ours" | "raw",
  workers = 1,
  extra: ReadonlyArray<string> = [],
  checkout?: string
): MediaRun => {
  const args = ["test/bench/media.ts", String(calls), "--seconds", String(seconds), ...extra]
  if (server === "raw") args.push("--server", "raw")
  if (workers > 1) args.push("--workers", String(workers))
  const result = spawnSync(process.execPath, args, {
    cwd: checkout,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024
  })
  const out = result.stdout
  const p99 = /frame lag .* p99\s+([\d.]+) ms/.exec(out)?.[1]
  const cpu = /CPU server process ([\d.]+) s in the ([\d.]+) s measured .* ([\d.]+) ms per second of call audio/.exec(
    out
  )
  const warmup = /CPU server process in the warm-up [\d.]+ s, ([\d.]+) ms per second of call audio/.exec(out)
  // RSS per call (with `--workers`, "…, N workers summed)" and no heap figure)
  const memory = /memory\s+RSS .*?\(([\d.]+) MB per call[,)]/.exec(out)
  if (result.status !== 0 || p99 === undefined || cpu === null || warmup === null || memory === null) {
    throw new Error(`media.ts ${calls}: exit ${result.status}\n${out}\n${result.stderr}`)
  }
  return {
    p99: Number(p99),
    cpuMsPerCallSecond: Number(cpu[3]),
    warmupCpuMsPerCallSecond: Number(warmup[1]),
    coreShare: Number(cpu[1]) / Number(cpu[2]),
    mbPerCall: Number(memory[1])
  }
}

/**
 * The arguments of a paired script: its own (`--seconds S`, default 10, and numbers, the first
 * two answered as `calls` and `rounds` with these defaults, the rest `positional`), and those
 * after `--`, for media.ts.
 */
export const pairedArgs = (
  argv: ReadonlyArray<string>,
  defaults: { readonly calls: number; readonly rounds: number }
) => {
  const dashes = argv.indexOf("--")
  const own = dashes < 0 ? argv : argv.slice(0, dashes)
  const extra = dashes < 0 ? [] : argv.slice(dashes + 1)
  const secondsAt = own.indexOf("--seconds")
  const seconds = secondsAt < 0 ? 10 : Number(own[secondsAt + 1])
  const rest = own.filter((_, i) => secondsAt < 0 || (i !== secondsAt && i !== secondsAt + 1))
  const [calls = defaults.calls, rounds = defaults.rounds] = rest.filter((a) => /^\d+$/.test(a)).map(Number)
  return { calls, rounds, seconds, extra, positional: rest.filter((a) => !/^\d+$/.test(a)) }
}

/**
 * `rounds` rounds of two runs, their order swapped every round so that a machine's drift hits
 * both alike; each run's figures go to its side; `report` is told each round's.
 */
export const alternated = (
  rounds: number,
  first: () => MediaRun,
  second: () => MediaRun,
  report: (round: number, first: MediaRun, second: MediaRun) => void
): readonly [ReadonlyArray<MediaRun>, ReadonlyArray<MediaRun>] => {
  const firsts: Array<MediaRun> = []
  const seconds: Array<MediaRun> = []
  for (let round = 0; round < rounds; round++) {
    const runs = [() => firsts.push(first()), () => seconds.push(second())]
    for (const run of round % 2 === 0 ? runs : runs.reverse()) run()
    report(round, firsts.at(-1)!, seconds.at(-1)!)
  }
  return [firsts, seconds]
}
