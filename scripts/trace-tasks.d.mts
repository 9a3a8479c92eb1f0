export const PHASE_MARK: string;
export interface TraceTask {
  phase: string;
  /** Start, on the trace's clock (µs). */
  ts: number;
  wallMs: number;
  /** The thread's CPU time in the task (the trace's tdur). */
  cpuMs: number;
}
export function pageThread(traceEvents: readonly unknown[]): string;
export function threadTasks(traceEvents: readonly unknown[], thread: string): Array<{ ts: number; wallMs: number; cpuMs: number | undefined }>;
export function judgeTrace(traceEvents: readonly unknown[], limits: { default: number; [phase: string]: number }): { thread: string; phases: string[]; tasks: TraceTask[]; long: TraceTask[] };
export function summarize(traceEvents: readonly unknown[], minMs: number): string;
