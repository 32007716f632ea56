#!/usr/bin/env node
/**
 * The `voice-agent` command's entry. Node >= 22.19 runs this TypeScript directly (type
 * stripping); the executable npm links, `voice-agent.js`, checks the version first and then
 * loads this module.
 *
 * Exit codes: 0 on success and after a graceful shutdown (SIGTERM/SIGINT), 1 on failure
 * (including a data directory held by a running daemon and a refusal of the API), 2 on a usage
 * error (a missing argument or flag, an unknown command).
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Exit, Runtime } from "effect"
import * as Cli from "./Cli.ts"
import * as Failures from "./Failures.ts"

Cli.run(process.argv.slice(2)).pipe(
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain({
    // A signal interrupts the main fiber; once everything is released that is a clean exit.
    teardown: (exit, onExit) => {
      if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) return onExit(0)
      if (Exit.isFailure(exit) && Failures.isUsageFailure(exit.cause)) return onExit(2)
      return Runtime.defaultTeardown(exit, onExit)
    }
  })
)
