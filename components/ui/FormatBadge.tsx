/** A small monogram per format family (the "icon" of the library's format column). */
const FAMILY: Array<{ test: RegExp; mark: string; color: string }> = [
  { test: /^claude-code/, mark: 'CC', color: '#d97757' },
  { test: /^codex/, mark: 'CX', color: '#0f172a' },
  { test: /^openai/, mark: 'OA', color: '#10a37f' },
  { test: /^anthropic/, mark: 'AN', color: '#b45309' },
  { test: /^gemini/, mark: 'GM', color: '#4285f4' },
  { test: /^openhands/, mark: 'OH', color: '#7c3aed' },
  { test: /swe-agent/, mark: 'SW', color: '#0891b2' },
  { test: /^inspect/, mark: 'IN', color: '#be123c' },
];

/** `labelClassName`: e.g. hide the label on narrow screens (the monogram stays, the label is its title). */
export function FormatBadge({ format, label, labelClassName = '' }: { format: string; label: string; labelClassName?: string }) {
  const fam = FAMILY.find((f) => f.test.test(format)) ?? { mark: format.slice(0, 2).toUpperCase(), color: '#525252' };
  return (
    <span className="inline-flex max-w-full items-center gap-1.5 whitespace-nowrap" title={label}>
      <span
        aria-hidden="true"
        className="inline-flex h-4 w-6 shrink-0 items-center justify-center rounded-sm text-[9px] font-bold tracking-tight text-white"
        style={{ backgroundColor: fam.color }}
      >
        {fam.mark}
      </span>
      <span className={`min-w-0 truncate ${labelClassName}`}>{label}</span>
    </span>
  );
}
