/**
 * The README's walk-through, run as written: the shell blocks of README.md and then of
 * docs/GETTING_STARTED.md, top to bottom in one bash process (as in one terminal), against a
 * real `voice-agent serve` on the simulated carrier, so that the commands a newcomer copies keep
 * working and keep printing what the pages show; and, beside it, docs/ADMIN.md's against a daemon
 * with an admin token.
 *
 * What the test does in the reader's place, each block marked so in the page with
 * `<!-- not run by test/daemon/readme.test.ts: <why> -->` on the line before it:
 * - `npm install` and `npm start`: the test starts each daemon itself (`node daemon/src/voice-agent.js
 *   serve`) on a free port and a temporary data directory, instead of port 8080 and
 *   `./.voice-agent`; `http://127.0.0.1:8080` in the commands is replaced by the daemon's address.
 * - `KEY=va_…`: the test sets KEY to the key its daemon printed on its first start.
 * - `export VOICE_AGENT_ADMIN_TOKEN=…`: the test sets a token of its own, for the daemon and the
 *   shell.
 * - `npm test`: the suite this test is part of.
 * Every other ```sh block runs, under `set -euo pipefail` (a failing command or an unset variable
 * stops the run), in a temporary working directory. A full-line comment after a command is that
 * command's output as the page shows it: each such run of comment lines is compared with what the
 * commands since the previous one printed, `…` matching any text within a line.
 *
 * It also checks that every `voice-agent <command>` the pages name exists in the command line.
 * It needs bash, curl, jq and sox (`.ci/run` installs them).
 *
 * Time: the calls of the walk-through run in real time (about 12 s for the campaign's, 20 s for
 * the agent's), so the test takes 40 s or more; under the load of CI's parallel files it took up
 * to 2 minutes, hence its 5-minute bound.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { Command } from "effect/cli"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Cli from "voice-agent/Cli"
import * as Daemon from "../support/Daemon.ts"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

const skipMarker = /^<!-- not run by test\/daemon\/readme\.test\.ts: (.+) -->$/

/** Commands, then the output the page shows for them (possibly none). */
interface Segment {
  readonly commands: ReadonlyArray<string>
  readonly expected: ReadonlyArray<string>
}

interface Block {
  /** `file:line` of the opening fence. */
  readonly at: string
  readonly skip: string | undefined
  readonly segments: ReadonlyArray<Segment>
}

const segmentsOf = (lines: ReadonlyArray<string>): Array<Segment> => {
  const segments: Array<{ commands: Array<string>; expected: Array<string> }> = []
  for (const line of lines) {
    const last = segments.at(-1)
    if (/^#( |$)/.test(line)) {
      if (last === undefined) throw new Error(`an output line before any command: ${line}`)
      last.expected.push(line.slice(2))
    } else if (last === undefined || last.expected.length > 0) {
      segments.push({ commands: [line], expected: [] })
    } else {
      last.commands.push(line)
    }
  }
  return segments
}

