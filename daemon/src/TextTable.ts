/**
 * The human form of the campaign commands' answers: columns aligned under a header, and
 * `label  value` lines for one record.
 *
 * @since 0.1.0
 */
import { CliOutput } from "effect/cli"

const pad = (text: string, width: number): string =>
  text + " ".repeat(Math.max(0, width - CliOutput.displayWidth(text)))

/**
 * Rows under a header, each column as wide as its widest cell, two spaces apart; the last
 * column is not padded (no trailing blanks).
 *
 * @category encoding
 */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((title, column) =>
    Math.max(CliOutput.displayWidth(title), ...rows.map((row) => CliOutput.displayWidth(row[column] ?? "")))
  )
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, column) => (column === cells.length - 1 ? cell : pad(cell, widths[column]!))).join("  ")
  return [line(header), ...rows.map(line)].join("\n")
}

/**
 * `label  value` lines with the values aligned.
 *
 * @category encoding
 */
export const fields = (entries: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(...entries.map(([label]) => CliOutput.displayWidth(label)))
  return entries.map(([label, value]) => `${pad(label, width)}  ${value}`).join("\n")
}
