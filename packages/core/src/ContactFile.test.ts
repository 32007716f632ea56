import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import { MaxContactDataBytes } from "./Contact.ts"
import * as ContactFile from "./ContactFile.ts"

const strict = { allowDuplicates: false }

const ok = (result: Result.Result<ContactFile.CheckedFile, ContactFile.ContactFileError>): ContactFile.CheckedFile => {
  if (Result.isFailure(result)) assert.fail(`expected a file, got: ${result.failure.message}`)
  return result.success
}

const refusal = (result: Result.Result<ContactFile.CheckedFile, ContactFile.ContactFileError>) => {
  if (Result.isSuccess(result)) assert.fail("expected the file to be refused")
  return { row: result.failure.row, message: result.failure.message }
}

const contactsOf = (file: ContactFile.CheckedFile) => file.batches.flatMap((batch) => batch.contacts)
const rowsOf = (file: ContactFile.CheckedFile) => file.batches.flatMap((batch) => batch.rows)

const csv = (text: string, options = strict) => ContactFile.check(text, "csv", options)

/** Reads `text` in pieces cut at `cuts` (positions in the text). */
const inPieces = (text: string, kind: ContactFile.ContactFileKind, cuts: ReadonlyArray<number>) => {
  const reader = ContactFile.reader(kind, strict)
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const written = reader.write(text.slice(from, cut))
    if (Result.isFailure(written)) return Result.fail(written.failure)
    from = cut
  }
  return Result.flatMap(reader.write(text.slice(from)), reader.end)
}

describe("kindOfFileName", () => {
  it("reads the extension in any case", () => {
    assert.strictEqual(ContactFile.kindOfFileName("leads.csv"), "csv")
    assert.strictEqual(ContactFile.kindOfFileName("/tmp/LEADS.JSONL"), "jsonl")
    assert.strictEqual(ContactFile.kindOfFileName("a.b.json"), "json")
    assert.strictEqual(ContactFile.kindOfFileName("leads.xlsx"), undefined)
    assert.strictEqual(ContactFile.kindOfFileName("csv"), undefined)
  })
})

