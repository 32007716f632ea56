// One concept over 500 lines: a contact file read, checked and batched, in its three formats, one pass.
/**
 * Contact files as operators keep them (`.csv`, `.json`, `.jsonl`), read and checked before
 * anything is sent, then split into the API's upload batches. The terminal (`voice-agent
 * contacts upload`) and the web console both use this module, so a file is judged the same way
 * in both, and by the API's own rules (ContactUpload: numbers normalized with default region US,
 * `data` at most 16 KB, a number once per file unless duplicates are allowed).
 *
 * Owns: the three file formats (CSV per RFC 4180), row numbering, refused rows with the API's
 * reason names, batches of {@link BatchSize} that remember their rows, and mapping a batch the
 * server refused back to rows. Does not own reading files or sending requests: it takes text
 * and answers plain data, so a browser can run it as well as Node.
 *
 * Incremental: {@link reader} takes the text piece by piece (a browser feeds it the chunks of
 * `File.stream()` and yields between them; the terminal feeds it a file stream), keeping only
 * the incomplete last row between pieces. {@link check} is the one-call form.
 *
 * Decisions:
 * - Rows are numbered from 1, the first data row (CSV: the record after the header; JSON: the
 *   first array element; JSON Lines: the first line). CSV counts records, so a quoted field with
 *   a line break is still one row. A blank line (CSV: a record whose cells are all empty, as
 *   spreadsheets export trailing rows; JSON Lines: an empty line) holds no contact and is
 *   skipped, but keeps its number, so row numbers match a spreadsheet's rows (minus the header)
 *   and a JSON Lines file's line numbers.
 * - CSV: a UTF-8 byte-order mark is dropped; records end with CRLF, LF or a lone CR; header
 *   names are trimmed and must be unique; `phone_number` is required; every other column with
 *   a non-empty cell goes into `data` as a string, unchanged. A record with fewer cells than
 *   the header has empty cells; one with more is refused unless the extra cells are empty (a
 *   trailing comma), and so is a value under a column with no name: nothing is dropped
 *   silently. A quote inside an unquoted field is kept as a character (lenient, as
 *   spreadsheets write them); text after a closing quote, or a quote left open, is an error.
 * - JSON and JSON Lines hold contacts exactly as the upload body does (`phone_number`, optional
 *   `data` and `outreach_modalities`, `null` meaning absent); anything else in an element is an
 *   error naming its row, as the API would answer 422.
 * - A malformed file stops at its first malformed row ({@link ContactFileError}); a well-formed
 *   file reports every refused row. A row longer than {@link MaxRowLength} characters is an
 *   error (its `data` could not fit 16 KB anyway), which bounds what the reader holds.
 * - Accepted contacts are sent with the number in E.164, `data` and `outreach_modalities` only
 *   when not empty.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import type { ContactUploadEntry, NewContact } from "./Contact.ts"
import { MaxContactsPerUpload } from "./Contact.ts"
import { makeEntryCheck } from "./ContactUpload.ts"
import type { RejectedEntry, RejectionReason } from "./Errors.ts"

/**
 * @category models
 */
export type ContactFileKind = "csv" | "json" | "jsonl"

/**
 * Contacts per upload request: the API's limit, 10,000.
 *
 * @category constructors
 */
export const BatchSize: number = MaxContactsPerUpload

/**
 * The longest row the reader accepts, in characters (1 MiB).
 *
 * @category constructors
 */
export const MaxRowLength = 1024 * 1024

/**
 * The kind named by a file name's extension (any letter case), or `undefined`.
 *
 * @category decoding
 */
export const kindOfFileName = (fileName: string): ContactFileKind | undefined => {
  const extension = /\.([a-z]+)$/i.exec(fileName)?.[1]?.toLowerCase()
  return extension === "csv" || extension === "json" || extension === "jsonl" ? extension : undefined
}

/**
 * @category models
 */
