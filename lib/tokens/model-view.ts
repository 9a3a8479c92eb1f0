/**
 * What the model is sent beyond what the file holds, from the recorded usage (lib/tokens/calibration.ts):
 * the invisible overhead (system prompt, tool schemas the file does not store) and sven's calibration
 * factor (recorded / estimate, EMA α 0.2, clamped to [0.5, 3]). The model's prompt for a context of
 * `v` estimated tokens is `(v + overhead) × factor` (sven's effective_token_count with the overhead
 * inside the ratio, as calibrate() measures it). Without recorded usage: overhead 0, factor 1.
 */
export interface ModelView {
  overhead: number;
  factor: number;
  /** Mean |estimate − recorded| / recorded of the calibrated estimate over the recorded calls (undefined: no usage). */
  error?: number;
  calls: number;
}

export const NO_VIEW: ModelView = Object.freeze({ overhead: 0, factor: 1, calls: 0 });

/** Tokens the model is sent for a context the file counts as `fileTokens`. */
export function modelTokensOf(fileTokens: number, view: Pick<ModelView, 'overhead' | 'factor'>): number {
  return Math.round((fileTokens + view.overhead) * view.factor);
}

/**
 * The largest context (counted like `inspect`) whose model prompt stays within `modelTokens`:
 * floor(modelTokens / factor − overhead), at least 1. "Compact to the input budget" aims here.
 */
export function fileBudgetFor(modelTokens: number, view: Pick<ModelView, 'overhead' | 'factor'>): number {
  return Math.max(1, Math.floor(modelTokens / view.factor - view.overhead));
}
