/**
 * The CLI's mirror of the admin API (docs/ADMIN.md), run against the database directly:
 * `org create`, `key create|revoke`, `number add`, `dnc add|remove`. Each opens the storage
 * the same way `serve` does (`DATABASE_URL`, else PGlite under `--data-dir`).
 *
 * An embedded data directory held by a running daemon is refused before anything is opened
 * (store-sql's data-dir lock): the message names the holder's pid and points to the admin API,
 * and the command exits 1. Expected failures (unknown organization or key, a number already
 * owned, a malformed number) are one sentence on standard error and exit 1; results go to
 * standard output, as JSON with `--json`.
 *
 * @since 0.1.0
 */
import { normalize } from "@voice-agent/core/PhoneNumber"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { organizationDefaults, toOrganizationResource } from "@voice-agent/http/api/AdminApi"
import { Console, Effect, Option, Result, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import type { CliError } from "effect/cli"
import { SqlClient } from "effect/sql"
import * as Failures from "./Failures.ts"
import * as Storage from "./Storage.ts"

/**
 * `--data-dir`, shared by every command that opens storage.
 *
 * @category constructors
 */
export const dataDirFlag = Flag.String("data-dir").pipe(
  Flag.withDescription("Embedded database directory (ignored when DATABASE_URL is set); :memory: keeps nothing"),
  Flag.withDefault(Storage.defaultDataDir)
)

const jsonFlag = Flag.Boolean("json").pipe(
  Flag.withDescription("Print the result as JSON"),
  Flag.withDefault(false)
)

const orgFlag = Flag.String("org").pipe(Flag.withDescription("Organization id"))

const phoneNumber = (input: string): Effect.Effect<E164, CliError.UserError> =>
  Result.match(normalize(input), {
    onSuccess: Effect.succeed,
    onFailure: (message) => Effect.fail(Failures.userError(message))
  })

/** Runs `effect` against the selected storage, mapping expected failures for the user. */
const withStorage = <A, E, R>(dataDir: string, effect: Effect.Effect<A, E, R>) =>
  Failures.forUser(Effect.provide(effect, Storage.layer(dataDir)))

const print = (json: boolean, value: unknown, text: string) => Console.log(json ? JSON.stringify(value) : text)

const optionalBoolean = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.optional)

const orgCreate = Command.make(
  "create",
  {
    dataDir: dataDirFlag,
    json: jsonFlag,
    name: Flag.String("name").pipe(Flag.withDescription("Organization name"), Flag.withSchema(Schema.NonEmptyString)),
    outboundDialingEnabled: optionalBoolean("outbound-dialing-enabled", "Allow campaigns and calls (default on)"),
    smsRegistered: optionalBoolean("sms-registered", "SMS brand registration complete (default on)"),
    billingIssue: optionalBoolean("billing-issue", "An unresolved billing issue blocks SMS (default off)"),
    maxConcurrency: Flag.Int("max-concurrency").pipe(
      Flag.withDescription(
        `Organization-wide cap on simultaneous calls (default ${organizationDefaults.maxConcurrency})`
      ),
      Flag.withSchema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
      Flag.optional
    )
  },
  Effect.fn("cli.org.create")(function*(input) {
    const created = yield* withStorage(
      input.dataDir,
      // One transaction: an organization is never left without its first key.
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Effect.gen(function*() {
          const organization = yield* (yield* OrganizationRepository).create({
            name: input.name,
            outboundDialingEnabled: Option.getOrElse(
              input.outboundDialingEnabled,
              () => organizationDefaults.outboundDialingEnabled
            ),
            smsRegistered: Option.getOrElse(input.smsRegistered, () => organizationDefaults.smsRegistered),
            billingIssue: Option.getOrElse(input.billingIssue, () => organizationDefaults.billingIssue),
            maxConcurrency: Option.getOrElse(input.maxConcurrency, () => organizationDefaults.maxConcurrency)
          })
          const key = yield* (yield* ApiKeyRepository).issue(organization.id)
          return { organization, key }
        })))
    )
    const resource = toOrganizationResource(created.organization)
    yield* print(
      input.json,
      { id: resource.id, api_key: created.key.apiKey },
      [
        `Created organization ${JSON.stringify(resource.name)} (id ${resource.id})`,
        `  outbound_dialing_enabled=${resource.outbound_dialing_enabled} sms_registered=${resource.sms_registered} ` +
        `billing_issue=${resource.billing_issue} max_concurrency=${resource.max_concurrency}`,
        `API key (id ${created.key.id}), shown only now: ${created.key.apiKey}`
      ].join("\n")
    )
  })
).pipe(Command.withDescription("Create an organization and its first API key"))

