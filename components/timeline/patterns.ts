/**
 * Fate patterns for the canvas (UI.md: fates change the fill, not the hue, and read without
 * colour): kept = solid, stubbed = hatched, truncated = partly filled, removed = outline only,
 * deduplicated = dotted outline, summarized = cross-hatched in the summary teal.
 */
import type { SavedFate } from '@/lib/engine/preview';

export const FATE_STYLE: Record<SavedFate | 'kept', { label: string; description: string }> = {
  kept: { label: 'Kept', description: 'solid' },
  stubbed: { label: 'Stubbed', description: 'hatched' },
  truncated: { label: 'Truncated', description: 'partly filled' },
  removed: { label: 'Removed', description: 'outline' },
  deduped: { label: 'Deduplicated', description: 'dotted outline' },
  summarized: { label: 'Summarized', description: 'cross-hatched' },
};

const cache = new Map<string, CanvasPattern | null>();

function hatch(g: CanvasRenderingContext2D, color: string, cross: boolean, dpr: number): CanvasPattern | null {
  const key = `${color}|${cross}|${dpr}`;
  if (cache.has(key)) return cache.get(key)!;
  const size = Math.round(6 * dpr);
  const c = document.createElement('canvas');
  c.width = size;
  c.height = size;
  const p = c.getContext('2d');
  if (!p) return null;
  p.strokeStyle = color;
  p.lineWidth = Math.max(1, dpr);
  p.beginPath();
  p.moveTo(0, size);
  p.lineTo(size, 0);
  p.moveTo(-size / 2, size / 2);
  p.lineTo(size / 2, -size / 2);
  p.moveTo(size / 2, size * 1.5);
  p.lineTo(size * 1.5, size / 2);
  if (cross) {
    p.moveTo(0, 0);
    p.lineTo(size, size);
  }
  p.stroke();
  const pattern = g.createPattern(c, 'repeat');
  // Patterns are drawn in device pixels; undo the context's dpr scale so the hatch stays crisp.
  pattern?.setTransform(new DOMMatrix().scale(1 / dpr, 1 / dpr));
  cache.set(key, pattern);
  return pattern;
}

/** Draw one fate segment [x, y, w, h] of what compaction took out. */
export function drawFateSegment(g: CanvasRenderingContext2D, fate: SavedFate, x: number, y: number, w: number, h: number, ink: string, teal: string, dpr: number): void {
  if (h <= 0 || w <= 0) return;
  const thin = w < 3;
  g.save();
  switch (fate) {
    case 'stubbed':
      g.fillStyle = thin ? withAlpha(ink, 0.35) : hatch(g, withAlpha(ink, 0.75), false, dpr) ?? withAlpha(ink, 0.35);
      g.fillRect(x, y, w, h);
      break;
    case 'truncated':
      g.fillStyle = withAlpha(ink, 0.22);
      g.fillRect(x, y, w, h);
      g.fillStyle = withAlpha(ink, 0.55);
      g.fillRect(x, y + h * 0.5, w, h * 0.5);
      break;
    case 'removed':
      if (thin) {
        g.fillStyle = withAlpha(ink, 0.12);
        g.fillRect(x, y, w, h);
      } else {
        g.strokeStyle = withAlpha(ink, 0.75);
        g.lineWidth = 1;
        g.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
      }
      break;
    case 'deduped':
      if (thin) {
        g.fillStyle = withAlpha(ink, 0.18);
        g.fillRect(x, y, w, h);
      } else {
        g.strokeStyle = withAlpha(ink, 0.8);
        g.setLineDash([1.5, 2]);
        g.lineWidth = 1;
        g.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
      }
      break;
    case 'summarized':
      g.fillStyle = thin ? withAlpha(teal, 0.4) : hatch(g, withAlpha(teal, 0.9), true, dpr) ?? withAlpha(teal, 0.4);
      g.fillRect(x, y, w, h);
      break;
  }
  g.restore();
}

/** '#rrggbb' + alpha → rgba(). */
export function withAlpha(hex: string, alpha: number): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) return hex;
  return `rgba(${parseInt(m[1], 16)},${parseInt(m[2], 16)},${parseInt(m[3], 16)},${alpha})`;
}

/** A small swatch of a fate pattern for legends (SVG, so it needs no canvas). */
export function fateSwatchStyle(fate: SavedFate | 'kept'): React.CSSProperties {
  switch (fate) {
    case 'kept':
      return { background: 'currentColor' };
    case 'stubbed':
      return { backgroundImage: 'repeating-linear-gradient(135deg, currentColor 0 1px, transparent 1px 4px)', outline: '1px solid transparent' };
    case 'truncated':
      return { background: 'linear-gradient(to top, currentColor 50%, color-mix(in srgb, currentColor 25%, transparent) 50%)' };
    case 'removed':
      return { border: '1px solid currentColor' };
    case 'deduped':
      return { border: '1px dotted currentColor' };
    case 'summarized':
      return {
        color: '#14b8a6',
        backgroundImage: 'repeating-linear-gradient(135deg, currentColor 0 1px, transparent 1px 4px), repeating-linear-gradient(45deg, currentColor 0 1px, transparent 1px 4px)',
      };
  }
}
