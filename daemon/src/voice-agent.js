#!/usr/bin/env node
// The `voice-agent` executable that npm links. Plain JavaScript that any Node parses: it checks
// the version before loading the TypeScript entry (bin.ts), which an older Node cannot run (Node
// 20 fails with ERR_UNKNOWN_FILE_EXTENSION ".ts"), and says in one line what is needed instead.
const required = [22, 19]
const [major, minor] = process.versions.node.split(".").map(Number)

if (major < required[0] || (major === required[0] && minor < required[1])) {
  process.stderr.write(
    `voice-agent needs Node.js ${required.join(".")} or later (Node 24 LTS recommended), and ${process.execPath} ` +
      `is Node ${process.versions.node}: install Node 24 from https://nodejs.org (or \`nvm install 24\`), ` +
      "then run `npm install` again.\n"
  )
  process.exitCode = 1
} else {
  // V8's code for the modules is kept between runs (in NODE_COMPILE_CACHE, else a directory of
  // the system's temporary one; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a command starts in
  // about half the CPU time (0.45 s against 0.8 s for `--help`).
  process.getBuiltinModule?.("node:module")?.enableCompileCache?.()
  // Its failures are bin.ts's to report (Effect's runMain); a load error still exits 1.
  void import("./bin.ts")
}
