/**
 * Create or edit a campaign: origin numbers from the organization's, calling windows in the
 * campaign's zone with that zone's clock, retry and concurrency settings. The API's `warning`
 * (a window outside 08:00–21:00) is shown after saving; its refusals are shown as it words them.
 */
import type { Campaign } from "@voice-agent/core/Campaign"
import { CampaignDefaults, CampaignLimits } from "@voice-agent/core/Campaign"
import { useMemo, useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"
import { browserZone } from "../Format.ts"
import { toFailure, useResource } from "../ui/Resource.ts"
import { FailureView, Show } from "../ui/States.tsx"
import { ZoneClock } from "./ZoneClock.tsx"

type DayOfWeek = 0 | 1 | 2 | 3 | 4 | 5 | 6

interface WindowDraft {
  readonly day: DayOfWeek
  readonly start_time: string
  readonly end_time: string
}

/** `HH:MM` in 24-hour time, `24:00` included (a window that runs to midnight). */
const timePattern = "([01][0-9]|2[0-3]):[0-5][0-9]|24:00"

const dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const

const weekdays = (): Array<WindowDraft> =>
  ([0, 1, 2, 3, 4] as const).map((day) => ({ day, start_time: "09:00", end_time: "17:00" }))

const todayIn = (zone: string): string => new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date())

const zones = (): ReadonlyArray<string> => {
  try {
    return Intl.supportedValuesOf("timeZone")
  } catch {
    return []
  }
}

/**
 * The saved campaign (with the API's warning, if any).
 */
export type Saved = Campaign

