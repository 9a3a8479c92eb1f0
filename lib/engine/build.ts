/**
 * The engine's code, named (next.config.mjs `engineBuild`: a hash of lib/, workers/ and the lock
 * file, inlined at build time). Stored replays are keyed by it (lib/engine/replay.ts ReplayStore).
 * Undefined outside a production build (`next dev`, Node): nothing is stored there, since the code
 * may change under a running page without the name changing.
 */
// The worker's project has no Node types; the bundler replaces these expressions at build time.
declare const process: { env: Record<string, string | undefined> };

export const ENGINE_BUILD: string | undefined = process.env.NODE_ENV === 'production' ? process.env.CONTEXTSCOPE_ENGINE_BUILD || undefined : undefined;
