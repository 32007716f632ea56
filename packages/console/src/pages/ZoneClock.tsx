/**
 * The zone's current time and whether a calling window is open now, for the schedule being
 * edited (core's calling-window math, the same the dialer runs).
 */
import { isOpenAt, nextOpenAt } from "@voice-agent/core/CallingSchedule"
import type { CallingSchedule } from "@voice-agent/core/CallingSchedule"
import { isValidTimeZone } from "@voice-agent/core/Timezone"
import { useEffect, useState } from "preact/hooks"
import { dayTime, weekdayTime } from "../Format.ts"

const useNow = (everyMs: number): number => {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs)
    return () => clearInterval(timer)
  }, [everyMs])
  return now
}

export const ZoneClock = ({ schedule }: { readonly schedule: CallingSchedule }) => {
  const now = useNow(10_000)
  if (!isValidTimeZone(schedule.timeZone)) {
    return <p class="error" role="status">Unknown time zone: {schedule.timeZone}</p>
  }
  const validDates = /^\d{4}-\d{2}-\d{2}$/.test(schedule.startDate) &&
    (schedule.endDate === null || /^\d{4}-\d{2}-\d{2}$/.test(schedule.endDate))
  const open = validDates && isOpenAt(schedule, now)
  const next = validDates && !open ? nextOpenAt(schedule, now) : undefined
  return (
    <p class="zone-clock" role="status" aria-live="polite">
      Now in {schedule.timeZone}: <strong>{weekdayTime(now, schedule.timeZone)}</strong>. {open
        ? <span class="badge live" data-open="true">a calling window is open now</span>
        : (
          <span data-open="false">
            No calling window is open now
            {next === undefined ? " (none ahead)" : `; the next opens ${dayTime(next, schedule.timeZone)}`}.
          </span>
        )}
    </p>
  )
}
