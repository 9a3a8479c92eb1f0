/**
 * The compaction API in one import (engine, CLI, app):
 *   projectTranscript(log, steps, options) → Projection   (project.ts: the one pure function)
 *   lostIdentifiers(log, projection)                       (lost.ts: what was compacted out)
 *   buildAudit / summarizeProjection / formatReport        (audit.ts, report.ts)
 *   autoStages / runAuto                                   (pipeline.ts: the auto strategy)
 *   parseCompactionConfig / planToStep                     (config.ts: JP TOML, sven YAML)
 *   proposeTangents                                        (tangents.ts: heuristic classifier)
 *   REDUCER_IDS / createReducer / DEFAULT_TOOL_HINTS       (reducers/, hints.ts)
 */
export * from './types';
export { projectTranscript, cacheStablePrefix, resolveWindow, startingContext, coveredByMarkers, assertPairingPreserved, CompactionInvariantError, type ProjectOptions } from './project';
export { lostIdentifiers, extractIdentifiers, countByKind, type LostIdentifier, type LostKind } from './lost';
export { buildAudit, AUDIT_VERSION, type AuditRecord } from './audit';
export { summarizeProjection, formatReport, type CompactionSummary } from './report';
export { autoStages, runAuto, autoReducer, parseAutoOptions, type AutoOptions } from './pipeline';
export { parseCompactionConfig, parseJpToml, parseSvenYaml, planToStep, ConfigError, type CompactionPlan } from './config';
export { proposeTangents, type TangentProposal } from './tangents';
export { REDUCERS, REDUCER_IDS, createReducer, isReducerId } from './reducers';
export { DEFAULT_TOOL_HINTS, hintFor, outputCategoryFor, type ToolHint, type ToolHints } from './hints';
export { makeBudget, counterFor, schemaOverhead, modelBudget, triggerTokens, type Budget } from './budget';
export { summaryKey, contentHash } from './reducers/summarize';
