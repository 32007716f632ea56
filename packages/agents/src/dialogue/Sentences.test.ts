import { describe, expect, it } from "vitest"
import * as Sentences from "./Sentences.ts"

const split = (pieces: ReadonlyArray<string>) => {
  let splitter = Sentences.empty
  const out: Array<string> = []
  for (const piece of pieces) {
    const pushed = Sentences.push(splitter, piece)
    splitter = pushed.splitter
    out.push(...pushed.sentences)
  }
  const rest = Sentences.flush(splitter)
  if (rest !== undefined) out.push(rest)
  return out
}

describe("Sentences", () => {
  it("cuts a sentence as soon as the space after its end arrives", () => {
    const first = Sentences.push(Sentences.empty, "Hello there! How")
    expect(first.sentences).toEqual(["Hello there!"])
    expect(first.splitter.pending).toBe(" How")
  })

  it("gives the same sentences however the text is chunked", () => {
    const text = "Thanks, Dr. Smith. Your total is 3.50 dollars? Yes… \"Great.\" Bye"
    const expected = ["Thanks, Dr. Smith.", "Your total is 3.50 dollars?", "Yes…", "\"Great.\"", "Bye"]
    expect(split([text])).toEqual(expected)
    expect(split(text.split(""))).toEqual(expected)
    expect(split([text.slice(0, 7), text.slice(7, 30), text.slice(30)])).toEqual(expected)
  })

  it("cuts at line breaks and drops empty sentences", () => {
    expect(split(["One\n\nTwo. ", " "])).toEqual(["One", "Two."])
  })
})
