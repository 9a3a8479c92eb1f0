/**
 * A worker thread of `compact DIR --jobs N` (lib/cli/_compact-batch.ts): receives jobs
 * {args, file, out, label}, compacts each file exactly as `compact FILE --out OUT` would (same
 * parsing of the same arguments) and answers with its CompactRow.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runJob, WORKER_MARK, type WorkerJob } from './_compact-batch';

// Only in a thread the batch started (a test runner's own worker threads have a parentPort too).
if (parentPort && (workerData as Record<string, unknown> | undefined)?.[WORKER_MARK] === true) {
  const port = parentPort;
  port.on('message', (job: WorkerJob) => {
    void runJob(job).then((row) => port.postMessage(row));
  });
}
