/** Moved to lib/categories/signal.ts (below compaction and summarize); kept so existing imports resolve. */
export * from '../categories/signal';
