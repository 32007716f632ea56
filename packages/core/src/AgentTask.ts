/**
 * What a call must achieve, in the reference service's vocabulary (reference
 * the reference service's agent model, docs/AGENTS.md): a persona, and a task with an objective and a checklist of
 * action items: fields to collect (typed), statements to say verbatim, and to-dos. Schemas for
 * the wire shapes (snake_case, as the reference's SDK sends them in `set-task` and `set-persona`
 * and as agent definitions store them), and the values a collected field takes by type. Pure.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { CivilDate } from "./CalendarDate.ts"

/**
 * The field types of the reference.
 *
 * @category schemas
 */
export const FieldType = Schema.Literals([
  "text",
  "date",
  "integer",
  "multiple_choice",
  "calendar_slot",
  "digit_sequence",
  "cvv"
])

/**
 * @category models
 */
export type FieldType = typeof FieldType.Type

/**
 * A field to collect. `question` is what the agent asks; `choices` are the answers a
 * `multiple_choice` field accepts; `sensitive` values (and every `cvv`) are never written to
 * transcripts or logs in clear.
 *
 * @category schemas
 */
export const FieldItem = Schema.Struct({
  item_type: Schema.Literal("field"),
  key: Schema.NonEmptyString,
  description: Schema.optionalKey(Schema.String),
  question: Schema.optionalKey(Schema.String),
  field_type: FieldType,
  required: Schema.optionalKey(Schema.Boolean),
  choices: Schema.optionalKey(Schema.Array(Schema.String)),
  is_search_field: Schema.optionalKey(Schema.Boolean),
  sensitive: Schema.optionalKey(Schema.Boolean)
})

/**
 * @category models
 */
export type FieldItem = typeof FieldItem.Type

/**
 * A statement to say verbatim.
 *
 * @category schemas
 */
export const SayItem = Schema.Struct({
  item_type: Schema.Literal("say"),
  key: Schema.NonEmptyString,
  statement: Schema.String
})

/**
 * @category models
 */
export type SayItem = typeof SayItem.Type

/**
 * Something to get done, described for a language model (the deterministic policy marks it
 * done when it reaches it).
 *
 * @category schemas
 */
export const TodoItem = Schema.Struct({
  item_type: Schema.Literal("todo"),
  key: Schema.NonEmptyString,
  description: Schema.String
})

/**
 * @category models
 */
export type TodoItem = typeof TodoItem.Type

/**
 * @category schemas
 */
export const ActionItem = Schema.Union([FieldItem, SayItem, TodoItem])

/**
 * @category models
 */
export type ActionItem = typeof ActionItem.Type

/**
 * A task: its objective, when it is complete (free text for a model), and its checklist in
 * order.
 *
 * @category schemas
 */
export const Task = Schema.Struct({
  task_id: Schema.optionalKey(Schema.String),
  objective: Schema.String,
  completion_criteria: Schema.optionalKey(Schema.NullOr(Schema.String)),
  action_items: Schema.Array(ActionItem)
})

/**
 * @category models
 */
export type Task = typeof Task.Type

/**
 * Who the agent is (all optional, as in `set-persona`).
 *
 * @category schemas
 */
export const Persona = Schema.Struct({
  agent_name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  organization_name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  agent_purpose: Schema.optionalKey(Schema.NullOr(Schema.String)),
  voice: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * @category models
 */
export type Persona = typeof Persona.Type

/**
 * A collected value, by field type as the reference returns them: text and digit sequences as
 * strings, integers as numbers, dates as `{year, month, day}`, a choice as the choice's text,
 * a calendar slot as `"YYYY-MM-DDTHH:MM"` (local to the call's timezone), a cvv as its digits.
 *
 * @category models
 */
export type FieldValue = string | number | CivilDate

/**
 * Whether a field's value must be kept out of transcripts and logs.
 *
 * @category guards
 */
export const isSensitive = (field: FieldItem): boolean => field.sensitive === true || field.field_type === "cvv"
