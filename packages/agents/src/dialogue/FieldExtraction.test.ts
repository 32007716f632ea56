import { assert, describe, it } from "@effect/vitest"
import type { FieldItem, FieldType, FieldValue } from "@voice-agent/core/AgentTask"
import type { CivilDate } from "@voice-agent/core/CalendarDate"
import { Result } from "effect"
import * as fc from "fast-check"
import type { ExtractionFailureReason } from "./FieldExtraction.ts"
import { extract } from "./FieldExtraction.ts"

/** Tuesday 1 September 2026. */
const today: CivilDate = { year: 2026, month: 9, day: 1 }
const context = { today }

const field = (field_type: FieldType, extra: Partial<FieldItem> = {}): FieldItem => ({
  item_type: "field",
  key: field_type,
  field_type,
  ...extra
})

const value = (item: FieldItem, utterance: string, at: CivilDate = today): FieldValue => {
  const result = extract(item, utterance, { today: at })
  if (Result.isFailure(result)) assert.fail(`${JSON.stringify(utterance)}: ${result.failure.message}`)
  return result.success
}

const failure = (item: FieldItem, utterance: string): ExtractionFailureReason => {
  const result = extract(item, utterance, context)
  if (Result.isSuccess(result)) assert.fail(`${JSON.stringify(utterance)} gave ${JSON.stringify(result.success)}`)
  return result.failure.reason
}

const date = (year: number, month: number, day: number) => ({ year, month, day })

// renderers for the property tests ------------------------------------------------------------

const ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
const TEENS = [
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen"
]
const TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December"
]
const ORDINAL_ONES = ["", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]
const ORDINAL_TEENS = [
  "tenth",
  "eleventh",
  "twelfth",
  "thirteenth",
  "fourteenth",
  "fifteenth",
  "sixteenth",
  "seventeenth",
  "eighteenth",
  "nineteenth"
]

const below100 = (n: number, hyphen: boolean): string =>
  n < 10
    ? ONES[n]!
    : n < 20
    ? TEENS[n - 10]!
    : n % 10 === 0
    ? TENS[n / 10]!
    : `${TENS[Math.floor(n / 10)]}${hyphen ? "-" : " "}${ONES[n % 10]}`

const below1000 = (n: number, and: boolean, hyphen: boolean): string => {
  const hundreds = Math.floor(n / 100)
  const rest = n % 100
  if (hundreds === 0) return below100(rest, hyphen)
  const head = `${ONES[hundreds]} hundred`
  return rest === 0 ? head : `${head}${and ? " and " : " "}${below100(rest, hyphen)}`
}

const inWords = (n: number, and = false, hyphen = false): string => {
  if (n === 0) return "zero"
  const parts: Array<string> = []
  for (const [scale, name] of [[1e9, "billion"], [1e6, "million"], [1e3, "thousand"], [1, ""]] as const) {
    const group = Math.floor(n / scale) % 1000
    if (group > 0) parts.push(`${below1000(group, and, hyphen)}${name === "" ? "" : ` ${name}`}`)
  }
  return parts.join(" ")
}

const ordinal = (day: number): string =>
  day < 10
    ? ORDINAL_ONES[day]!
    : day < 20
    ? ORDINAL_TEENS[day - 10]!
    : day % 10 === 0
    ? `${TENS[day / 10]!.replace(/y$/, "ie")}th`
    : `${TENS[Math.floor(day / 10)]} ${ORDINAL_ONES[day % 10]}`

const suffixed = (day: number): string =>
  `${day}${
    day % 10 === 1 && day !== 11
      ? "st"
      : day % 10 === 2 && day !== 12
      ? "nd"
      : day % 10 === 3 && day !== 13
      ? "rd"
      : "th"
  }`

const yearInWords = (year: number, style: number): string => {
  const century = Math.floor(year / 100)
  const rest = year % 100
  if (year >= 2000 && year < 2010 || style === 1 && year >= 2000) {
    return rest === 0 ? "two thousand" : `two thousand ${style === 1 ? "and " : ""}${below100(rest, false)}`
  }
  if (rest === 0) return `${below100(century, false)} hundred`
  return `${below100(century, false)} ${rest < 10 ? `oh ${ONES[rest]}` : below100(rest, false)}`
}