describe("CSV", () => {
  it("takes phone_number and puts every other non-empty cell into data as a string", () => {
    const file = ok(csv("name,phone_number,plan,notes\nAnn,(202) 555-0123,gold,\nBob,+12025550124,,\n"))
    assert.deepStrictEqual(contactsOf(file), [
      { phone_number: "+12025550123", data: { name: "Ann", plan: "gold" } },
      { phone_number: "+12025550124", data: { name: "Bob" } }
    ])
    assert.deepStrictEqual(rowsOf(file), [1, 2])
    assert.strictEqual(file.rows, 2)
    assert.strictEqual(file.accepted, 2)
    assert.deepStrictEqual(file.refused, [])
  })

  it("reads quoted fields: commas, line breaks, doubled quotes, CRLF inside and between records", () => {
    const text = "phone_number,note,city\r\n" +
      "\"202-555-0123\",\"says \"\"hi\"\", twice\",\"Washington, DC\"\r\n" +
      "2025550124,\"line one\r\nline two\",\"\"\r\n"
    const file = ok(csv(text))
    assert.deepStrictEqual(contactsOf(file), [
      { phone_number: "+12025550123", data: { note: "says \"hi\", twice", city: "Washington, DC" } },
      { phone_number: "+12025550124", data: { note: "line one\r\nline two" } }
    ])
    // A record with a line break in a field is still one row.
    assert.deepStrictEqual(rowsOf(file), [1, 2])
  })

  it("drops a byte-order mark, reads LF, CRLF and lone CR line ends, and a last record without one", () => {
    for (const end of ["\n", "\r\n", "\r"]) {
      const file = ok(csv(`\uFEFFphone_number,name${end}2025550123,Ann${end}2025550124,Bob`))
      assert.deepStrictEqual(contactsOf(file), [
        { phone_number: "+12025550123", data: { name: "Ann" } },
        { phone_number: "+12025550124", data: { name: "Bob" } }
      ], JSON.stringify(end))
    }
  })

  it("skips blank rows (empty lines, all cells empty) but keeps their numbers", () => {
    const file = ok(csv("phone_number,name\n\n2025550123,Ann\n,\n2025550124,\n\n"))
    assert.deepStrictEqual(rowsOf(file), [2, 4])
    assert.strictEqual(file.rows, 5)
  })

  it("trims header names and takes a header-only file as no contacts", () => {
    const file = ok(csv(" phone_number , name \n2025550123,Ann\n"))
    assert.deepStrictEqual(contactsOf(file), [{ phone_number: "+12025550123", data: { name: "Ann" } }])
    assert.deepStrictEqual(ok(csv("phone_number\r\n")), { rows: 0, accepted: 0, refused: [], batches: [] })
  })

  it("refuses a file without a phone_number column, or an empty one, naming no row", () => {
    assert.deepStrictEqual(refusal(csv("phone,name\n2025550123,Ann\n")), {
      row: null,
      message: "The CSV header has no phone_number column (it has \"phone\", \"name\")"
    })
    assert.strictEqual(refusal(csv("")).row, null)
    assert.match(refusal(csv("")).message, /empty/)
    assert.match(refusal(csv("phone_number,a,a\n")).message, /"a" twice/)
  })

  it("refuses malformed rows by number: a quote left open, text after a closing quote", () => {
    assert.deepStrictEqual(refusal(csv("phone_number,n\n2025550123,a\n2025550124,\"open\n")), {
      row: 2,
      message: "Row 2 has a quoted field that is never closed"
    })
    assert.strictEqual(refusal(csv("phone_number,n\n2025550123,\"a\"b\n")).row, 1)
    assert.strictEqual(refusal(csv("phone_number,\"n\n")).row, null)
    // A quote inside an unquoted field is a character, as spreadsheets write it.
    assert.deepStrictEqual(contactsOf(ok(csv("phone_number,n\n2025550123,5\" tall\n"))), [
      { phone_number: "+12025550123", data: { n: "5\" tall" } }
    ])
  })

  it("refuses a value beyond the header's columns or under a column with no name; empty ones pass", () => {
    assert.deepStrictEqual(refusal(csv("phone_number,n\n2025550123,a\n2025550124,b,extra\n")), {
      row: 2,
      message: "Row 2 has 3 cells but the header has 2 columns"
    })
    assert.strictEqual(refusal(csv("phone_number,,n\n2025550123,x,a\n")).row, 1)
    const file = ok(csv("phone_number,,n\n2025550123,,a,,\n2025550124\n"))
    assert.deepStrictEqual(contactsOf(file), [
      { phone_number: "+12025550123", data: { n: "a" } },
      { phone_number: "+12025550124" }
    ])
  })

  it("round-trips any cells, whatever the pieces the text arrives in", () => {
    const cell = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom("a,b", "say \"x\"", "two\nlines", "cr\r\nlf", "\r", "\"", "")
    )
    const record = fc.tuple(fc.integer({ min: 100, max: 199 }), cell, cell)
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 12 }),
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (records, end, quoteAll, cutSeeds) => {
          const quote = (value: string) =>
            quoteAll || /[",\r\n]/.test(value) ? `"${value.replaceAll("\"", "\"\"")}"` : value
          const text = [
            "phone_number,a,b",
            ...records.map(([n, a, b]) => [`+1202555${String(n).padStart(4, "0")}`, a, b].map(quote).join(","))
          ]
            .join(end) + end
          const cuts = cutSeeds.map((seed) => seed % (text.length + 1))
          const file = ok(inPieces(text, "csv", cuts))
          const expected = records.map(([n, a, b]) => {
            const data: Record<string, string> = {}
            if (a !== "") data["a"] = a
            if (b !== "") data["b"] = b
            return { n, data }
          })
          // Numbers repeat in random records: the first copy is accepted, the others refused.
          const firsts = new Map<number, number>()
          expected.forEach(({ n }, index) => firsts.has(n) || firsts.set(n, index))
          const accepted = expected.filter(({ n }, index) => firsts.get(n) === index)
          assert.deepStrictEqual(
            contactsOf(file),
            accepted.map(({ data, n }) => ({
              phone_number: `+1202555${String(n).padStart(4, "0")}`,
              ...(Object.keys(data).length > 0 ? { data } : {})
            }))
          )
          assert.strictEqual(file.rows, records.length)
          assert.strictEqual(file.refused.length, records.length - accepted.length)
        }
      ),
      { numRuns: 500 }
    )
  })
})