export const CampaignForm = (
  { campaign, onSaved }: { readonly campaign?: Campaign | undefined; readonly onSaved: (saved: Saved) => void }
) => {
  const numbers = useResource(() => run((client) => client.messages.phoneNumbers()), [])
  const initialZone = campaign?.timezone ?? browserZone()
  const [name, setName] = useState(campaign?.name ?? "")
  const [origins, setOrigins] = useState<ReadonlyArray<string>>(campaign?.origin_phone_numbers ?? [])
  const [timezone, setTimezone] = useState(initialZone)
  const [startDate, setStartDate] = useState(campaign?.start_date ?? todayIn(initialZone))
  const [endDate, setEndDate] = useState(campaign?.end_date ?? "")
  const [windows, setWindows] = useState<ReadonlyArray<WindowDraft>>(
    campaign?.calling_windows.map((w) => ({ ...w, day: w.day as DayOfWeek })) ?? weekdays()
  )
  const [maxAttempts, setMaxAttempts] = useState(String(campaign?.max_attempts ?? CampaignDefaults.maxAttempts))
  const [retryDelay, setRetryDelay] = useState(String(campaign?.retry_delay_s ?? CampaignDefaults.retryDelayS))
  const [maxConcurrency, setMaxConcurrency] = useState(
    String(campaign?.max_concurrency ?? CampaignDefaults.maxConcurrency)
  )
  const [description, setDescription] = useState(campaign?.description ?? "")
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const zoneList = useMemo(zones, [])

  const setWindow = (index: number, change: Partial<WindowDraft>) =>
    setWindows(windows.map((w, i) => (i === index ? { ...w, ...change } : w)))

  const submit = (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setFailure(undefined)
    const fields = {
      name: name.trim(),
      origin_phone_numbers: origins,
      start_date: startDate,
      calling_windows: windows,
      max_attempts: Number(maxAttempts),
      retry_delay_s: Number(retryDelay),
      max_concurrency: Number(maxConcurrency),
      timezone,
      description: description.trim() === "" ? null : description.trim()
    }
    const saved = campaign === undefined
      ? run((client) =>
        client.campaigns.create({ payload: { ...fields, ...(endDate === "" ? {} : { end_date: endDate }) } })
      )
      : run((client) =>
        client.campaigns.update({
          params: { campaign_code: campaign.campaign_code },
          payload: { ...fields, end_date: endDate === "" ? null : endDate }
        })
      )
    saved.then(
      (result) => {
        setBusy(false)
        onSaved(result)
      },
      (error: unknown) => {
        setBusy(false)
        setFailure(toFailure(error))
      }
    )
  }

  const schedule = { windows, timeZone: timezone, startDate, endDate: endDate === "" ? null : endDate }
  return (
    <form
      class="stack campaign-form"
      onSubmit={submit}
      aria-label={campaign === undefined ? "New campaign" : "Edit campaign"}
    >
      <label>
        Name
        <input
          name="name"
          required
          maxLength={CampaignLimits.nameMaxLength}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <fieldset>
        <legend>Call from</legend>
        <Show resource={numbers} loading="Loading your numbers…">
          {(list) =>
            list.length === 0
              ? <p class="muted">Your organization owns no number yet (the admin API adds them).</p>
              : (
                <div class="row">
                  {list.map((n) => (
                    <label class="inline" key={n.phone_number}>
                      <input
                        type="checkbox"
                        name="origin"
                        value={n.phone_number}
                        checked={origins.includes(n.phone_number)}
                        onChange={(e) =>
                          setOrigins(
                            e.currentTarget.checked
                              ? [...origins, n.phone_number]
                              : origins.filter((o) => o !== n.phone_number)
                          )}
                      />
                      <span class="mono">{n.phone_number}</span>
                    </label>
                  ))}
                </div>
              )}
        </Show>
      </fieldset>
      <fieldset class="windows">
        <legend>Calling windows</legend>
        <label>
          Time zone (windows and dates are in this zone)
          <input
            name="timezone"
            list="zones"
            required
            value={timezone}
            onInput={(e) => setTimezone(e.currentTarget.value)}
          />
          <datalist id="zones">
            {zoneList.map((z) => <option key={z} value={z} />)}
          </datalist>
        </label>
        <ZoneClock schedule={schedule} />
        {windows.map((w, i) => (
          <div class="window" key={i}>
            <label>
              Day
              <select
                name={`day-${i}`}
                value={w.day}
                onChange={(e) => setWindow(i, { day: Number(e.currentTarget.value) as DayOfWeek })}
              >
                {dayNames.map((d, index) => <option key={d} value={index}>{d}</option>)}
              </select>
            </label>
            <label>
              From (HH:MM)
              <input
                name={`start-${i}`}
                required
                inputMode="numeric"
                pattern={timePattern}
                title="24-hour time, 00:00 to 24:00"
                value={w.start_time}
                onInput={(e) => setWindow(i, { start_time: e.currentTarget.value })}
              />
            </label>
            <label>
              To (HH:MM)
              <input
                name={`end-${i}`}
                required
                inputMode="numeric"
                pattern={timePattern}
                title="24-hour time, 00:00 to 24:00"
                value={w.end_time}
                onInput={(e) => setWindow(i, { end_time: e.currentTarget.value })}
              />
            </label>
            <button
              type="button"
              aria-label={`Remove the ${dayNames[w.day]} window`}
              onClick={() => setWindows(windows.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </div>
        ))}
        <div class="actions">
          <button
            type="button"
            onClick={() => setWindows([...windows, { day: 0, start_time: "09:00", end_time: "17:00" }])}
          >
            Add a window
          </button>
        </div>
        <p class="muted">The recommended range is 08:00 to 21:00; windows outside it are accepted with a warning.</p>
      </fieldset>
      <div class="grid">
        <label>
          Start date
          <input
            type="date"
            name="start_date"
            required
            value={startDate}
            onInput={(e) => setStartDate(e.currentTarget.value)}
          />
        </label>
        <label>
          End date (optional)
          <input type="date" name="end_date" value={endDate} onInput={(e) => setEndDate(e.currentTarget.value)} />
        </label>
        <label>
          Attempts per contact
          <input
            type="number"
            name="max_attempts"
            min={1}
            max={CampaignLimits.maxAttempts}
            required
            value={maxAttempts}
            onInput={(e) => setMaxAttempts(e.currentTarget.value)}
          />
        </label>
        <label>
          Retry delay (seconds)
          <input
            type="number"
            name="retry_delay_s"
            min={CampaignLimits.retryDelayMinS}
            max={CampaignLimits.retryDelayMaxS}
            required
            value={retryDelay}
            onInput={(e) => setRetryDelay(e.currentTarget.value)}
          />
        </label>
        <label>
          Simultaneous calls
          <input
            type="number"
            name="max_concurrency"
            min={1}
            required
            value={maxConcurrency}
            onInput={(e) => setMaxConcurrency(e.currentTarget.value)}
          />
        </label>
      </div>
      <label>
        Description (optional)
        <textarea name="description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      {failure !== undefined && <FailureView failure={failure} />}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Saving…" : campaign === undefined ? "Create campaign" : "Save changes"}
        </button>
      </div>
    </form>
  )
}