export interface ContactFileOptions {
  /** Skip both duplicate checks, as the API's `allow_duplicates` does. */
  readonly allowDuplicates: boolean
}

/**
 * A row that the API would refuse, with its reason as the API names it. `phone_number` is the
 * text of the file for `invalid_phone_number`, the E.164 form otherwise; `first_row` names the
 * row a `duplicate` repeats when that row is in the file.
 *
 * @category models
 */
export interface RefusedRow {
  readonly row: number
  readonly phone_number: string
  readonly reason: RejectionReason
  readonly first_row?: number
}

/**
 * One upload request's contacts and the file row of each (same index).
 *
 * @category models
 */
export interface Batch {
  readonly contacts: ReadonlyArray<ContactUploadEntry>
  readonly rows: ReadonlyArray<number>
}

/**
 * A file read to its end.
 *
 * @category models
 */
export interface CheckedFile {
  /** Rows read, blank ones included: the last row's number. */
  readonly rows: number
  /** Contacts that passed, in file order: the sum of the batches' sizes. */
  readonly accepted: number
  /** Refused rows in file order; nothing should be sent unless this is empty. */
  readonly refused: ReadonlyArray<RefusedRow>
  /** The accepted contacts in batches of {@link BatchSize} (the last one smaller). */
  readonly batches: ReadonlyArray<Batch>
}

/**
 * A file that cannot be read as contacts: `row` names the malformed row, or is `null` for the
 * file as a whole (no `phone_number` column, not an array).
 *
 * @category errors
 */
export class ContactFileError extends Schema.TaggedError<ContactFileError>()("ContactFileError", {
  row: Schema.NullOr(Schema.Int),
  message: Schema.String
}) {}

/**
 * Reads a file piece by piece. After a failure the reader is spent: further calls answer the
 * same failure.
 *
 * @category models
 */
export interface ContactFileReader {
  /** Reads the next piece of the text (pieces may split a row anywhere). */
  readonly write: (text: string) => Result.Result<void, ContactFileError>
  /** Reads what is left and answers the whole file. */
  readonly end: () => Result.Result<CheckedFile, ContactFileError>
  /** Rows read so far (for progress). */
  readonly rows: () => number
}

/**
 * A reader for one file of `kind`.
 *
 * @category constructors
 */
export const reader = (kind: ContactFileKind, options: ContactFileOptions): ContactFileReader => {
  const collector = makeCollector(options)
  const format = kind === "csv"
    ? csvFormat(collector)
    : kind === "jsonl"
    ? jsonLinesFormat(collector)
    : jsonFormat(collector)
  let failure: ContactFileError | undefined
  let ended = false
  const guard = <A>(step: () => A): Result.Result<A, ContactFileError> => {
    if (failure !== undefined) return Result.fail(failure)
    try {
      return Result.succeed(step())
    } catch (error) {
      if (!(error instanceof ContactFileError)) throw error
      failure = error
      return Result.fail(error)
    }
  }
  return {
    write: (text) =>
      guard(() => {
        if (ended) throw new ContactFileError({ row: null, message: "The file was already read to its end" })
        format.write(stripBom(text, collector.rows === 0 && !format.started()))
      }),
    end: () =>
      guard(() => {
        if (!ended) format.end()
        ended = true
        return collector.result()
      }),
    rows: () => collector.rows
  }
}

/**
 * Reads and checks a whole file's text in one call.
 *
 * @category decoding
 */
export const check = (
  text: string,
  kind: ContactFileKind,
  options: ContactFileOptions
): Result.Result<CheckedFile, ContactFileError> => {
  const read = reader(kind, options)
  return Result.flatMap(read.write(text), read.end)
}

/**
 * The rows of `batch` that a refused upload names (the 400 body's `rejected_entries`), in row
 * order, each with the reason given for its number. Every row holding a named number is
 * refused (the API names a number once even when the batch holds copies of it). The API names
 * only numbers it was sent, and the batch sends E.164 numbers that it reads back unchanged.
 *
 * @category decoding
 */
