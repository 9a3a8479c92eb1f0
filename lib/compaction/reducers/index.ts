/** The reducer registry: id → factory(options, env). One file per reducer (DESIGN.md). */
import { ReducerOptionError, type Reducer } from '../context';
import type { ReducerId, ReducerSpec } from '../types';
import { classifyTangents } from './classify-tangents';
import { dedupTools } from './dedup-tools';
import { emergency } from './emergency';
import { pruneTools } from './prune-tools';
import { slidingWindow } from './sliding-window';
import { stripAttachments } from './strip-attachments';
import { stripReasoning } from './strip-reasoning';
import { stripToolResults } from './strip-tool-results';
import { summarize, type SummarizeEnv } from './summarize';
import { toolHintsReducer } from './tool-hints';
import { toolRetention } from './tool-retention';
import { truncateToolResults } from './truncate-tool-results';

export type ReducerEnv = SummarizeEnv;

type Factory = (options: Record<string, unknown>, env: ReducerEnv) => Reducer;

export const REDUCERS: Readonly<Record<Exclude<ReducerId, 'auto'>, Factory>> = {
  'strip-reasoning': (o) => stripReasoning(o),
  'strip-tool-results': (o) => stripToolResults(o),
  'tool-retention': (o) => toolRetention(o),
  'dedup-tools': (o) => dedupTools(o),
  'tool-hints': (o) => toolHintsReducer(o),
  'strip-attachments': (o) => stripAttachments(o),
  'prune-tools': (o) => pruneTools(o),
  'truncate-tool-results': (o) => truncateToolResults(o),
  'sliding-window': (o) => slidingWindow(o),
  summarize: (o, env) => summarize(o, env),
  'classify-tangents': (o) => classifyTangents(o),
  emergency: (o) => emergency(o),
};

export const REDUCER_IDS = Object.keys(REDUCERS) as Array<Exclude<ReducerId, 'auto'>>;

export function isReducerId(id: string): id is ReducerId {
  return id === 'auto' || id in REDUCERS;
}

export function createReducer(spec: ReducerSpec, env: ReducerEnv = {}): Reducer {
  if (spec.id === 'auto') throw new Error('auto is a pipeline: run it with runAuto (pipeline.ts)');
  const factory = REDUCERS[spec.id];
  if (!factory) throw new Error(`Unknown reducer "${String(spec.id)}".`);
  try {
    return factory(spec.options ?? {}, env);
  } catch (e) {
    if (e instanceof ReducerOptionError && !e.reducer) throw new ReducerOptionError(e.option, e.expected, e.got, spec.id);
    throw e;
  }
}
