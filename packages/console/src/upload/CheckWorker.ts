/**
 * Reads and checks a contacts file off the page's thread (core's ContactFile, the same rules as
 * the terminal and the API): the file's bytes are streamed, decoded as UTF-8 and fed to the
 * reader piece by piece, with progress after each piece, so a 100,000-row file never holds up
 * the page.
 */
import * as ContactFile from "@voice-agent/core/ContactFile"
import { Result } from "effect"
import type { CheckReply, CheckRequest } from "./Messages.ts"

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<CheckRequest>) => void) | null
  postMessage: (reply: CheckReply) => void
}

const malformed = (error: ContactFile.ContactFileError): CheckReply => ({
  _tag: "Malformed",
  row: error.row,
  message: error.message
})

const check = async ({ allowDuplicates, file }: CheckRequest): Promise<CheckReply> => {
  const kind = ContactFile.kindOfFileName(file.name)
  if (kind === undefined) {
    return { _tag: "Malformed", row: null, message: "Choose a .csv, .json or .jsonl file" }
  }
  const read = ContactFile.reader(kind, { allowDuplicates })
  const decoder = new TextDecoder("utf-8")
  const pieces = file.stream().getReader()
  let bytes = 0
  for (;;) {
    const { done, value } = await pieces.read()
    const written = read.write(done ? decoder.decode() : decoder.decode(value, { stream: true }))
    if (Result.isFailure(written)) return malformed(written.failure)
    if (done) break
    bytes += value.length
    scope.postMessage({ _tag: "Progress", bytes, rows: read.rows() })
  }
  const checked = read.end()
  return Result.isFailure(checked) ? malformed(checked.failure) : { _tag: "Checked", file: checked.success }
}

scope.onmessage = (event) => {
  void check(event.data).then(
    scope.postMessage,
    (error: unknown) =>
      scope.postMessage({ _tag: "Malformed", row: null, message: `The file could not be read: ${String(error)}` })
  )
}
