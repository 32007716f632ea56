/**
 * The engine's CPU per second of call against the hand-written server's, decided on a noisy
 * machine: rounds of `media.ts` (one engine run and one baseline run each, their order swapped
 * every round so that a machine's drift hits both alike), each engine run over the baseline run
 * of its round; the median of those ratios with its 95% bootstrap interval (Paired.ts). Single
 * runs on the 2-core machines of this project vary by ±20%, more than most changes to the
 * per-frame path: compare a change by this ratio before and after it, never one run against one.
 * Arguments after `--` go to the engine's runs only (a variant: `-- --agent drain`).
 *
 * Each run is measured after media.ts's warm-up (20 s, longer than a call: V8 compiles the hot
 * paths, the engine's far more than the baseline's, and the code of a call's end has run); what
 * the warm-up cost is printed after, paired the same way.
 *
 *     node test/bench/media-paired.ts [calls=100] [rounds=7] [--seconds 10] [-- engine args…]
 */
import { alternated, cappedNote, mediaRun, pairedArgs } from "./MediaRun.ts"
import type { MediaRun } from "./MediaRun.ts"
import { median, pairedRatio, showInterval } from "./Paired.ts"

const { calls, extra: engineArgs, rounds, seconds } = pairedArgs(process.argv.slice(2), { calls: 100, rounds: 7 })

const [engine, baseline] = alternated(
  rounds,
  () => mediaRun(calls, seconds, "ours", 1, engineArgs),
  () => mediaRun(calls, seconds, "raw"),
  (round, engine, baseline) =>
    console.log(
      `round ${round + 1}/${rounds}: engine ${engine.cpuMsPerCallSecond.toFixed(2)} ms, hand-written ${
        baseline.cpuMsPerCallSecond.toFixed(2)
      } ms`
    )
)
const cpu = (side: ReadonlyArray<MediaRun>) => side.map((run) => run.cpuMsPerCallSecond)
const warmupCpu = (side: ReadonlyArray<MediaRun>) => side.map((run) => run.warmupCpuMsPerCallSecond)
const p99 = (side: ReadonlyArray<MediaRun>) => median(side.map((run) => run.p99)).toFixed(1)
console.log(
  `${calls} calls, ${seconds} s, ${rounds} rounds${engineArgs.length > 0 ? `, engine ${engineArgs.join(" ")}` : ""}: ` +
    `CPU per second of call, engine ${median(cpu(engine)).toFixed(2)} ms (p99 frame lag ${p99(engine)} ms), ` +
    `hand-written ${median(cpu(baseline)).toFixed(2)} ms (${p99(baseline)} ms); ` +
    `engine / hand-written, paired by round: ${showInterval(pairedRatio(cpu(engine), cpu(baseline)), 2)}`
)
const capped = cappedNote([["engine", engine], ["hand-written", baseline]])
if (capped !== "") console.log(`The ratio above is not the engine's cost: ${capped}.`)
console.log(
  `In the warm-up before: engine ${median(warmupCpu(engine)).toFixed(2)} ms, hand-written ${
    median(warmupCpu(baseline)).toFixed(2)
  } ms; paired ${showInterval(pairedRatio(warmupCpu(engine), warmupCpu(baseline)), 2)}`
)
