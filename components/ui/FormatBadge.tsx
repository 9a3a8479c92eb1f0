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

export function FormatBadge({ format, label }: { format: string; label: string }) {
  const fam = FAMILY.find((f) => f.test.test(format)) ?? { mark: format.slice(0, 2).toUpperCase(), color: '#525252' };
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap">
      <span
        aria-hidden="true"
        className="inline-flex h-4 w-6 items-center justify-center rounded-sm text-[9px] font-bold tracking-tight text-white"
        style={{ backgroundColor: fam.color }}
      >
        {fam.mark}
      </span>
      <span>{label}</span>
    </span>
  );
}