describe("refused rows", () => {
  it("names invalid numbers as written and duplicates with the row they repeat", () => {
    const file = ok(csv("phone_number\n2025550123\ncall me\n(202) 555-0123\n\n+1 202 555 0123\n555-0123\n"))
    assert.deepStrictEqual(file.refused, [
      { row: 2, phone_number: "call me", reason: "invalid_phone_number" },
      { row: 3, phone_number: "+12025550123", reason: "duplicate", first_row: 1 },
      { row: 5, phone_number: "+12025550123", reason: "duplicate", first_row: 1 },
      { row: 6, phone_number: "555-0123", reason: "invalid_phone_number" }
    ])
    assert.strictEqual(file.accepted, 1)
  })

  it("with duplicates allowed, sends every copy (the API skips both duplicate checks)", () => {
    const file = ok(csv("phone_number\n2025550123\n+12025550123\n", { allowDuplicates: true }))
    assert.deepStrictEqual(file.refused, [])
    assert.deepStrictEqual(rowsOf(file), [1, 2])
  })

  it("refuses data over 16 KB serialized, as the API does", () => {
    const fits = "x".repeat(MaxContactDataBytes - "{\"n\":\"\"}".length)
    const file = ok(csv(`phone_number,n\n2025550123,${fits}\n2025550124,${fits}x\n`))
    assert.deepStrictEqual(file.refused, [{ row: 2, phone_number: "+12025550124", reason: "data_too_large" }])
    assert.deepStrictEqual(rowsOf(file), [1])
  })

  it("refuses a row too long to hold, even before it ends", () => {
    const reader = ContactFile.reader("csv", strict)
    assert.isTrue(Result.isSuccess(reader.write("phone_number,n\n2025550123,\"")))
    const written = reader.write("y".repeat(ContactFile.MaxRowLength + 1))
    assert.isTrue(Result.isFailure(written))
    assert.strictEqual(Result.isFailure(written) ? written.failure.row : undefined, 1)
    assert.isTrue(Result.isFailure(reader.end()), "the reader is spent after a failure")
  })

  it("maps a refused batch's entries back to every row holding each named number", () => {
    const file = ok(
      csv("phone_number\n2025550150\n2025550123\n2025550150\n2025550124\n", { allowDuplicates: true })
    )
    const [batch] = file.batches
    assert.deepStrictEqual(
      ContactFile.refusedRows(batch!, [
        { phone_number: "+12025550150", reason: "do_not_call" },
        { phone_number: "+12025550124", reason: "duplicate" }
      ]),
      [
        { row: 1, phone_number: "+12025550150", reason: "do_not_call" },
        { row: 3, phone_number: "+12025550150", reason: "do_not_call" },
        { row: 4, phone_number: "+12025550124", reason: "duplicate" }
      ]
    )
  })
})

describe("batches", () => {
  it("splits 25,000 accepted contacts into 10,000, 10,000 and 5,000, each remembering its rows", () => {
    const lines = ["phone_number,i"]
    for (let i = 0; i < 25_002; i++) {
      lines.push(i === 7 ? "bad" : i === 12_000 ? "" : `+1202${String(2_000_000 + i)},${i}`)
    }
    const file = ok(csv(lines.join("\n")))
    assert.deepStrictEqual(file.batches.map((batch) => batch.contacts.length), [10_000, 10_000, 5_000])
    assert.deepStrictEqual(file.batches.map((batch) => batch.rows.length), [10_000, 10_000, 5_000])
    assert.strictEqual(file.rows, 25_002)
    assert.strictEqual(file.accepted, 25_000)
    assert.deepStrictEqual(file.refused, [{ row: 8, phone_number: "bad", reason: "invalid_phone_number" }])
    const second = file.batches[1]!
    assert.strictEqual(second.rows[0], 10_002)
    assert.deepStrictEqual(second.contacts[0], { phone_number: "+12022010001", data: { i: "10001" } })
    // Row 12,001 (the blank one) is skipped, so the next contact is row 12,002.
    assert.strictEqual(second.rows[1_998], 12_000)
    assert.strictEqual(second.rows[1_999], 12_002)
  })
})

