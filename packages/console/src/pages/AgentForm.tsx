/**
 * An agent definition's editor: name, persona, and the task with its checklist (fields with
 * their type and choices, statements to say, to-dos), plus the optional language and providers.
 */
import type { AgentResource } from "@voice-agent/core/AgentDefinition"
import type { ActionItem, FieldType } from "@voice-agent/core/AgentTask"
import { useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"
import { toFailure } from "../ui/Resource.ts"
import { FailureView } from "../ui/States.tsx"

const fieldTypes: ReadonlyArray<FieldType> = [
  "text",
  "integer",
  "date",
  "multiple_choice",
  "calendar_slot",
  "digit_sequence",
  "cvv"
]

interface ItemDraft {
  readonly item_type: "field" | "say" | "todo"
  readonly key: string
  readonly description: string
  readonly question: string
  readonly field_type: FieldType
  readonly required: boolean
  readonly choices: string
  readonly statement: string
}

const blankItem: ItemDraft = {
  item_type: "field",
  key: "",
  description: "",
  question: "",
  field_type: "text",
  required: true,
  choices: "",
  statement: ""
}

const toDraft = (item: ActionItem): ItemDraft => {
  switch (item.item_type) {
    case "field":
      return {
        ...blankItem,
        key: item.key,
        description: item.description ?? "",
        question: item.question ?? "",
        field_type: item.field_type,
        required: item.required ?? false,
        choices: (item.choices ?? []).join(", ")
      }
    case "say":
      return { ...blankItem, item_type: "say", key: item.key, statement: item.statement }
    case "todo":
      return { ...blankItem, item_type: "todo", key: item.key, description: item.description }
  }
}

const toItem = (draft: ItemDraft): ActionItem => {
  switch (draft.item_type) {
    case "field": {
      const choices = draft.choices.split(",").map((c) => c.trim()).filter((c) => c !== "")
      return {
        item_type: "field",
        key: draft.key.trim(),
        field_type: draft.field_type,
        required: draft.required,
        ...(draft.description.trim() === "" ? {} : { description: draft.description.trim() }),
        ...(draft.question.trim() === "" ? {} : { question: draft.question.trim() }),
        ...(draft.field_type === "multiple_choice" ? { choices } : {})
      }
    }
    case "say":
      return { item_type: "say", key: draft.key.trim(), statement: draft.statement }
    case "todo":
      return { item_type: "todo", key: draft.key.trim(), description: draft.description }
  }
}

const orNull = (s: string): string | null => (s.trim() === "" ? null : s.trim())

const Item = (
  { index, item, onChange, onRemove }: {
    readonly index: number
    readonly item: ItemDraft
    readonly onChange: (item: ItemDraft) => void
    readonly onRemove: () => void
  }
) => {
  const text = (name: keyof ItemDraft, label: string) => (
    <label>
      {label}
      <input
        name={`item-${index}-${name}`}
        value={String(item[name])}
        onInput={(e) => onChange({ ...item, [name]: e.currentTarget.value })}
      />
    </label>
  )
  return (
    <div class="item" role="group" aria-label={`Item ${index + 1}`}>
      <label>
        Kind
        <select
          name={`item-${index}-kind`}
          value={item.item_type}
          onChange={(e) => onChange({ ...item, item_type: e.currentTarget.value as ItemDraft["item_type"] })}
        >
          <option value="field">Field to collect</option>
          <option value="say">Statement to say</option>
          <option value="todo">To-do</option>
        </select>
      </label>
      {text("key", "Key")}
      {item.item_type === "field" && (
        <>
          {text("question", "Question")}
          {text("description", "Description")}
          <label>
            Type
            <select
              name={`item-${index}-field_type`}
              value={item.field_type}
              onChange={(e) => onChange({ ...item, field_type: e.currentTarget.value as FieldType })}
            >
              {fieldTypes.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          </label>
          {item.field_type === "multiple_choice" && text("choices", "Choices (comma-separated)")}
          <label class="inline">
            <input
              type="checkbox"
              name={`item-${index}-required`}
              checked={item.required}
              onChange={(e) => onChange({ ...item, required: e.currentTarget.checked })}
            />
            Required
          </label>
        </>
      )}
      {item.item_type === "say" && text("statement", "Statement")}
      {item.item_type === "todo" && text("description", "Description")}
      <button type="button" onClick={onRemove} aria-label={`Remove item ${index + 1}`}>Remove</button>
    </div>
  )
}

export const AgentForm = (
  { agent, onSaved }: { readonly agent?: AgentResource | undefined; readonly onSaved: (agent: AgentResource) => void }
) => {
  const [name, setName] = useState(agent?.name ?? "")
  const [persona, setPersona] = useState({
    agent_name: agent?.persona.agent_name ?? "",
    organization_name: agent?.persona.organization_name ?? "",
    agent_purpose: agent?.persona.agent_purpose ?? "",
    voice: agent?.persona.voice ?? ""
  })
  const [objective, setObjective] = useState(agent?.task.objective ?? "")
  const [criteria, setCriteria] = useState(agent?.task.completion_criteria ?? "")
  const [items, setItems] = useState<ReadonlyArray<ItemDraft>>(agent?.task.action_items.map(toDraft) ?? [blankItem])
  const [instructions, setInstructions] = useState(agent?.instructions ?? "")
  const [language, setLanguage] = useState(agent?.language ?? "")
  const [providers, setProviders] = useState({ llm: agent?.llm ?? "", stt: agent?.stt ?? "", tts: agent?.tts ?? "" })
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const [busy, setBusy] = useState(false)

  const submit = (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setFailure(undefined)
    const body = {
      name: name.trim(),
      persona: {
        agent_name: orNull(persona.agent_name),
        organization_name: orNull(persona.organization_name),
        agent_purpose: orNull(persona.agent_purpose),
        voice: orNull(persona.voice)
      },
      task: { objective, completion_criteria: orNull(criteria), action_items: items.map(toItem) },
      instructions: orNull(instructions),
      language: orNull(language),
      llm: orNull(providers.llm),
      stt: orNull(providers.stt),
      tts: orNull(providers.tts)
    }
    const saved = agent === undefined
      ? run((client) => client.agents.create({ payload: body }))
      : run((client) => client.agents.update({ params: { agent_id: agent.id }, payload: body }))
    saved.then(
      (result) => {
        setBusy(false)
        onSaved(result)
      },
      (e: unknown) => {
        setBusy(false)
        setFailure(toFailure(e))
      }
    )
  }

  const personaField = (key: keyof typeof persona, label: string) => (
    <label>
      {label}
      <input
        name={`persona-${key}`}
        value={persona[key]}
        onInput={(e) => setPersona({ ...persona, [key]: e.currentTarget.value })}
      />
    </label>
  )
  return (
    <form class="stack agent-form" onSubmit={submit} aria-label={agent === undefined ? "New agent" : "Edit agent"}>
      <label>
        Name
        <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <fieldset>
        <legend>Persona</legend>
        <div class="grid">
          {personaField("agent_name", "Agent's name")}
          {personaField("organization_name", "Organization")}
          {personaField("agent_purpose", "Purpose")}
          {personaField("voice", "Voice")}
        </div>
      </fieldset>
      <fieldset class="items">
        <legend>Task</legend>
        <label>
          Objective
          <textarea name="objective" required value={objective} onInput={(e) => setObjective(e.currentTarget.value)} />
        </label>
        <label>
          Complete when (optional)
          <input name="completion_criteria" value={criteria} onInput={(e) => setCriteria(e.currentTarget.value)} />
        </label>
        <h3>Checklist</h3>
        {items.map((item, i) => (
          <Item
            key={i}
            index={i}
            item={item}
            onChange={(changed) => setItems(items.map((it, j) => (j === i ? changed : it)))}
            onRemove={() => setItems(items.filter((_, j) => j !== i))}
          />
        ))}
        <button type="button" onClick={() => setItems([...items, blankItem])}>Add an item</button>
      </fieldset>
      <fieldset>
        <legend>Language model (optional)</legend>
        <label>
          Instructions
          <textarea name="instructions" value={instructions} onInput={(e) => setInstructions(e.currentTarget.value)} />
        </label>
        <div class="grid">
          <label>
            Language
            <input
              name="language"
              placeholder="en-US"
              value={language}
              onInput={(e) => setLanguage(e.currentTarget.value)}
            />
          </label>
          {(["llm", "stt", "tts"] as const).map((kind) => (
            <label key={kind}>
              {kind.toUpperCase()} provider
              <input
                name={kind}
                placeholder="none: the deterministic policy"
                value={providers[kind]}
                onInput={(e) => setProviders({ ...providers, [kind]: e.currentTarget.value })}
              />
            </label>
          ))}
        </div>
      </fieldset>
      {failure !== undefined && <FailureView failure={failure} />}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Saving…" : agent === undefined ? "Create agent" : "Save changes"}
        </button>
      </div>
    </form>
  )
}
