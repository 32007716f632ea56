/**
 * A webhook delivery's attempts, newest first, as the admin API lists them: when, the answer's
 * status or why it failed, and how long it took.
 */
import type { WebhookAttemptResource } from "@voice-agent/http/api/WebhooksApi"
import { dateTime } from "../Format.ts"

export const Attempts = ({ attempts }: { readonly attempts: ReadonlyArray<typeof WebhookAttemptResource.Type> }) =>
  attempts.length === 0 ? <span class="muted">not attempted yet</span> : (
    <ol class="attempts" reversed>
      {attempts.map((a) => (
        <li key={a.attempt} data-attempt={a.attempt}>
          {dateTime(a.attempted_datetime)}: {a.error_type === null
            ? <span class="badge">HTTP {a.response_status}</span>
            : <span class="badge failed">{a.error ?? a.error_type}</span>}
          {a.duration_ms !== null && <span class="muted">{` in ${a.duration_ms} ms`}</span>}
        </li>
      ))}
    </ol>
  )