export const refusedRows = (batch: Batch, rejected: ReadonlyArray<RejectedEntry>): ReadonlyArray<RefusedRow> => {
  const reasons = new Map<string, RejectionReason>()
  for (const entry of rejected) if (!reasons.has(entry.phone_number)) reasons.set(entry.phone_number, entry.reason)
  const refused: Array<RefusedRow> = []
  batch.contacts.forEach((contact, index) => {
    const reason = reasons.get(contact.phone_number)
    if (reason !== undefined) refused.push({ row: batch.rows[index]!, phone_number: contact.phone_number, reason })
  })
  return refused
}

const stripBom = (text: string, atStart: boolean): string =>
  atStart && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text

// ---------------------------------------------------------------------------------------------
// Collecting rows into batches

interface Collector {
  /** Rows numbered so far. */
  readonly rows: number
  /** Numbers the next row (blank rows too) and answers its number. */
  readonly next: () => number
  readonly add: (row: number, entry: ContactUploadEntry) => void
  readonly result: () => CheckedFile
}

const toWire = (contact: NewContact): ContactUploadEntry => {
  const entry: { phone_number: string; data?: NewContact["data"]; outreach_modalities?: ReadonlyArray<string> } = {
    phone_number: contact.phoneNumber
  }
  for (const _ in contact.data) {
    entry.data = contact.data
    break
  }
  if (contact.outreachModalities.length > 0) entry.outreach_modalities = contact.outreachModalities
  return entry
}

const makeCollector = (options: ContactFileOptions): Collector => {
  const checkEntry = makeEntryCheck(options)
  const refused: Array<RefusedRow> = []
  const batches: Array<Batch> = []
  let contacts: Array<ContactUploadEntry> = []
  let rows: Array<number> = []
  let accepted = 0
  let rowCount = 0
  const allBatches = () => (contacts.length > 0 ? [...batches, { contacts, rows }] : batches)
  return {
    get rows() {
      return rowCount
    },
    next: () => ++rowCount,
    add: (row, entry) => {
      const checked = checkEntry(entry)
      if (Result.isFailure(checked)) {
        refused.push({ row, phone_number: checked.failure.phone_number, reason: checked.failure.reason })
        return
      }
      contacts.push(toWire(checked.success))
      rows.push(row)
      accepted++
      if (contacts.length === BatchSize) {
        batches.push({ contacts, rows })
        contacts = []
        rows = []
      }
    },
    result: () => {
      const all = allBatches()
      return { rows: rowCount, accepted, refused: withFirstRows(refused, all), batches: all }
    }
  }
}

/**
 * Names the row each duplicate repeats: the accepted row with its number. Looked up once at the
 * end, for the duplicated numbers only, rather than remembered for every row.
 */
const withFirstRows = (refused: ReadonlyArray<RefusedRow>, batches: ReadonlyArray<Batch>): Array<RefusedRow> => {
  const firstRows = new Map<string, number>()
  for (const row of refused) if (row.reason === "duplicate") firstRows.set(row.phone_number, 0)
  if (firstRows.size === 0) return [...refused]
  for (const batch of batches) {
    batch.contacts.forEach((contact, index) => {
      if (firstRows.get(contact.phone_number) === 0) firstRows.set(contact.phone_number, batch.rows[index]!)
    })
  }
  return refused.map((row) => {
    const first = row.reason === "duplicate" ? firstRows.get(row.phone_number) : undefined
    return first === undefined || first === 0 ? row : { ...row, first_row: first }
  })
}

interface Format {
  readonly write: (text: string) => void
  readonly end: () => void
  /** True once any text was taken (a byte-order mark is dropped only from the first piece). */
  readonly started: () => boolean
}

const fail = (row: number | null, message: string): never => {
  throw new ContactFileError({ row, message })
}

