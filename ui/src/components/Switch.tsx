/** An on/off switch (a checkbox with the switch role) with its accessible name and a title saying what on means. */
export function Switch({
  checked,
  disabled,
  label,
  title,
  onChange,
}: {
  checked: boolean;
  disabled: boolean;
  label: string;
  title: string;
  onChange: () => void;
}) {
  return (
    <label className="switch" title={title}>
      <input
        type="checkbox"
        role="switch"
        checked={checked}
        disabled={disabled}
        onChange={onChange}
        aria-label={label}
      />
      <span className="switch-track" aria-hidden="true" />
    </label>
  );
}
