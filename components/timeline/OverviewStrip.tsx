'use client';

import { useEffect, useMemo, useRef } from 'react';
import { KINDS, type PackedTimeline } from './packed';
import { PAD, prepareCanvas } from './draw';
import type { TurnView } from './scale';
import type { FrameQueue } from './frame-queue';

export const OVERVIEW_HEIGHT = 26;

/**
 * The overview strip (UI.md): the whole transcript as a minimap under the timeline, with a brush
 * over the zoomed window. Dragging the brush pans; pressing elsewhere centres the window there.
 * One silhouette column per pixel (the tallest bar it covers), so 100k turns cost the width.
 */
export function OverviewStrip({ packed, view, onView, width, dark, queue }: { packed: PackedTimeline; view: TurnView; onView: (v: TurnView) => void; width: number; dark: boolean; /** Paint in the chart's frame queue (a frame of its own), else in the next animation frame. */ queue?: FrameQueue }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const n = packed.count;
  const plotW = Math.max(1, width - PAD.left - PAD.right);
  const zoomed = n > 0 && (view.start > 0 || view.end < n - 1);

  // The silhouette depends on the series and the width only: computed once, not per view change
  // (a zoom or pan redraws the brush over it; 100k turns are scanned once per width).
  const silhouette = useMemo(() => overviewColumns(packed, Math.max(1, Math.floor(plotW))), [packed, plotW]);

  useEffect(() => {
    const c = canvas.current;
    if (!c || width === 0 || n === 0) return;
    const paint = () => {
      const g = prepareCanvas(c, width, OVERVIEW_HEIGHT);
      if (!g) return;
      const { tops, max } = silhouette;
      const columns = tops.length;
      const bandH = OVERVIEW_HEIGHT - 4;
      g.fillStyle = dark ? 'rgba(148,163,184,0.6)' : 'rgba(71,85,105,0.5)';
      const colW = plotW / columns;
      g.beginPath();
      for (let col = 0; col < columns; col++) {
        const bh = (tops[col] / max) * bandH;
        if (bh > 0) g.rect(PAD.left + col * colW, 2 + bandH - bh, Math.max(1, colW), bh);
      }
      g.fill();
      // The brush: the zoomed window; outside it dimmed.
      const x0 = PAD.left + (view.start / n) * plotW;
      const x1 = PAD.left + ((view.end + 1) / n) * plotW;
      g.fillStyle = dark ? 'rgba(11,15,20,0.45)' : 'rgba(255,255,255,0.45)';
      g.fillRect(PAD.left, 0, x0 - PAD.left, OVERVIEW_HEIGHT);
      g.fillRect(x1, 0, PAD.left + plotW - x1, OVERVIEW_HEIGHT);
      g.strokeStyle = '#3b82f6';
      g.lineWidth = 1.5;
      g.strokeRect(Math.round(x0) + 0.5, 1, Math.max(2, Math.round(x1 - x0) - 1), OVERVIEW_HEIGHT - 2);
    };
    if (queue) {
      queue.schedule('overview', [{ run: paint }]);
      return;
    }
    const frame = requestAnimationFrame(paint);
    return () => cancelAnimationFrame(frame);
  }, [silhouette, view, width, dark, n, plotW, queue]);

  /** Centre a window of the current width on the turn under client x. */
  const centreAt = (clientX: number, grabOffset: number) => {
    const rect = canvas.current!.getBoundingClientRect();
    const span = view.end - view.start + 1;
    const at = ((clientX - rect.left - PAD.left) / plotW) * n - grabOffset;
    const start = Math.min(Math.max(0, Math.round(at)), Math.max(0, n - span));
    onView({ start, end: start + span - 1 });
  };

  return (
    <canvas
      ref={canvas}
      data-testid="timeline-overview"
      aria-label={`Overview: turns ${view.start + 1} to ${view.end + 1} of ${n} shown. Drag to pan.`}
      role="img"
      style={{ width: '100%', height: OVERVIEW_HEIGHT }}
      className={`mt-1 block ${zoomed ? 'cursor-grab' : 'cursor-default'}`}
      onMouseDown={(e) => {
        if (e.button !== 0 || !zoomed) return;
        e.preventDefault();
        const rect = canvas.current!.getBoundingClientRect();
        const turnAt = ((e.clientX - rect.left - PAD.left) / plotW) * n;
        const span = view.end - view.start + 1;
        // Grab the brush where it was pressed; elsewhere, centre it on the pointer.
        const offset = turnAt >= view.start && turnAt <= view.end + 1 ? turnAt - view.start : span / 2;
        centreAt(e.clientX, offset);
        const move = (ev: MouseEvent) => centreAt(ev.clientX, offset);
        const up = () => {
          window.removeEventListener('mousemove', move);
          window.removeEventListener('mouseup', up);
        };
        window.addEventListener('mousemove', move);
        window.addEventListener('mouseup', up);
      }}
    />
  );
}

/** The tallest stack of each of `columns` equal slices of the series (one silhouette column per pixel). */
export function overviewColumns(packed: PackedTimeline, columns: number): { tops: Float64Array; max: number } {
  const n = packed.count;
  const tops = new Float64Array(columns);
  let max = 1;
  for (let col = 0; col < columns; col++) {
    const a = Math.floor((col * n) / columns);
    const b = Math.max(a, Math.floor(((col + 1) * n) / columns) - 1);
    let top = 0;
    for (let i = a; i <= b && i < n; i++) top = Math.max(top, packed.tops[i * KINDS + KINDS - 1]);
    tops[col] = top;
    max = Math.max(max, top);
  }
  return { tops, max };
}
