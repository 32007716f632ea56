/**
 * A task's checklist: `Field`s to collect, `Say`s to speak, and plain strings as to-dos, in the
 * order the agent should work through them.
 *
 * ```ts
 * call.setTask("book", {
 *   objective: "Book a cleaning",
 *   checklist: [
 *     new Say("Hi, this is Riley from Acme Dental."),
 *     new Field({ key: "name", question: "May I have your full name?" }),
 *     new Field({ key: "slot", fieldType: "multiple_choice", choices: ["morning", "afternoon"] }),
 *     "Confirm the booking back to them"
 *   ]
 * })
 * ```
 *
 * Collected values (`call.getField(key)`) by `fieldType`: `text`, `digit_sequence`, `cvv` → a
 * string; `integer` → a number; `date` → `{year, month, day}`; `multiple_choice` → one of the
 * choices; `calendar_slot` → `"YYYY-MM-DDTHH:MM"`.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import type { ActionItem, FieldItem, FieldType, SayItem } from "./Commands.ts"

export interface FieldOptions {
  /** The name the value is stored under (`call.getField(key)`). */
  readonly key: string
  /** What to collect, for the agent, when the wording of the question does not matter. */
  readonly description?: string
  /** How to ask, when it does. */
  readonly question?: string
  /** Default `text`. */
  readonly fieldType?: FieldType
  /** Default true; false lets the agent skip the field when the caller will not give it. */
  readonly required?: boolean
  /** The options of a `multiple_choice` or `calendar_slot` field (slots as `YYYY-MM-DDTHH:MM`). */
  readonly choices?: ReadonlyArray<string>
  /** The choices come from `agent.onSearchQuery(key, …)` (preview in the reference SDK). */
  readonly searchable?: boolean
  /** The value is sensitive (kept out of logs and transcripts by the server). */
  readonly sensitive?: boolean
}

const slotPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/

/** A value for the agent to collect. Throws `TypeError` on choices a field type does not take. */
export class Field {
  readonly key: string
  readonly description: string
  readonly question: string
  readonly fieldType: FieldType
  readonly required: boolean
  readonly choices: ReadonlyArray<string>
  readonly searchable: boolean
  readonly sensitive: boolean

  constructor(options: FieldOptions) {
    if (options.key === "") throw new TypeError("A field needs a key")
    this.key = options.key
    this.description = options.description ?? ""
    this.question = options.question ?? ""
    this.fieldType = options.fieldType ?? "text"
    this.required = options.required ?? true
    this.choices = [...(options.choices ?? [])]
    this.searchable = options.searchable ?? false
    this.sensitive = options.sensitive ?? false
    const takesChoices = this.fieldType === "multiple_choice" || this.fieldType === "calendar_slot"
    if (this.choices.length > 0 && !takesChoices) {
      throw new TypeError(`Field ${this.key}: a ${this.fieldType} field takes no choices`)
    }
    if (this.fieldType === "calendar_slot") {
      const bad = this.choices.find((choice) => !slotPattern.test(choice) || Number.isNaN(Date.parse(choice)))
      if (bad !== undefined) throw new TypeError(`Field ${this.key}: ${JSON.stringify(bad)} is not YYYY-MM-DDTHH:MM`)
    }
  }

  toActionItem(): FieldItem {
    return {
      item_type: "field",
      key: this.key,
      description: this.description,
      question: this.question,
      field_type: this.fieldType,
      required: this.required,
      choices: this.choices,
      is_search_field: this.searchable,
      sensitive: this.sensitive
    }
  }
}

/** A random key for a `Say` or a to-do without one: 5 hex characters. */
export const randomKey = (): string => randomBytes(3).toString("hex").slice(0, 5)

/** A statement for the agent to say, close to verbatim. */
export class Say {
  readonly statement: string
  readonly key: string
  constructor(statement: string, key?: string) {
    this.statement = statement
    this.key = key === undefined || key === "" ? randomKey() : key
  }

  toActionItem(): SayItem {
    return { item_type: "say", statement: this.statement, key: this.key }
  }
}

/** A string is a to-do: something for the agent to do, in words. */
export type ChecklistItem = Field | Say | string

export const toActionItem = (item: ChecklistItem): ActionItem =>
  typeof item === "string" ? { item_type: "todo", key: randomKey(), description: item } : item.toActionItem()

/** A `date` field's value. */
export interface DateValue {
  readonly year: number
  readonly month: number
  readonly day: number
}

/** Whether a field value is a `date` field's `{year, month, day}`. */
export const isDateValue = (value: unknown): value is DateValue =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  ["year", "month", "day"].every((part) => Number.isInteger((value as Record<string, unknown>)[part]))
