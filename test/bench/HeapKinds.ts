/**
 * What a heap holds, by kind: V8's heap snapshot counted by node type and name (a closure by its
 * function's name, an object by its constructor's; strings and heap numbers each as one kind),
 * and the difference between two snapshots per unit (per call, say). For `media-setup.ts --held
 * --kinds`: which objects a live call keeps (docs/PERFORMANCE.md, "A ninth machine").
 */
import * as fs from "node:fs"
import * as v8 from "node:v8"

/** Self size and count of each kind. */
export type Kinds = Map<string, { readonly bytes: number; readonly count: number }>

interface Snapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: Array<string>; readonly node_types: [Array<string>] } }
  readonly nodes: Array<number>
  readonly strings: Array<string>
}

const kindOf = (type: string, name: string): string =>
  type.endsWith("string") ? "string" : type === "number" ? "heap number" : `${type} ${name.slice(0, 60)}`

/** Writes a snapshot of this process's heap to `file` (counted later: counting makes objects). */
export const write = (file: string): void => void v8.writeHeapSnapshot(file)

/** Counts the snapshot in `file` by kind, and removes the file. */
export const count = (file: string): Kinds => {
  const snapshot = JSON.parse(fs.readFileSync(file, "utf8")) as Snapshot
  fs.rmSync(file)
  const fields = snapshot.snapshot.meta.node_fields
  const types = snapshot.snapshot.meta.node_types[0]
  const [type, name, size] = ["type", "name", "self_size"].map((field) => fields.indexOf(field)) as [
    number,
    number,
    number
  ]
  const kinds: Kinds = new Map()
  for (let at = 0; at < snapshot.nodes.length; at += fields.length) {
    const kind = kindOf(types[snapshot.nodes[at + type]!]!, snapshot.strings[snapshot.nodes[at + name]!]!)
    const seen = kinds.get(kind) ?? { bytes: 0, count: 0 }
    kinds.set(kind, { bytes: seen.bytes + snapshot.nodes[at + size]!, count: seen.count + 1 })
  }
  return kinds
}

/** The `top` kinds that `before` holds more of than `after`, per unit, as lines of text. */
export const growth = (before: Kinds, after: Kinds, units: number, top: number): Array<string> =>
  [...before]
    .map(([kind, { bytes, count }]) => {
      const then = after.get(kind) ?? { bytes: 0, count: 0 }
      return { kind, bytes: (bytes - then.bytes) / units, count: (count - then.count) / units }
    })
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top)
    .map(({ bytes, count, kind }) =>
      `${(bytes / 1024).toFixed(1).padStart(7)} KB ${count.toFixed(1).padStart(7)}  ${kind}`
    )