const keyCreate = Command.make(
  "create",
  { dataDir: dataDirFlag, json: jsonFlag, org: orgFlag },
  Effect.fn("cli.key.create")(
    function*(input) {
      const key = yield* withStorage(input.dataDir, Effect.flatMap(ApiKeyRepository, (keys) => keys.issue(input.org)))
      yield* print(
        input.json,
        { id: key.id, api_key: key.apiKey },
        `API key (id ${key.id}), shown only now: ${key.apiKey}`
      )
    }
  )
).pipe(Command.withDescription("Issue an API key for an organization"))

const keyRevoke = Command.make(
  "revoke",
  {
    dataDir: dataDirFlag,
    json: jsonFlag,
    org: orgFlag,
    key: Flag.String("key").pipe(Flag.withDescription("API key id"))
  },
  Effect.fn("cli.key.revoke")(function*(input) {
    yield* withStorage(input.dataDir, Effect.flatMap(ApiKeyRepository, (keys) => keys.revoke(input.org, input.key)))
    yield* print(input.json, { ok: true }, `Revoked API key ${input.key}`)
  })
).pipe(Command.withDescription("Revoke an API key; it answers 401 from then on"))

const numberAdd = Command.make(
  "add",
  {
    dataDir: dataDirFlag,
    json: jsonFlag,
    org: orgFlag,
    phoneNumber: Flag.String("phone-number").pipe(Flag.withDescription("The number, any common formatting")),
    sms: Flag.Boolean("sms").pipe(
      Flag.withDescription("SMS enabled (default on; --no-sms to disable)"),
      Flag.withDefault(true)
    )
  },
  Effect.fn("cli.number.add")(function*(input) {
    const e164 = yield* phoneNumber(input.phoneNumber)
    const added = yield* withStorage(
      input.dataDir,
      Effect.flatMap(
        PhoneNumberRepository,
        (numbers) => numbers.add(input.org, { phoneNumber: e164, smsEnabled: input.sms })
      )
    )
    yield* print(
      input.json,
      { phone_number: added.phoneNumber, sms_enabled: added.smsEnabled },
      `Added ${added.phoneNumber} (sms_enabled=${added.smsEnabled})`
    )
  })
).pipe(Command.withDescription("Give an organization a phone number"))

const dncAdd = Command.make(
  "add",
  {
    dataDir: dataDirFlag,
    json: jsonFlag,
    org: orgFlag,
    numbers: Argument.String("phone-number").pipe(Argument.withDescription("Numbers to add"), Argument.atLeast(1))
  },
  Effect.fn("cli.dnc.add")(function*(input) {
    const numbers = yield* Effect.forEach(input.numbers, phoneNumber)
    const { added } = yield* withStorage(
      input.dataDir,
      Effect.gen(function*() {
        yield* (yield* OrganizationRepository).get(input.org)
        return yield* (yield* DncRepository).add(input.org, numbers)
      })
    )
    yield* print(input.json, { added }, `Added ${added} number(s) to the Do-Not-Call list`)
  })
).pipe(Command.withDescription("Add numbers to an organization's Do-Not-Call list"))

const dncRemove = Command.make(
  "remove",
  {
    dataDir: dataDirFlag,
    json: jsonFlag,
    org: orgFlag,
    number: Argument.String("phone-number").pipe(Argument.withDescription("Number to remove"))
  },
  Effect.fn("cli.dnc.remove")(function*(input) {
    const number = yield* phoneNumber(input.number)
    const deleted = yield* withStorage(
      input.dataDir,
      Effect.gen(function*() {
        yield* (yield* OrganizationRepository).get(input.org)
        return yield* (yield* DncRepository).remove(input.org, number)
      })
    )
    yield* print(input.json, { deleted }, `Removed ${deleted} entry(ies) from the Do-Not-Call list`)
  })
).pipe(Command.withDescription("Remove a number from an organization's Do-Not-Call list"))

/**
 * `org`, `key`, `number` and `dnc` with their subcommands.
 *
 * @category constructors
 */
export const commands = [
  Command.make("org").pipe(Command.withDescription("Organizations"), Command.withSubcommands([orgCreate])),
  Command.make("key").pipe(Command.withDescription("API keys"), Command.withSubcommands([keyCreate, keyRevoke])),
  Command.make("number").pipe(Command.withDescription("Phone numbers"), Command.withSubcommands([numberAdd])),
  Command.make("dnc").pipe(Command.withDescription("Do-Not-Call list"), Command.withSubcommands([dncAdd, dncRemove]))
] as const
