/**
 * `voice-agent contacts upload CODE FILE --accept-terms [--allow-duplicates]` (docs/CLI.md).
 *
 * The file is read and checked first (core's ContactFile, the same module the web console
 * uses, with the API's own number and duplicate rules): any refused row is named by its number
 * and nothing is sent (exit 1). Then the contacts go out in batches of 10,000, one request
 * each, all-or-nothing on the server. A batch the server refuses stops the upload (exit 1):
 * its refused rows are named, and so are the batches and contacts created before it, so a
 * file is never left half uploaded without saying which part.
 *
 * @since 0.1.0
 */
import * as ContactFile from "@voice-agent/core/ContactFile"
import { UploadRejected } from "@voice-agent/http/api/ContactsApi"
import { Console, Effect, FileSystem, Result, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { HttpClientError } from "effect/http"
import * as ApiClient from "./ApiClient.ts"
import * as Failures from "./Failures.ts"
import * as UploadProgress from "./UploadProgress.ts"

/** Rows listed one by one before the rest are only counted. */
const listedRows = 100

const grouped = (n: number) => n.toLocaleString("en-US")

const plural = (n: number, one: string, many: string) => `${grouped(n)} ${n === 1 ? one : many}`

const rowLine = (row: ContactFile.RefusedRow) => {
  const repeats = row.first_row === undefined ? "" : ` (repeats row ${row.first_row})`
  // A number the API could not read is quoted as the file holds it; the others are E.164.
  const number = row.reason === "invalid_phone_number" ? JSON.stringify(row.phone_number) : row.phone_number
  return `  row ${row.row}: ${number} ${row.reason}${repeats}`
}

/** Up to {@link listedRows} lines, then how many more, then the count per reason. */
const rowLines = (rows: ReadonlyArray<ContactFile.RefusedRow>): Array<string> => {
  const lines = rows.slice(0, listedRows).map(rowLine)
  if (rows.length > listedRows) lines.push(`  ... and ${plural(rows.length - listedRows, "more row", "more rows")}`)
  const reasons = new Map<string, number>()
  for (const row of rows) reasons.set(row.reason, (reasons.get(row.reason) ?? 0) + 1)
  lines.push(`  by reason: ${[...reasons].map(([reason, n]) => `${reason} ${grouped(n)}`).join(", ")}`)
  return lines
}

/** Reads `path` piece by piece into a ContactFile reader. */
const readFile = (path: string, kind: ContactFile.ContactFileKind, allowDuplicates: boolean) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const reader = ContactFile.reader(kind, { allowDuplicates })
    const decoder = new TextDecoder("utf-8", { fatal: true })
    const notText = Failures.userError(`${path} is not UTF-8 text`)
    const decode = (bytes?: Uint8Array) =>
      Effect.try({ try: () => decoder.decode(bytes, { stream: bytes !== undefined }), catch: () => notText })
    const fileError = (error: ContactFile.ContactFileError) =>
      Failures.userError(`${path} was refused, nothing was sent: ${error.message}`)
    yield* fs.stream(path).pipe(
      Stream.mapError((error) => Failures.userError(`Cannot read ${path}: ${Failures.fileProblem(error)}`)),
      Stream.runForEach((bytes) =>
        Effect.flatMap(decode(bytes), (text) => Effect.mapError(Effect.fromResult(reader.write(text)), fileError))
      )
    )
    const rest = yield* decode()
    return yield* Effect.mapError(
      Effect.fromResult(Result.flatMap(reader.write(rest), reader.end)),
      fileError
    )
  })

const rowRange = (batch: ContactFile.Batch) => `rows ${batch.rows[0]}-${batch.rows[batch.rows.length - 1]}`

