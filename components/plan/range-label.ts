/** "Turns 3–9" (or "Calls …"): a selection, 0-based inclusive, as the Plan tab and the selection row name it. */
export function rangeLabel(selection: [number, number], axis: 'turns' | 'calls' = 'turns'): string {
  return `${axis === 'calls' ? 'Calls' : 'Turns'} ${selection[0] + 1}–${selection[1] + 1}`;
}
