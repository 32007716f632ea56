/**
 * A secret shown once (a new API key, a webhook signing secret): the console keeps it nowhere.
 */
export const ShownOnce = ({ label, value }: { readonly label: string; readonly value: string }) => (
  <div class="secret" role="status">
    <strong>{label}</strong> (shown only now: copy it somewhere safe)
    <div>
      <code class="shown-once">{value}</code>{" "}
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard?.writeText(value).catch(() =>
            undefined
          )}
      >
        Copy
      </button>
    </div>
  </div>
)