const tooLong = (row: number): never =>
  fail(row, `Row ${row} is longer than ${MaxRowLength} characters; a contact's data is limited to 16 KB`)

// ---------------------------------------------------------------------------------------------
// JSON and JSON Lines

const describeValue = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : typeof value

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** One element of a JSON or JSON Lines file, checked as the upload body's schema would. */
const toEntry = (row: number, value: unknown): ContactUploadEntry => {
  if (!isRecord(value)) {
    return fail(row, `Row ${row} is ${describeValue(value)}, not a contact such as {"phone_number": "+12025550123"}`)
  }
  const { data, outreach_modalities, phone_number } = value
  if (typeof phone_number !== "string") {
    return fail(row, `Row ${row}: phone_number must be a string, not ${describeValue(phone_number)}`)
  }
  if (data !== undefined && data !== null && !isRecord(data)) {
    return fail(row, `Row ${row}: data must be an object, not ${describeValue(data)}`)
  }
  if (
    outreach_modalities !== undefined && outreach_modalities !== null &&
    !(Array.isArray(outreach_modalities) && outreach_modalities.every((m) => typeof m === "string"))
  ) {
    return fail(row, `Row ${row}: outreach_modalities must be an array of strings`)
  }
  return value as ContactUploadEntry
}

const jsonFormat = (collector: Collector): Format => {
  const pieces: Array<string> = []
  return {
    started: () => pieces.length > 0,
    write: (text) => {
      if (text !== "") pieces.push(text)
    },
    end: () => {
      const text = pieces.join("")
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (error) {
        return fail(null, `The file is not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
      }
      if (!Array.isArray(parsed)) {
        return fail(null, `A .json file holds an array of contacts, not ${describeValue(parsed)}`)
      }
      for (const element of parsed) {
        const row = collector.next()
        collector.add(row, toEntry(row, element))
      }
    }
  }
}

const jsonLinesFormat = (collector: Collector): Format => {
  let pending = ""
  let started = false
  const line = (text: string) => {
    const row = collector.next()
    if (text.length > MaxRowLength) tooLong(row)
    if (text.trim() === "") return
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return fail(row, `Row ${row} is not valid JSON`)
    }
    collector.add(row, toEntry(row, parsed))
  }
  return {
    started: () => started,
    write: (text) => {
      started ||= text.length > 0
      let start = 0
      let newline = text.indexOf("\n")
      if (newline >= 0) {
        line(pending + text.slice(0, newline))
        pending = ""
        start = newline + 1
        while ((newline = text.indexOf("\n", start)) >= 0) {
          line(text.slice(start, newline))
          start = newline + 1
        }
      }
      pending += text.slice(start)
      if (pending.length > MaxRowLength) tooLong(collector.rows + 1)
    },
    // A last line without its line break; none at all when the file ends with one.
    end: () => {
      if (pending !== "") line(pending)
      pending = ""
    }
  }
}

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180)

const COMMA = 44
const QUOTE = 34
const LF = 10
const CR = 13

/** Where a record ends: `next` is the index after its line break (or the text's end). */
interface Parsed {
  readonly cells: Array<string>
  readonly next: number
}

/**
 * Parses the record at `start`. Answers `undefined` when the text ends before the record does
 * and more may come (`final` false): the caller keeps the rest for the next piece.
 */
const parseRecord = (text: string, start: number, final: boolean, row: number | null): Parsed | undefined => {
  const where = row === null ? "The header row" : `Row ${row}`
  const cells: Array<string> = []
  const length = text.length
  let i = start
  for (;;) {
    let code: number
    if (text.charCodeAt(i) === QUOTE) {
      let value = ""
      let from = i + 1
      for (;;) {
        const quote = text.indexOf("\"", from)
        if (quote < 0) return final ? fail(row, `${where} has a quoted field that is never closed`) : undefined
        if (quote + 1 === length && !final) return undefined
        if (text.charCodeAt(quote + 1) === QUOTE) {
          value += text.slice(from, quote + 1)
          from = quote + 2
          continue
        }
        value += text.slice(from, quote)
        i = quote + 1
        break
      }
      cells.push(value)
      code = i < length ? text.charCodeAt(i) : -1
      if (code !== COMMA && code !== LF && code !== CR && code !== -1) {
        return fail(row, `${where} has text after the closing quote of a field (write a quote inside one as "")`)
      }
    } else {
      let j = i
      code = -1
      while (j < length) {
        const c = text.charCodeAt(j)
        if (c === COMMA || c === LF || c === CR) {
          code = c
          break
        }
        j++
      }
      if (code === -1 && !final) return undefined
      cells.push(text.slice(i, j))
      i = j
    }
    if (code === COMMA) {
      i++
      continue
    }
    if (code === -1) return { cells, next: length }
    if (code === LF) return { cells, next: i + 1 }
    // CR: a CRLF pair, or a lone CR ending the record.
    if (i + 1 === length && !final) return undefined
    return { cells, next: text.charCodeAt(i + 1) === LF ? i + 2 : i + 1 }
  }
}

interface Columns {
  readonly phone: number
  /** Data key of each column; `undefined` for the phone column and unnamed columns. */
  readonly keys: ReadonlyArray<string | undefined>
}

const readHeader = (cells: ReadonlyArray<string>): Columns => {
  const names = cells.map((cell) => cell.trim())
  const phone = names.indexOf("phone_number")
  if (phone < 0) {
    return fail(
      null,
      `The CSV header has no phone_number column (it has ${names.map((n) => JSON.stringify(n)).join(", ")})`
    )
  }
  const seen = new Set<string>()
  for (const name of names) {
    if (name !== "" && seen.has(name)) {
      return fail(null, `The CSV header names the column ${JSON.stringify(name)} twice`)
    }
    seen.add(name)
  }
  return { phone, keys: names.map((name, index) => (index === phone || name === "" ? undefined : name)) }
}

const csvRow = (columns: Columns, row: number, cells: ReadonlyArray<string>): ContactUploadEntry | undefined => {
  let data: Record<string, string> | undefined
  let blank = true
  for (let index = 0; index < cells.length; index++) {
    const cell = cells[index]!
    if (cell === "") continue
    blank = false
    if (index === columns.phone) continue
    if (index >= columns.keys.length) {
      return fail(row, `Row ${row} has ${cells.length} cells but the header has ${columns.keys.length} columns`)
    }
    const key = columns.keys[index]
    if (key === undefined) return fail(row, `Row ${row} has a value in column ${index + 1}, which has no header name`)
    ;(data ??= {})[key] = cell
  }
  if (blank) return undefined
  const phone_number = cells[columns.phone] ?? ""
  return data === undefined ? { phone_number } : { phone_number, data }
}

const csvFormat = (collector: Collector): Format => {
  let pending = ""
  let started = false
  let columns: Columns | undefined
  const consume = (text: string, final: boolean): string => {
    let start = 0
    while (start < text.length) {
      const row = columns === undefined ? null : collector.rows + 1
      const parsed = parseRecord(text, start, final, row)
      if (parsed === undefined) break
      const length = parsed.next - start
      start = parsed.next
      if (row === null || columns === undefined) {
        columns = readHeader(parsed.cells)
        continue
      }
      if (length > MaxRowLength) tooLong(row)
      collector.next()
      const entry = csvRow(columns, row, parsed.cells)
      if (entry !== undefined) collector.add(row, entry)
    }
    const rest = text.slice(start)
    if (rest.length > MaxRowLength) tooLong(collector.rows + 1)
    return rest
  }
  return {
    started: () => started,
    write: (text) => {
      started ||= text.length > 0
      pending = consume(pending + text, false)
    },
    end: () => {
      pending = consume(pending, true)
      if (columns === undefined) {
        fail(null, "The file is empty: a CSV file starts with a header row naming phone_number")
      }
    }
  }
}
