/**
 * The timeline's canvases painted a piece per animation frame (issue 31: no main-thread task over
 * 50 ms while a session opens). Painting the three canvases and the overview in one frame — every
 * bar of the base layer, the compaction layer, the overview's silhouette, each canvas sized and
 * rasterized — was one task of 92–160 ms CPU at 1,000–10,000 turns. Here each canvas's draw is a
 * job of pieces (the base layer: its strips, then its margins); each frame runs every light piece
 * (the overlay: a selection, a hover) and at most one heavy piece, the others wait for the next
 * frames. A job scheduled again for the same canvas replaces the one waiting (the newest data
 * wins; the pieces already painted stay until theirs are painted again).
 */
export interface FramePiece {
  run: () => void;
  /** Light pieces (a few rects) run every frame beside the one heavy piece. */
  light?: boolean;
}

interface Job {
  pieces: FramePiece[];
  at: number;
  done?: () => void;
}

export interface FrameScheduler {
  request: (cb: () => void) => number;
  cancel: (handle: number) => void;
}

const browserFrames: FrameScheduler = {
  request: (cb) => requestAnimationFrame(cb),
  cancel: (h) => cancelAnimationFrame(h),
};

export class FrameQueue {
  private readonly jobs = new Map<string, Job>();
  private handle: number | null = null;
  /** Pieces run and frames used, for the tests (the work of one frame is what they judge). */
  readonly stats = { frames: 0, pieces: 0, heavyPerFrameMax: 0 };

  /** `order`: the canvases' keys, first served first among the heavy pieces. */
  constructor(
    private readonly order: readonly string[],
    private readonly frames: FrameScheduler = browserFrames,
  ) {}

  /** Paint `pieces` for `key` from the next frame on (replacing a job of `key` still waiting); `done` after the last. */
  schedule(key: string, pieces: FramePiece[], done?: () => void): void {
    if (!this.order.includes(key)) throw new Error(`FrameQueue: unknown canvas "${key}" (known: ${this.order.join(', ')})`);
    this.jobs.set(key, { pieces, at: 0, done });
    this.ensureFrame();
  }

  /** Drop the job of `key` (its canvas unmounts or its draw is no longer wanted). */
  cancel(key: string): void {
    this.jobs.delete(key);
    if (this.jobs.size === 0 && this.handle !== null) {
      this.frames.cancel(this.handle);
      this.handle = null;
    }
  }

  /** Whether `key` still has pieces to paint. */
  pending(key: string): boolean {
    return this.jobs.has(key);
  }

  /** Stop: nothing more is painted (the chart unmounts). */
  dispose(): void {
    this.jobs.clear();
    if (this.handle !== null) this.frames.cancel(this.handle);
    this.handle = null;
  }

  private ensureFrame(): void {
    if (this.handle === null) this.handle = this.frames.request(this.frame);
  }

  private readonly frame = (): void => {
    this.handle = null;
    this.stats.frames++;
    let heavy = 0;
    for (const key of this.order) {
      const job = this.jobs.get(key);
      if (!job) continue;
      // Light pieces first, as many as come; then one heavy piece in the whole frame.
      while (job.at < job.pieces.length && (job.pieces[job.at].light || heavy === 0)) {
        const piece = job.pieces[job.at++];
        if (!piece.light) heavy++;
        this.stats.pieces++;
        piece.run();
      }
      if (job.at >= job.pieces.length) {
        // A job scheduled anew while its pieces ran (from a piece's own code) is the new one: keep it.
        if (this.jobs.get(key) === job) this.jobs.delete(key);
        job.done?.();
      }
    }
    this.stats.heavyPerFrameMax = Math.max(this.stats.heavyPerFrameMax, heavy);
    if (this.jobs.size > 0) this.ensureFrame();
  };
}