const upload = Command.make(
  "upload",
  {
    ...ApiClient.connectionFlags,
    json: ApiClient.jsonFlag,
    acceptTerms: Flag.Boolean("accept-terms").pipe(
      Flag.withDescription("Accept the terms of service for these contacts (required)"),
      Flag.withDefault(false)
    ),
    allowDuplicates: Flag.Boolean("allow-duplicates").pipe(
      Flag.withDescription("Keep numbers already in the campaign or repeated in the file"),
      Flag.withDefault(false)
    ),
    code: Argument.String("code").pipe(Argument.withDescription("The campaign's code (gcmp-...)")),
    file: Argument.String("file").pipe(
      Argument.withDescription(
        ".csv (a header row with a phone_number column; other columns go into data), " +
          ".json (an array of contacts as the API takes them) or .jsonl (one contact per line)"
      )
    )
  },
  Effect.fn("cli.contacts.upload")(function*(input) {
    if (!input.acceptTerms) {
      return yield* Effect.fail(
        Failures.usageError("contacts upload needs --accept-terms (the API requires accepted terms of service)")
      )
    }
    const kind = ContactFile.kindOfFileName(input.file)
    if (kind === undefined) {
      return yield* Effect.fail(Failures.userError(`${input.file} must end in .csv, .json or .jsonl`))
    }
    const file = yield* readFile(input.file, kind, input.allowDuplicates)
    if (file.refused.length > 0) {
      return yield* Effect.fail(Failures.userError(
        [
          `${input.file}: ${plural(file.refused.length, "row", "rows")} of ${grouped(file.rows)} refused; ` +
          "nothing was sent.",
          ...rowLines(file.refused)
        ].join("\n")
      ))
    }
    const totals = { batches: file.batches.length, contacts: file.accepted }
    yield* Console.error(
      `${input.file}: ${plural(file.accepted, "contact", "contacts")} to upload in ` +
        `${plural(totals.batches, "batch", "batches")} of at most ${grouped(ContactFile.BatchSize)}`
    )
    const progress = yield* UploadProgress.make(totals)
    let created = 0
    const query = input.allowDuplicates
      ? { accepted_terms_of_service: "true", allow_duplicates: true }
      : { accepted_terms_of_service: "true" }
    yield* ApiClient.withClient(
      input,
      ({ client }) =>
        Effect.forEach(file.batches, (batch, index) =>
          client.contacts.upload({
            params: { campaign_code: input.code },
            query,
            payload: { contacts: batch.contacts }
          }).pipe(
            Effect.tap((answer) => {
              created += answer.created
              return progress.update(index + 1, created)
            }),
            Effect.catch((error) =>
              Effect.gen(function*() {
                yield* progress.finish
                const before = index === 0
                  ? "No batch was created before it."
                  : `Created before it: ${plural(index, "batch", "batches")}, ${
                    plural(created, "contact", "contacts")
                  } (rows ${file.batches[0]!.rows[0]}-${file.batches[index - 1]!.rows.at(-1)}).`
                const after = index + 2 === totals.batches
                  ? ` Batch ${totals.batches} was not sent.`
                  : index + 2 < totals.batches
                  ? ` Batches ${index + 2}-${totals.batches} were not sent.`
                  : ""
                const head = `Batch ${index + 1} of ${totals.batches} (${rowRange(batch)})`
                // Only a lost connection leaves the batch's fate open: the server may have created it.
                const unknownFate = HttpClientError.isHttpClientError(error) && error.reason._tag === "TransportError"
                  ? ` It may have been created before the connection broke: see \`voice-agent campaigns show ${input.code}\`.`
                  : ""
                const detail = error instanceof UploadRejected
                  ? [
                    `${head} was refused: ${
                      plural(error.rejected, "contact", "contacts")
                    } rejected, none of the batch created.`,
                    ...rowLines(ContactFile.refusedRows(batch, error.rejected_entries))
                  ]
                  : [`${head} failed: ${yield* ApiClient.describeFailure(input.url, error)}.${unknownFate}`]
                return yield* Effect.fail(Failures.userError([...detail, `${before}${after}`].join("\n")))
              })
            )
          ), { discard: true })
    )
    yield* progress.finish
    if (input.json) return yield* Console.log(JSON.stringify({ created, batches: totals.batches }))
    yield* Console.log(
      `Created ${plural(created, "contact", "contacts")} in ${input.code} ` +
        `(${plural(totals.batches, "batch", "batches")})`
    )
  })
).pipe(Command.withDescription("Upload a contact file to a campaign, checked first, in batches of 10,000"))

/**
 * `contacts` with its subcommands.
 *
 * @category constructors
 */
export const command = Command.make("contacts").pipe(
  Command.withDescription("Contacts of campaigns, through the HTTP API of a running daemon"),
  Command.withSubcommands([upload])
)