/** The ```sh blocks of a page. */
const shellBlocks = (file: string): Array<Block> => {
  const lines = fs.readFileSync(path.join(repoRoot, file), "utf8").split("\n")
  const blocks: Array<Block> = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```sh") continue
    const end = lines.indexOf("```", i + 1)
    if (end < 0) throw new Error(`${file}:${i + 1}: the block is not closed`)
    const skip = skipMarker.exec(lines[i - 1] ?? "")?.[1]
    blocks.push({ at: `${file}:${i + 1}`, skip, segments: segmentsOf(lines.slice(i + 1, end)) })
    i = end
  }
  return blocks
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Whether `actual` (a command's output, its last newline dropped) is what the page shows. */
const matches = (expected: ReadonlyArray<string>, actual: string): boolean =>
  new RegExp(`^${expected.map((line) => line.split("…").map(escapeRegExp).join("[^\\n]*")).join("\n")}$`).test(actual)

/** The bash script of the runnable blocks: each segment's output goes to `$OUT/<n>`. */
const script = (blocks: ReadonlyArray<Block>, address: string) => {
  const parts = ["set -euo pipefail"]
  let n = 0
  for (const block of blocks) {
    if (block.skip !== undefined) continue
    for (const segment of block.segments) {
      const commands = segment.commands.join("\n").replaceAll("http://127.0.0.1:8080", address)
      parts.push(`echo '${block.at}' > "$PROGRESS"`, `{\n${commands}\n} > "$OUT/${n++}"`)
    }
  }
  return parts.join("\n")
}

const bash = (source: string, cwd: string, env: Record<string, string>) =>
  Effect.callback<{ readonly code: number | null; readonly stderr: string }>((resume) => {
    const child = spawn("bash", ["-c", source], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.once("close", (code) => resume(Effect.succeed({ code, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const missingTools = ["bash", "curl", "jq", "sox"].filter((tool) =>
  spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0
)

/** A walk-through: its pages, and what the test does in the reader's place before them. */
interface Walkthrough {
  readonly pages: ReadonlyArray<string>
  /** The pages of the blocks the test does in the reader's place, one entry per block. */
  readonly skipped: ReadonlyArray<string>
  /** The daemon's environment. */
  readonly daemonEnv: Record<string, string>
  /** The shell's variables, given the daemon's demo key (when it printed one). */
  readonly shellEnv: (key: Option.Option<string>) => Record<string, string>
}

const adminToken = "readme-admin-token"

const walkthroughs: ReadonlyArray<Walkthrough> = [{
  pages: ["README.md", "docs/GETTING_STARTED.md"],
  skipped: ["README.md", "README.md", "README.md"],
  daemonEnv: {},
  shellEnv: (key) => ({ KEY: Option.getOrThrow(key) })
}, {
  pages: ["docs/ADMIN.md"],
  skipped: ["docs/ADMIN.md"],
  daemonEnv: { VOICE_AGENT_ADMIN_TOKEN: adminToken },
  shellEnv: () => ({ VOICE_AGENT_ADMIN_TOKEN: adminToken })
}]

/** Runs a walk-through against a daemon of its own; answers what differed from the pages. */
const walk = (walkthrough: Walkthrough) =>
  Effect.gen(function*() {
    const blocks = walkthrough.pages.flatMap(shellBlocks)
    assert.deepStrictEqual(
      blocks.filter((block) => block.skip !== undefined).map((block) => block.at.split(":")[0]!),
      [...walkthrough.skipped],
      "the blocks not run"
    )
    const work = yield* Daemon.tempDir
    const outputs = path.join(work, "outputs")
    const cwd = path.join(work, "cwd")
    fs.mkdirSync(outputs)
    fs.mkdirSync(cwd)
    const daemon = yield* Daemon.serve(["--port", "0", "--data-dir", path.join(work, "data")], walkthrough.daemonEnv)

    const progress = path.join(work, "progress")
    const run = yield* bash(script(blocks, daemon.url), cwd, {
      ...walkthrough.shellEnv(daemon.apiKey),
      OUT: outputs,
      PROGRESS: progress
    })
    const at = fs.existsSync(progress) ? fs.readFileSync(progress, "utf8").trim() : "the start"
    assert.strictEqual(run.code, 0, `the block at ${at} failed:\n${run.stderr}`)

    const mismatches: Array<string> = []
    let n = 0
    for (const block of blocks) {
      if (block.skip !== undefined) continue
      for (const segment of block.segments) {
        const actual = fs.readFileSync(path.join(outputs, String(n++)), "utf8").replace(/\n$/, "")
        if (segment.expected.length > 0 && !matches(segment.expected, actual)) {
          mismatches.push(
            `${block.at}, after\n  ${segment.commands.join("\n  ")}\nthe page shows\n  ${
              segment.expected.join("\n  ")
            }\nthe commands printed\n  ${actual.split("\n").join("\n  ")}`
          )
        }
      }
    }
    assert.strictEqual(yield* daemon.stop(), 0)
    return mismatches
  })

describe("the README's walk-through", () => {
  it.live("runs as written and prints what the pages show", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(missingTools, [], `missing tools (Debian: apt-get install ${missingTools.join(" ")})`)
      const mismatches = (yield* Effect.all(walkthroughs.map(walk), { concurrency: "unbounded" })).flat()
      assert.deepStrictEqual(mismatches, [], mismatches.join("\n\n"))
    }), { timeout: 300_000 })

  it("names only commands that exist", () => {
    const pages = [
      "README.md",
      ...fs.readdirSync(path.join(repoRoot, "docs")).filter((name) => name.endsWith(".md")).map((name) =>
        `docs/${name}`
      ),
      "daemon/README.md"
    ]
    const subcommands = (command: Command.Command.Any) =>
      new Map(command.subcommands.flatMap((group) => group.commands).map((sub) => [sub.name, sub] as const))
    const unknown: Array<string> = []
    for (const page of pages) {
      const text = fs.readFileSync(path.join(repoRoot, page), "utf8")
      for (const match of text.matchAll(/(?:npx |`)voice-agent((?: [a-z][a-z-]*)+)/g)) {
        let command: Command.Command.Any = Cli.root
        for (const word of match[1]!.trim().split(" ")) {
          const children = subcommands(command)
          if (children.size === 0) break
          const child = children.get(word)
          if (child === undefined) {
            unknown.push(`${page}: voice-agent${match[1]}`)
            break
          }
          command = child
        }
      }
    }
    assert.deepStrictEqual(unknown, [])
  })
})
