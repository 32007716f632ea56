/**
 * Inbound SMS per number (oldest first, as the API lists them; more loaded with its inclusive
 * `start`, deduplicated by id) and sending one.
 */
import { Result } from "effect"
import { useEffect, useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"
import { browserZone, dateTime } from "../Format.ts"
import * as Phone from "../Phone.ts"
import { navigate } from "../Router.ts"
import { toFailure, useResource } from "../ui/Resource.ts"
import { Empty, FailureView, Show } from "../ui/States.tsx"

interface Message {
  readonly id: string
  readonly from_number: string
  readonly content: string
  readonly received_at: string
}

const Inbox = ({ number }: { readonly number: string }) => {
  const [messages, setMessages] = useState<ReadonlyArray<Message>>([])
  const [start, setStart] = useState<string | undefined>(undefined)
  const page = useResource(
    () =>
      run((client) =>
        client.messages.list({
          query: { to_number: Phone.fromApi(number), limit: "100", ...(start === undefined ? {} : { start }) }
        })
      ),
    [number, start],
    5000
  )
  useEffect(() => {
    if (page.state !== "ready") return
    setMessages((known) => {
      const seen = new Set(known.map((m) => m.id))
      return [...known, ...page.value.messages.filter((m) => !seen.has(m.id))]
    })
  }, [page])
  const hasMore = page.state === "ready" && page.value.has_more
  return (
    <Show resource={page} loading="Loading messages…">
      {() => (
        <>
          {messages.length === 0
            ? <Empty>No message received on {number} yet.</Empty>
            : (
              <div class="table-wrap">
                <table class="messages">
                  <thead>
                    <tr>
                      <th>Received ({browserZone()})</th>
                      <th>From</th>
                      <th>Message</th>
                    </tr>
                  </thead>
                  <tbody>
                    {messages.map((m) => (
                      <tr key={m.id}>
                        <td>{dateTime(m.received_at).replace(` ${browserZone()}`, "")}</td>
                        <td class="mono">{m.from_number}</td>
                        <td>{m.content}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          {hasMore && (
            <div class="actions">
              <button type="button" onClick={() => setStart(messages.at(-1)?.received_at)}>Load more</button>
            </div>
          )}
        </>
      )}
    </Show>
  )
}

const Send = ({ numbers }: { readonly numbers: ReadonlyArray<{ phone_number: string; sms_enabled: boolean }> }) => {
  const senders = numbers.filter((n) => n.sms_enabled)
  const [from, setFrom] = useState(senders[0]?.phone_number ?? "")
  const [to, setTo] = useState("")
  const [text, setText] = useState("")
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const [sent, setSent] = useState<string | undefined>(undefined)
  const submit = (event: Event) => {
    event.preventDefault()
    setFailure(undefined)
    setSent(undefined)
    const recipient = Phone.parse(to)
    if (Result.isFailure(recipient)) {
      return setFailure({ _tag: "Refused", status: 422, message: `To: ${recipient.failure}` })
    }
    run((client) =>
      client.sms.send({ payload: { from_number: Phone.fromApi(from), to_number: recipient.success, message: text } })
    ).then(
      (answer) => {
        setSent(`Sent to ${recipient.success}: ${answer.status}`)
        setText("")
      },
      (e: unknown) => setFailure(toFailure(e))
    )
  }
  return (
    <form class="stack" onSubmit={submit} aria-label="Send an SMS">
      <div class="grid">
        <label>
          From
          <select name="from_number" value={from} onChange={(e) => setFrom(e.currentTarget.value)}>
            {senders.map((n) => <option key={n.phone_number} value={n.phone_number}>{n.phone_number}</option>)}
          </select>
        </label>
        <label>
          To
          <input
            name="to_number"
            required
            placeholder="+12025550123"
            value={to}
            onInput={(e) => setTo(e.currentTarget.value)}
          />
        </label>
      </div>
      <label>
        Message
        <textarea name="message" required value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      {failure !== undefined && <FailureView failure={failure} />}
      {sent !== undefined && <p class="notice success" role="status">{sent}</p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={senders.length === 0}>Send SMS</button>
      </div>
    </form>
  )
}

export const Messages = ({ query }: { readonly query: URLSearchParams }) => {
  const numbers = useResource(() => run((client) => client.messages.phoneNumbers()), [])
  return (
    <section aria-labelledby="messages-title">
      <h1 id="messages-title">Messages</h1>
      <Show resource={numbers} loading="Loading your numbers…">
        {(list) => {
          if (list.length === 0) return <Empty>Your organization owns no number yet.</Empty>
          const number = query.get("number") ?? list[0]!.phone_number
          return (
            <>
              <div class="card">
                <label>
                  Number
                  <select
                    name="number"
                    value={number}
                    onChange={(e) => navigate(["messages"], { number: e.currentTarget.value })}
                  >
                    {list.map((n) => <option key={n.phone_number} value={n.phone_number}>{n.phone_number}</option>)}
                  </select>
                </label>
                <h2>Received</h2>
                <Inbox key={number} number={number} />
              </div>
              <div class="card">
                <h2>Send an SMS</h2>
                <Send numbers={list} />
              </div>
            </>
          )
        }}
      </Show>
    </section>
  )
}
