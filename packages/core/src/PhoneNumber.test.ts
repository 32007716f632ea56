import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import fc from "fast-check"
import * as PhoneNumber from "./PhoneNumber.ts"

const ok = (result: Result.Result<string, string>): string => {
  if (Result.isFailure(result)) assert.fail(`expected success, got: ${result.failure}`)
  return result.success
}

const failure = (result: Result.Result<string, string>): string => {
  if (Result.isSuccess(result)) assert.fail(`expected failure, got: ${result.success}`)
  return result.failure
}

describe("PhoneNumber", () => {
  describe("isE164", () => {
    const cases: ReadonlyArray<readonly [string, boolean]> = [
      ["+12025550123", true],
      ["+442079460958", true],
      ["+12", true],
      ["+123456789012345", true],
      ["+1234567890123456", false],
      ["+1", false],
      ["12025550123", false],
      ["+02025550123", false],
      ["+1 202 555 0123", false],
      ["", false],
      ["+1202555012a", false]
    ]
    for (const [input, expected] of cases) {
      it(`${JSON.stringify(input)} -> ${expected}`, () => {
        assert.strictEqual(PhoneNumber.isE164(input), expected)
      })
    }
  })

  describe("E164 schema", () => {
    it("accepts the pattern and rejects anything else", () => {
      const decode = Schema.decodeUnknownResult(PhoneNumber.E164)
      assert.isTrue(Result.isSuccess(decode("+12025550123")))
      assert.isTrue(Result.isFailure(decode("2025550123")))
      assert.isTrue(Result.isFailure(decode(12025550123)))
      const failed = decode("+1 202")
      assert.isTrue(Result.isFailure(failed) && failed.failure.message.includes("E.164"))
    })
  })

  describe("normalize", () => {
    const good: ReadonlyArray<readonly [string, string]> = [
      ["+12025550123", "+12025550123"],
      ["(202) 555-0123", "+12025550123"],
      ["202.555.0123", "+12025550123"],
      ["202-555-0123", "+12025550123"],
      ["+1 202 555 0123", "+12025550123"],
      ["+1 (202) 555-0123", "+12025550123"],
      ["12025550123", "+12025550123"],
      ["1 202 555 0123", "+12025550123"],
      ["  2025550199  ", "+12025550199"],
      ["+44 20 7946 0958", "+442079460958"],
      ["011 44 20 7946 0958", "+442079460958"],
      ["+49 30 123456", "+4930123456"],
      ["+61 2 9876 5432", "+61298765432"],
      ["8005550100", "+18005550100"],
      ["+14165550123", "+14165550123"],
      // fictional 555-01XX lines under area codes libphonenumber deems invalid
      ["+15555550123", "+15555550123"],
      ["+12425550150", "+12425550150"],
      ["(555) 555-0199", "+15555550199"]
    ]
    for (const [input, expected] of good) {
      it(`normalizes ${JSON.stringify(input)}`, () => {
        assert.strictEqual(ok(PhoneNumber.normalize(input)), expected)
      })
    }

    const bad: ReadonlyArray<string> = [
      "",
      "   ",
      "abc",
      "not a phone",
      "1-800-FLOWERS",
      "(202) 555-0123 x12",
      "tel:+1-202-555-0123",
      "+1 202 555 0123 +",
      "++12025550123",
      "+",
      "+1",
      "911",
      "555-0123",
      "202-555-012",
      "202 555 01234",
      "+1202555012345",
      "+999 123",
      "+0123",
      "1234567890",
      "+11234567890",
      "+12021234567",
      "+19115550123",
      "0012025550123",
      "1".repeat(80)
    ]
    for (const input of bad) {
      it(`rejects ${JSON.stringify(input)}`, () => {
        const message = failure(PhoneNumber.normalize(input))
        assert.isTrue(message.length > 0)
      })
    }

    it("says why", () => {
      assert.strictEqual(failure(PhoneNumber.normalize("")), "Phone number is empty")
      assert.include(failure(PhoneNumber.normalize("202-555-012")), "too short")
      assert.include(failure(PhoneNumber.normalize("202 555 01234")), "too long")
      assert.include(failure(PhoneNumber.normalize("+999 123")), "country code")
    })

    it("reads national numbers in the given region", () => {
      assert.strictEqual(ok(PhoneNumber.normalize("020 7946 0958", "GB")), "+442079460958")
      assert.strictEqual(ok(PhoneNumber.normalize("+1 202 555 0123", "GB")), "+12025550123")
    })

    it("every number of the simulated carrier's test range normalizes", () => {
      for (const areaCode of ["202", "212", "415", "555", "242", "800"]) {
        for (let line = 100; line <= 199; line++) {
          const e164 = `+1${areaCode}5550${line}`
          assert.strictEqual(ok(PhoneNumber.normalize(e164)), e164)
        }
      }
    })
  })

  describe("normalizeDialableUs", () => {
    const good: ReadonlyArray<readonly [string, string]> = [
      ["+12025550123", "+12025550123"],
      ["2025550123", "+12025550123"],
      ["12025550123", "+12025550123"],
      ["(202) 555-0123", "+12025550123"],
      ["202.555.0100", "+12025550100"],
      ["+1 202-555-0199", "+12025550199"],
      ["+15555550123", "+15555550123"],
      ["+1 800 555 0100", "+18005550100"],
      ["+1 787 555 0123", "+17875550123"]
    ]
    for (const [input, expected] of good) {
      it(`accepts ${JSON.stringify(input)}`, () => {
        assert.strictEqual(ok(PhoneNumber.normalizeDialableUs(input)), expected)
      })
    }

    const bad: ReadonlyArray<string> = [
      "+44 20 7946 0958",
      "+442079460958",
      "+49 30 123456",
      "+1 416 555 0123",
      "+1 242 555 0123",
      "442079460958",
      "555-0123",
      "911",
      "+1 911 555 0123",
      "+1 123 555 0123",
      "202555abcd",
      "",
      "hello"
    ]
    for (const input of bad) {
      it(`rejects ${JSON.stringify(input)}`, () => {
        failure(PhoneNumber.normalizeDialableUs(input))
      })
    }

    it("names the foreign country code", () => {
      assert.include(failure(PhoneNumber.normalizeDialableUs("+44 20 7946 0958")), "+44")
    })
  })

  it("answers US formattings of a ten-digit number without parsing them exactly as the parser does", () => {
    // As above: the leading space sends the same text through libphonenumber.
    const answer = (input: string) => Result.getOrElse(PhoneNumber.normalize(input), () => "refused")
    const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n })
    const separator = fc.constantFrom("", " ", "-", ".")
    const formatted = fc.tuple(
      fc.constantFrom("", "1", "+1", "1 ", "+1 ", "1-", "+1-", "1.", "+1.", "+2", "11"),
      fc.constantFrom(["", ""], ["(", ")"], ["(", ""], ["", ")"]),
      digits(3),
      separator,
      digits(3),
      separator,
      digits(4)
    ).map(([prefix, [open, close], area, first, exchange, second, line]) =>
      `${prefix}${open}${area.join("")}${close}${first}${exchange.join("")}${second}${line.join("")}`
    )
    fc.assert(
      fc.property(formatted, (input) => {
        assert.strictEqual(answer(input), answer(` ${input}`), input)
      }),
      { numRuns: 5_000 }
    )
    for (const input of ["(202) 555-0123", "202.555.0123", "1 202 555 0123", "+1 (202) 555-0123", "(911) 555-0123"]) {
      assert.strictEqual(answer(input), answer(` ${input}`), input)
    }
    assert.strictEqual(answer("(202) 555-0123"), "+12025550123")
  })

  it("answers an E.164 +1 number without parsing it exactly as the parser does", () => {
    // A leading space sends the same number through libphonenumber (the input is trimmed there);
    // a refusal's sentence quotes the input, so the answers are compared as number or refusal.
    const answer = (input: string) => Result.getOrElse(PhoneNumber.normalize(input), () => "refused")
    const digit = fc.integer({ min: 0, max: 9 }).map(String)
    const number = fc.tuple(
      fc.integer({ min: 0, max: 9 }),
      digit,
      digit,
      fc.integer({ min: 0, max: 9 }),
      fc.array(digit, { minLength: 6, maxLength: 6 })
    )
      .map(([a, b, c, d, rest]) => `+1${a}${b}${c}${d}${rest.join("")}`)
    fc.assert(
      fc.property(number, (input) => {
        assert.strictEqual(answer(input), answer(` ${input}`), input)
      }),
      { numRuns: 3_000 }
    )
    for (
      const input of ["+12025550123", "+15555550123", "+12425550123", "+14165550123", "+19115550123", "+11234567890"]
    ) {
      assert.strictEqual(answer(input), answer(` ${input}`), input)
    }
    assert.strictEqual(answer("+12025550123"), "+12025550123")
    assert.strictEqual(answer("+19115550123"), "refused")
  })
})
