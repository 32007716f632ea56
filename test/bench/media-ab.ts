/**
 * The engine at this checkout against the engine at another, decided on a noisy machine as
 * `media-paired.ts` decides against the hand-written server: rounds of `media.ts` (one run of
 * each checkout, their order swapped every round), each run here over the other checkout's run
 * of its round; the median of those ratios with its 95% bootstrap interval, for the CPU per
 * second of call and for the p99 frame lag. A change to the per-call or per-frame path is
 * judged by this, not by one run before and one after (single runs vary by ±20% here).
 *
 * The other checkout is a git worktree of the commit to compare against, with this checkout's
 * installed packages linked in (the workspace links are relative, so they point into it):
 *
 *     git worktree add /tmp/base <commit> && cp -al node_modules /tmp/base/
 *     node test/bench/media-ab.ts /tmp/base [calls=200] [rounds=5] [--seconds 10] [-- media.ts args…]
 *     git worktree remove --force /tmp/base
 *
 * Arguments after `--` go to both sides' runs.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { alternated, cappedNote, mediaRun, pairedArgs } from "./MediaRun.ts"
import type { MediaRun } from "./MediaRun.ts"
import { median, pairedRatio, showInterval } from "./Paired.ts"

const { calls, extra, positional, rounds, seconds } = pairedArgs(process.argv.slice(2), { calls: 200, rounds: 5 })
const other = positional[0]
if (other === undefined || !fs.existsSync(path.join(other, "test/bench/media.ts"))) {
  console.error("usage: node test/bench/media-ab.ts <other checkout> [calls=200] [rounds=5] [--seconds 10]")
  process.exit(2)
}

const shown = (run: MediaRun) => `${run.cpuMsPerCallSecond.toFixed(2)} ms (p99 ${run.p99.toFixed(1)} ms)`
const [here, there] = alternated(
  rounds,
  () => mediaRun(calls, seconds, "ours", 1, extra),
  () => mediaRun(calls, seconds, "ours", 1, extra, other),
  (round, here, there) => console.log(`round ${round + 1}/${rounds}: here ${shown(here)}, ${other} ${shown(there)}`)
)
const cpu = (side: ReadonlyArray<MediaRun>) => side.map((run) => run.cpuMsPerCallSecond)
const p99 = (side: ReadonlyArray<MediaRun>) => side.map((run) => run.p99)
console.log(
  `${calls} calls, ${seconds} s, ${rounds} rounds: CPU per second of call, here ${median(cpu(here)).toFixed(2)} ms, ` +
    `${other} ${median(cpu(there)).toFixed(2)} ms; here / there, paired by round: ` +
    `${showInterval(pairedRatio(cpu(here), cpu(there)), 2)}`
)
console.log(
  `p99 frame lag, here ${median(p99(here)).toFixed(1)} ms, ${other} ${median(p99(there)).toFixed(1)} ms; ` +
    `here / there, paired by round: ${showInterval(pairedRatio(p99(here), p99(there)), 2)}`
)
const capped = cappedNote([["here", here], [other, there]])
if (capped !== "") console.log(`The CPU ratio above is not the engines' cost: ${capped}.`)
