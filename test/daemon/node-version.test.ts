/**
 * The `voice-agent` executable npm links (`daemon/src/voice-agent.js`) on a Node that is too old:
 * one line on standard error saying what is needed and how to get it, exit 1, before any of the
 * TypeScript is loaded (which Node 20 cannot run: ERR_UNKNOWN_FILE_EXTENSION ".ts"). An old Node
 * is played by this Node with `process.versions.node` replaced before the script runs, and,
 * where the machine has one (Debian's package, as on CI), by the system's own older Node.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const executable = path.join(repoRoot, "daemon/src/voice-agent.js")
const packageVersion: string = JSON.parse(fs.readFileSync(path.join(repoRoot, "daemon/package.json"), "utf8")).version

const run = (node: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(node, [...args, executable, "--version"], { cwd: repoRoot, encoding: "utf8" })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** This Node, reporting `version` to the script (a module loaded before it replaces the field). */
const posingAs = (version: string) =>
  run(process.execPath, [
    "--import",
    `data:text/javascript,Object.defineProperty(process.versions,"node",{value:${JSON.stringify(version)}})`
  ])

const refusal =
  /^voice-agent needs Node\.js 22\.19 or later \(Node 24 LTS recommended\), and .+ is Node (\S+): install Node 24 from https:\/\/nodejs\.org \(or `nvm install 24`\), then run `npm install` again\.\n$/

const systemNode = "/usr/bin/node"
const systemNodeVersion = fs.existsSync(systemNode)
  ? spawnSync(systemNode, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim()
  : undefined
const [systemMajor = 0, systemMinor = 0] = (systemNodeVersion ?? "0.0").split(".").map(Number)
const systemNodeIsOld = systemNodeVersion !== undefined &&
  (systemMajor < 22 || (systemMajor === 22 && systemMinor < 19))

describe("voice-agent on an old Node", () => {
  it("runs the command on this Node", () => {
    const result = run(process.execPath, [])
    assert.strictEqual(result.status, 0, result.stderr)
    assert.include(result.stdout, packageVersion)
  })

  for (const version of ["20.20.2", "22.18.0", "18.19.1"]) {
    it(`on Node ${version}: one line saying what to install, exit 1, nothing loaded`, () => {
      const result = posingAs(version)
      assert.strictEqual(result.status, 1)
      assert.strictEqual(result.stdout, "")
      assert.match(result.stderr, refusal)
      assert.strictEqual(refusal.exec(result.stderr)?.[1], version)
    })
  }

  it("on Node 22.19.0, the oldest it takes: runs", () => {
    const result = posingAs("22.19.0")
    assert.strictEqual(result.status, 0, result.stderr)
    assert.include(result.stdout, packageVersion)
  })

  it.skipIf(!systemNodeIsOld)(`on the system's Node (${systemNode} ${systemNodeVersion ?? "absent"})`, () => {
    const result = run(systemNode, [])
    assert.strictEqual(result.status, 1)
    assert.match(result.stderr, refusal)
    assert.notInclude(result.stderr, "ERR_UNKNOWN_FILE_EXTENSION")
  })
})
