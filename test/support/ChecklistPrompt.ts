/**
 * How the scripted models of the tests and benchmarks read the agent's prompt: the checklist
 * fields still to collect, in order, as `agents/dialogue/ModelPrompt` writes them
 * (`- [to collect] field "key" (type)… Ask: "question"`).
 */

/**
 * @category models
 */
export interface PendingField {
  readonly key: string
  readonly question: string
}

/**
 * @category getters
 */
export const fieldsToCollect = (prompt: string): ReadonlyArray<PendingField> =>
  [...prompt.matchAll(/- \[to collect\] field "([^"]+)"[^\n]*?Ask: "([^"]+)"/g)].map((match) => ({
    key: match[1]!,
    question: match[2]!
  }))
