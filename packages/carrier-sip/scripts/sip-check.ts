/**
 * `npm run sip:check`: the SIP conformance kit against your own engine (docs/SIP.md,
 * "Conformance kit"). SIPp plays your trunk and your callers; each check prints what it checked
 * and, when it failed, why. Exit 0 when every check passed, 1 when one failed, 2 on a usage
 * error.
 *
 *   npm run sip:check -- --url http://127.0.0.1:8080 --key va_... --sip 127.0.0.1:5060 \
 *     [--trunk 127.0.0.1:5080] [--owned +12025550100] [--only busy,no-answer] [--wait 60] \
 *     [--transport udp|tcp] [--dir DIR]
 *
 * The engine runs `VOICE_AGENT_CARRIER=sip` with `SIP_TRUNK=sip:<--trunk>` (the kit's SIPp
 * listens there; with `--transport tcp`, `SIP_TRUNK=sip:<--trunk>;transport=tcp`) and, for the digest check, the `SIP_USERNAME` and `SIP_PASSWORD` this script
 * reads from its own environment (or `--username`, `--password`).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import * as Kit from "./kit/Kit.ts"

const usage = `usage: npm run sip:check -- --url URL --key KEY --sip HOST:PORT [--trunk HOST:PORT] [--owned E164]
       [--username NAME --password SECRET] [--only CHECK,...] [--wait SECONDS] [--transport udp|tcp] [--dir DIR]
checks: ${Kit.checks.join(", ")}`

const hostPort = (flag: string, value: string) => {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(value)
  if (match === null || Number(match[2]) < 1 || Number(match[2]) > 65535) {
    throw new Error(`${flag} must be host:port, not ${JSON.stringify(value)}`)
  }
  return { host: match[1]!, port: Number(match[2]) }
}

const main = async (): Promise<number> => {
  let options
  try {
    const { values } = parseArgs({
      options: {
        url: { type: "string", default: process.env["VOICE_AGENT_URL"] ?? "http://127.0.0.1:8080" },
        key: { type: "string", default: process.env["VOICE_AGENT_API_KEY"] },
        sip: { type: "string" },
        trunk: { type: "string", default: "127.0.0.1:5080" },
        owned: { type: "string", default: "+12025550100" },
        username: { type: "string", default: process.env["SIP_USERNAME"] },
        password: { type: "string", default: process.env["SIP_PASSWORD"] },
        only: { type: "string" },
        wait: { type: "string", default: "60" },
        dir: { type: "string" },
        transport: { type: "string", default: "udp" },
        help: { type: "boolean", default: false }
      }
    })
    if (values.help) {
      console.log(usage)
      return 0
    }
    if (values.key === undefined) throw new Error("--key (or VOICE_AGENT_API_KEY) is required")
    if (values.sip === undefined) throw new Error("--sip (the engine's SIP address, host:port) is required")
    const only = values.only?.split(",").map((name) => name.trim()).filter((name) => name !== "")
    const unknown = only?.filter((name) => !Kit.checks.includes(name)) ?? []
    if (unknown.length > 0) throw new Error(`no check named ${unknown.join(", ")}`)
    if (!/^\+\d{8,15}$/.test(values.owned)) throw new Error(`--owned must be an E.164 number, not ${values.owned}`)
    const transport = values.transport.toLowerCase()
    if (transport !== "udp" && transport !== "tcp") {
      throw new Error(`--transport must be udp or tcp, not ${values.transport}`)
    }
    const waitS = Number(values.wait)
    if (!Number.isInteger(waitS) || waitS < 5) throw new Error(`--wait must be 5 seconds or more, not ${values.wait}`)
    options = {
      api: { url: values.url.replace(/\/+$/, ""), key: values.key },
      sip: hostPort("--sip", values.sip),
      trunk: hostPort("--trunk", values.trunk),
      owned: values.owned,
      credentials: values.username !== undefined && values.password !== undefined
        ? { username: values.username, password: values.password }
        : undefined,
      dir: values.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "sip-check-")),
      waitS,
      transport,
      ...(only === undefined ? {} : { only })
    } satisfies Kit.Options
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`)
    return 2
  }
  console.error(
    `sip-check: engine SIP at ${options.sip.host}:${options.sip.port}, API ${options.api.url}, ` +
      `trunk (SIPp) at ${options.trunk.host}:${options.trunk.port}; traces in ${options.dir}`
  )
  const results = await Effect.runPromise(
    Kit.run(options).pipe(
      Effect.catch((error) => Effect.succeed(error.message))
    )
  )
  if (typeof results === "string") {
    console.error(`sip-check: ${results}`)
    return 1
  }
  console.log(Kit.report(results))
  const failed = results.filter((r) => r.failure !== undefined).length
  console.log(failed === 0 ? `${results.length} checks passed` : `${failed} of ${results.length} checks failed`)
  return failed === 0 ? 0 : 1
}

process.exitCode = await main()
