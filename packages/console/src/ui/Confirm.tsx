/**
 * A confirmation in a modal `<dialog>` (the browser keeps focus inside it and Escape cancels).
 */
import type { ComponentChildren } from "preact"
import { useEffect, useRef } from "preact/hooks"

export const Confirm = (
  { open, title, children, confirmLabel, onConfirm, onCancel }: {
    readonly open: boolean
    readonly title: string
    readonly children: ComponentChildren
    readonly confirmLabel: string
    readonly onConfirm: () => void
    readonly onCancel: () => void
  }
) => {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element === null) return
    if (open && !element.open) element.showModal()
    if (!open && element.open) element.close()
  }, [open])
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby="confirm-title" onClose={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div class="actions">
        <button type="button" onClick={onCancel}>Cancel</button>
        <button type="button" class="danger" onClick={onConfirm}>{confirmLabel}</button>
      </div>
    </dialog>
  )
}