describe("JSON", () => {
  it("reads an array of contacts as the upload body holds them; null means absent", () => {
    const text = JSON.stringify([
      { phone_number: "(202) 555-0123", data: { plan: "gold", n: 2 }, outreach_modalities: ["sms"] },
      { phone_number: "+12025550124", data: null, outreach_modalities: null, ignored: true }
    ])
    const file = ok(ContactFile.check(`\uFEFF${text}`, "json", strict))
    assert.deepStrictEqual(contactsOf(file), [
      { phone_number: "+12025550123", data: { plan: "gold", n: 2 }, outreach_modalities: ["sms"] },
      { phone_number: "+12025550124" }
    ])
    assert.deepStrictEqual(rowsOf(ok(inPieces(text, "json", [1, 5, 40]))), [1, 2])
  })

  it("refuses what the API would answer 422, naming the element", () => {
    const check = (text: string) => refusal(ContactFile.check(text, "json", strict))
    assert.deepStrictEqual(check("{\"contacts\": []}"), {
      row: null,
      message: "A .json file holds an array of contacts, not an object"
    })
    assert.strictEqual(check("[").row, null)
    assert.deepStrictEqual(check("[{\"phone_number\":\"2025550123\"},{\"phone_number\":2025550124}]"), {
      row: 2,
      message: "Row 2: phone_number must be a string, not number"
    })
    assert.strictEqual(check("[\"2025550123\"]").row, 1)
    assert.strictEqual(check("[{\"phone_number\":\"2025550123\",\"data\":[1]}]").row, 1)
    assert.strictEqual(check("[{\"phone_number\":\"2025550123\",\"outreach_modalities\":[1]}]").row, 1)
  })
})

describe("JSON Lines", () => {
  it("reads one contact per line, rows numbered by line, blank lines skipped", () => {
    const text =
      "{\"phone_number\":\"2025550123\"}\r\n\r\n{\"phone_number\":\"call me\"}\n{\"phone_number\":\"2025550124\"}"
    for (const cuts of [[], [3, 31, 32], [text.length - 1]]) {
      const file = ok(inPieces(text, "jsonl", cuts))
      assert.deepStrictEqual(rowsOf(file), [1, 4])
      assert.deepStrictEqual(file.refused, [{ row: 3, phone_number: "call me", reason: "invalid_phone_number" }])
      assert.strictEqual(file.rows, 4)
    }
  })

  it("refuses a line that is not JSON, naming it", () => {
    assert.deepStrictEqual(
      refusal(ContactFile.check("{\"phone_number\":\"2025550123\"}\n{phone_number}\n", "jsonl", strict)),
      { row: 2, message: "Row 2 is not valid JSON" }
    )
  })
})

describe("100,000 rows", () => {
  it("read in 64 KB pieces, as a browser streams a file, give the one-call result", () => {
    const lines = ["phone_number,name,plan"]
    for (let i = 0; i < 100_000; i++) {
      lines.push(
        `(202) ${200 + Math.floor(i / 10_000)}-${String(i % 10_000).padStart(4, "0")},Person ${i},"gold, yearly"`
      )
    }
    const text = lines.join("\r\n")
    const whole = ok(csv(text))
    const cuts: Array<number> = []
    for (let at = 65_536; at < text.length; at += 65_536) cuts.push(at)
    const pieces = ok(inPieces(text, "csv", cuts))
    assert.strictEqual(whole.accepted, 100_000)
    assert.strictEqual(whole.batches.length, 10)
    assert.deepStrictEqual(pieces, whole)
  })
})