const allDates = (from: number, to: number): ReadonlyArray<CivilDate> => {
  const out: Array<CivilDate> = []
  for (let year = from; year <= to; year++) {
    for (let month = 1; month <= 12; month++) {
      const days = month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11]
          .includes(month)
        ? 30
        : 31
      for (let day = 1; day <= days; day++) out.push({ year, month, day })
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------

describe("FieldExtraction", () => {
  describe("the simulated person's answers (docs/AGENTS.md)", () => {
    it("reads each default answer as its field type", () => {
      assert.strictEqual(value(field("text"), "Alex Morgan"), "Alex Morgan")
      assert.strictEqual(value(field("integer"), "forty two"), 42)
      assert.deepStrictEqual(value(field("date"), "March third twenty twenty seven"), date(2027, 3, 3))
      assert.strictEqual(
        value(field("multiple_choice", { choices: ["email", "phone", "text"] }), "email"),
        "email"
      )
      assert.strictEqual(value(field("digit_sequence"), "one two three four"), "1234")
      assert.strictEqual(value(field("cvv"), "one two three four"), "1234")
      assert.strictEqual(value(field("calendar_slot"), "next Tuesday at ten a m"), "2026-09-08T10:00")
    })
  })

  describe("integer", () => {
    const integer = field("integer")
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["42", 42],
      ["1,200", 1200],
      ["-3", -3],
      ["minus three", -3],
      ["negative 12", -12],
      ["forty two", 42],
      ["Forty-two.", 42],
      ["one hundred and five", 105],
      ["one hundred five", 105],
      ["twelve hundred", 1200],
      ["twenty five hundred", 2500],
      ["a hundred", 100],
      ["a thousand", 1000],
      ["a dozen", 12],
      ["two dozen", 24],
      ["zero", 0],
      ["0", 0],
      ["three million", 3_000_000],
      ["3 million", 3_000_000],
      ["two million three hundred thousand and one", 2_300_001],
      ["one billion two hundred million", 1_200_000_000],
      ["I'm forty two years old", 42],
      ["about 7, maybe 8", 7],
      ["I have two kids", 2],
      ["forty two, no, forty three", 42],
      ["it is 10 thousand", 10_000],
      ["3.0", 3],
      ["there are 12 of us", 12]
    ]
    for (const [utterance, expected] of cases) {
      it(`reads ${JSON.stringify(utterance)} as ${expected}`, () => {
        assert.strictEqual(value(integer, utterance), expected)
      })
    }

    it("fails without a number, and on fractions and overflow", () => {
      assert.strictEqual(failure(integer, "I don't know"), "no-value")
      assert.strictEqual(failure(integer, ""), "no-value")
      assert.strictEqual(failure(integer, "3.5"), "out-of-range")
      assert.strictEqual(failure(integer, "99999999999999999999"), "out-of-range")
    })

    it("reads every number from 0 to 10^7 written in words (with or without 'and' and hyphens)", () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.boolean(), fc.boolean(), (n, and, hyphen) => {
          assert.strictEqual(value(integer, inWords(n, and, hyphen)), n)
        }),
        { numRuns: 2000 }
      )
    })

    it("reads every number written in digits, with or without thousands separators", () => {
      fc.assert(
        fc.property(fc.integer({ min: -1e9, max: 1e12 }), fc.boolean(), (n, grouped) => {
          const text = grouped ? n.toLocaleString("en-US") : String(n)
          assert.strictEqual(value(integer, `it's ${text} I think`), n)
        })
      )
    })
  })

  describe("digit_sequence and cvv", () => {
    const digits = field("digit_sequence")
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["one two three four", "1234"],
      ["1 2 3 4", "1234"],
      ["1234", "1234"],
      ["My PIN is 4 0 7 1", "4071"],
      ["four oh seven one", "4071"],
      ["zero zero seven", "007"],
      ["double five one two", "5512"],
      ["triple nine", "999"],
      ["double 5", "55"],
      ["five five five, one two three, four five six seven", "5551234567"],
      ["four one five dash five five five dash one two one two", "4155551212"],
      ["twelve thirty four", "1234"],
      ["nine hundred", "900"],
      ["one hundred twenty", "120"],
      ["eight hundred and five", "805"],
      ["one eight hundred five five five", "1800555"],
      ["1-800-555-1212", "18005551212"],
      ["Oh, it's one two three four", "1234"],
      ["It's 4 digits: 9876", "9876"],
      ["one two uh three four", "1234"]
    ]
    for (const [utterance, expected] of cases) {
      it(`reads ${JSON.stringify(utterance)} as ${expected}`, () => {
        assert.strictEqual(value(digits, utterance), expected)
      })
    }

    it("fails without digits", () => {
      assert.strictEqual(failure(digits, "I don't remember"), "no-value")
      assert.strictEqual(failure(digits, "oh"), "no-value")
    })

    it("reads every digit sequence said digit by digit, in words or digits", () => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 16 }),
          fc.constantFrom("words", "digits", "oh"),
          (sequence, style) => {
            const said = sequence.map((d) =>
              style === "digits" ? String(d) : d === 0 && style === "oh" ? "oh" : ONES[d]!
            )
            const expected = sequence.join("")
            if (style === "oh" && /^0+$/.test(expected)) return
            assert.strictEqual(value(digits, said.join(" ")), expected)
            assert.strictEqual(value(digits, `it's ${said.join(", ")}.`), expected)
          }
        )
      )
    })

    it("needs 3 or 4 digits for a cvv", () => {
      const cvv = field("cvv")
      assert.strictEqual(value(cvv, "one two three"), "123")
      assert.strictEqual(value(cvv, "It's 7 4 1 9"), "7419")
      assert.strictEqual(failure(cvv, "one two"), "out-of-range")
      assert.strictEqual(failure(cvv, "one two three four five"), "out-of-range")
      assert.strictEqual(failure(cvv, "no idea"), "no-value")
    })
  })

  describe("multiple_choice", () => {
    const contact = field("multiple_choice", { choices: ["Email", "Phone call", "Text message"] })
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["email", "Email"],
      ["EMAIL.", "Email"],
      ["Email, please", "Email"],
      ["I'd prefer a phone call", "Phone call"],
      ["text message!", "Text message"],
      ["e-mail", "Email"],
      ["emial", "Email"],
      ["a phone cal", "Phone call"],
      ["txt message", "Text message"],
      ["the first one", "Email"],
      ["second", "Phone call"],
      ["the last option", "Text message"],
      ["option 2", "Phone call"],
      ["number three", "Text message"]
    ]
    for (const [utterance, expected] of cases) {
      it(`reads ${JSON.stringify(utterance)} as ${expected}`, () => {
        assert.strictEqual(value(contact, utterance), expected)
      })
    }

    it("returns the choice's text as given", () => {
      const item = field("multiple_choice", { choices: ["Café au lait", "Tea (green)"] })
      assert.strictEqual(value(item, "cafe au lait"), "Café au lait")
      assert.strictEqual(value(item, "tea, green"), "Tea (green)")
    })

    it("prefers the longer of two nested choices", () => {
      const item = field("multiple_choice", { choices: ["Phone", "Mobile phone"] })
      assert.strictEqual(value(item, "my mobile phone"), "Mobile phone")
      assert.strictEqual(value(item, "the phone"), "Phone")
    })

    it("is ambiguous when several choices match equally well", () => {
      assert.strictEqual(failure(contact, "email or a phone call, either"), "ambiguous")
      const item = field("multiple_choice", { choices: ["Mail", "Male"] })
      assert.strictEqual(failure(item, "mall"), "ambiguous")
    })

    it("fails when nothing matches or the ordinal is past the end", () => {
      assert.strictEqual(failure(contact, "carrier pigeon"), "no-value")
      assert.strictEqual(failure(contact, "the fifth one"), "out-of-range")
      assert.strictEqual(failure(field("multiple_choice"), "email"), "no-value")
    })

    it("does not fuzz a different first letter", () => {
      const item = field("multiple_choice", { choices: ["Email", "Phone", "Text"] })
      assert.strictEqual(failure(item, "the next one"), "no-value")
    })

    it("does not fuzz short choices", () => {
      const item = field("multiple_choice", { choices: ["Yes", "No"] })
      assert.strictEqual(value(item, "yes"), "Yes")
      assert.strictEqual(failure(item, "yea"), "no-value")
    })

    it("finds every choice said as given, whatever the case", () => {
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.stringMatching(/^[a-z]{3,10}$/), { minLength: 2, maxLength: 6 }),
          fc.nat(),
          (choices, pick) => {
            const choice = choices[pick % choices.length]!
            assert.strictEqual(value(field("multiple_choice", { choices }), choice.toUpperCase()), choice)
          }
        )
      )
    })
  })

  describe("text", () => {
    const text = field("text")
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Alex Morgan", "Alex Morgan"],
      ["  Alex Morgan.  ", "Alex Morgan"],
      ["My name is Alex Morgan", "Alex Morgan"],
      ["my name's Alex", "Alex"],
      ["It's Alex Morgan.", "Alex Morgan"],
      ["It is 12 Main Street", "12 Main Street"],
      ["Um, Alex Morgan", "Alex Morgan"],
      ["uh um my name is Jo", "Jo"],
      ["This is Sam", "Sam"],
      ["I'd rather not say", "I'd rather not say"],
      ["Itsuki", "Itsuki"],
      ["Ummah Street", "Ummah Street"]
    ]
    for (const [utterance, expected] of cases) {
      it(`reads ${JSON.stringify(utterance)} as ${JSON.stringify(expected)}`, () => {
        assert.strictEqual(value(text, utterance), expected)
      })
    }

    it("fails when nothing is left", () => {
      assert.strictEqual(failure(text, ""), "no-value")
      assert.strictEqual(failure(text, "  um... "), "no-value")
      assert.strictEqual(failure(text, "it's"), "no-value")
    })
  })

  describe("date", () => {
    const item = field("date")
    const cases: ReadonlyArray<readonly [string, ReturnType<typeof date>]> = [
      ["2027-03-03", date(2027, 3, 3)],
      ["3/3/2027", date(2027, 3, 3)],
      ["12/25/2026", date(2026, 12, 25)],
      ["25/12/2026", date(2026, 12, 25)],
      ["3/4/27", date(2027, 3, 4)],
      ["March third twenty twenty seven", date(2027, 3, 3)],
      ["March 3, 2027", date(2027, 3, 3)],
      ["March 3rd 2027", date(2027, 3, 3)],
      ["the 3rd of March 2027", date(2027, 3, 3)],
      ["the third of March, twenty twenty seven", date(2027, 3, 3)],
      ["3 March 2027", date(2027, 3, 3)],
      ["march the twenty first two thousand and twenty seven", date(2027, 3, 21)],
      ["March twenty three two thousand twenty seven", date(2027, 3, 23)],
      ["It was July fourth nineteen ninety", date(1990, 7, 4)],
      ["June 5th nineteen oh five", date(1905, 6, 5)],
      ["January first nineteen hundred", date(1900, 1, 1)],
      ["Dec 31 2030", date(2030, 12, 31)],
      ["Sept. 9th, 2026", date(2026, 9, 9)],
      ["February twenty ninth twenty twenty eight", date(2028, 2, 29)],
      ["on the thirtieth of April 2027", date(2027, 4, 30)],
      ["I was born on May 5th 1985", date(1985, 5, 5)],
      ["March twenty twenty twenty seven", date(2027, 3, 20)],
      // without a year: the next occurrence
      ["September 1st", date(2026, 9, 1)],
      ["March 3rd", date(2027, 3, 3)],
      ["the tenth of October", date(2026, 10, 10)],
      ["February 29", date(2028, 2, 29)],
      ["10/10", date(2026, 10, 10)],
      // relative to today, Tuesday 1 September 2026
      ["today", date(2026, 9, 1)],
      ["tomorrow", date(2026, 9, 2)],
      ["the day after tomorrow", date(2026, 9, 3)],
      ["yesterday", date(2026, 8, 31)],
      ["next Friday", date(2026, 9, 4)],
      ["Friday", date(2026, 9, 4)],
      ["this Wednesday", date(2026, 9, 2)],
      ["next Tuesday", date(2026, 9, 8)],
      ["on Monday", date(2026, 9, 7)],
      ["in three days", date(2026, 9, 4)],
      ["in 2 weeks", date(2026, 9, 15)],
      ["in a week", date(2026, 9, 8)]
    ]
    for (const [utterance, expected] of cases) {
      it(`reads ${JSON.stringify(utterance)} as ${JSON.stringify(expected)}`, () => {
        assert.deepStrictEqual(value(item, utterance), expected)
      })
    }

    it("crosses month and year ends for relative dates", () => {
      assert.deepStrictEqual(value(item, "tomorrow", date(2026, 12, 31)), date(2027, 1, 1))
      assert.deepStrictEqual(value(item, "next Monday", date(2028, 2, 28)), date(2028, 3, 6))
      assert.deepStrictEqual(value(item, "in two days", date(2028, 2, 28)), date(2028, 3, 1))
    })

    it("rejects days the month does not have", () => {
      assert.strictEqual(failure(item, "February thirtieth twenty twenty seven"), "out-of-range")
      assert.strictEqual(failure(item, "2027-02-29"), "out-of-range")
      assert.strictEqual(failure(item, "April 31"), "out-of-range")
      assert.strictEqual(failure(item, "13/13/2027"), "out-of-range")
      assert.strictEqual(failure(item, "2027-13-01"), "out-of-range")
    })

    it("fails without a date", () => {
      assert.strictEqual(failure(item, "I'm not sure"), "no-value")
      assert.strictEqual(failure(item, "March 2027"), "no-value")
      assert.strictEqual(failure(item, ""), "no-value")
    })

    const dates = allDates(1950, 2060)
    const styles = [
      (d: CivilDate) => `${MONTHS[d.month - 1]} ${ordinal(d.day)} ${yearInWords(d.year, 0)}`,
      (d: CivilDate) => `the ${ordinal(d.day)} of ${MONTHS[d.month - 1]} ${yearInWords(d.year, 1)}`,
      (d: CivilDate) => `${MONTHS[d.month - 1]} ${below100(d.day, false)}, ${yearInWords(d.year, 0)}`,
      (d: CivilDate) => `the ${suffixed(d.day)} of ${MONTHS[d.month - 1]} ${d.year}`,
      (d: CivilDate) => `${MONTHS[d.month - 1]} ${d.day}, ${d.year}`,
      (d: CivilDate) => `${d.month}/${d.day}/${d.year}`,
      (d: CivilDate) => `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`
    ]

    it("reads every date from 1950 to 2060 said the first way", () => {
      for (const d of dates) assert.deepStrictEqual(value(item, styles[0]!(d)), d)
    })

    it("reads dates said in every supported way", () => {
      fc.assert(
        fc.property(fc.constantFrom(...dates), fc.integer({ min: 0, max: styles.length - 1 }), (d, style) => {
          assert.deepStrictEqual(value(item, styles[style]!(d)), d, styles[style]!(d))
        }),
        { numRuns: 3000 }
      )
    })

    it("reads weekdays as 1 to 7 days ahead", () => {
      const names = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
      fc.assert(
        fc.property(fc.constantFrom(...allDates(2024, 2030)), fc.nat(6), (from, weekday) => {
          const got = value(item, `next ${names[weekday]}`, from) as CivilDate
          const days = (Date.UTC(got.year, got.month - 1, got.day) - Date.UTC(from.year, from.month - 1, from.day)) /
            86_400_000
          assert.isTrue(days >= 1 && days <= 7)
          assert.strictEqual(new Date(Date.UTC(got.year, got.month - 1, got.day)).getUTCDay(), weekday)
        })
      )
    })
  })

  describe("calendar_slot", () => {
    const slot = field("calendar_slot")
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["next Tuesday at ten a m", "2026-09-08T10:00"],
      ["next Tuesday at 10am", "2026-09-08T10:00"],
      ["tomorrow at 10:30 pm", "2026-09-02T22:30"],
      ["tomorrow at 10:30 p.m.", "2026-09-02T22:30"],
      ["tomorrow at 10.30pm", "2026-09-02T22:30"],
      ["Tuesday at 10 o'clock", "2026-09-08T10:00"],
      ["tomorrow morning at nine", "2026-09-02T09:00"],
      ["Friday at noon", "2026-09-04T12:00"],
      ["Friday at midnight", "2026-09-04T00:00"],
      ["March third twenty twenty seven at ten thirty a m", "2027-03-03T10:30"],
      ["at 3 pm on March 3rd 2027", "2027-03-03T15:00"],
      ["2027-03-03 14:30", "2027-03-03T14:30"],
      ["3/3/2027 at 9", "2027-03-03T09:00"],
      ["Thursday at three", "2026-09-03T15:00"],
      ["Thursday at three o'clock", "2026-09-03T15:00"],
      ["Thursday, half past three", "2026-09-03T15:30"],
      ["Thursday quarter to ten in the morning", "2026-09-03T09:45"],
      ["Thursday at seven oh five in the evening", "2026-09-03T19:05"],
      ["twelve thirty p m tomorrow", "2026-09-02T12:30"],
      ["12 am tomorrow", "2026-09-02T00:00"],
      ["tomorrow at eight at night", "2026-09-02T20:00"],
      ["the 5th of October at 11 a.m.", "2026-10-05T11:00"]
    ]
    for (const [utterance, expected] of cases) {
      it(`reads ${JSON.stringify(utterance)} as ${expected}`, () => {
        assert.strictEqual(value(slot, utterance), expected)
      })
    }

    it("needs a time and a date", () => {
      assert.strictEqual(failure(slot, "next Tuesday"), "no-value")
      assert.strictEqual(failure(slot, "at ten a m"), "no-value")
      assert.strictEqual(failure(slot, "whenever suits you"), "no-value")
    })

    it("rejects impossible times and dates", () => {
      assert.strictEqual(failure(slot, "tomorrow at 25:00"), "out-of-range")
      assert.strictEqual(failure(slot, "tomorrow at 13 pm"), "out-of-range")
      assert.strictEqual(failure(slot, "February 30 at 10am"), "out-of-range")
    })

    it("reads every time of day in digits", () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), (hour, minute) => {
          const h12 = hour % 12 === 0 ? 12 : hour % 12
          const mm = String(minute).padStart(2, "0")
          const expected = `2026-09-02T${String(hour).padStart(2, "0")}:${mm}`
          assert.strictEqual(value(slot, `tomorrow at ${h12}:${mm} ${hour < 12 ? "am" : "pm"}`), expected)
          assert.strictEqual(value(slot, `tomorrow at ${hour}:${mm}`), expected)
        })
      )
    })
  })

  describe("failures", () => {
    it("carry the reason and the field's key in a one-sentence message", () => {
      const result = extract(field("integer", { key: "age" }), "no idea", context)
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) {
        assert.strictEqual(result.failure._tag, "ExtractionFailure")
        assert.strictEqual(result.failure.reason, "no-value")
        assert.strictEqual(result.failure.key, "age")
        assert.strictEqual(result.failure.message, `No number was found for field "age" in "no idea".`)
      }
    })

    it("never quote what was said for sensitive fields", () => {
      const secret = "my secret is 12345 and February 30 2027"
      for (
        const item of [
          field("cvv"),
          field("digit_sequence", { sensitive: true }),
          field("date", { sensitive: true }),
          field("integer", { sensitive: true }),
          field("text", { sensitive: true }),
          field("multiple_choice", { sensitive: true, choices: ["alpha", "beta"] })
        ]
      ) {
        for (const utterance of [secret, "", "alpha or beta", "3.5", "the ninth one"]) {
          const result = extract(item, utterance, context)
          if (Result.isSuccess(result)) continue
          const message = result.failure.message
          assert.notInclude(message, "12345")
          assert.notInclude(message, "secret")
          assert.notInclude(message, "2027")
          assert.notInclude(message, "3.5")
          assert.notInclude(message, "alpha")
          assert.match(message, /^[^.]*\.$/)
        }
      }
    })
  })
})
