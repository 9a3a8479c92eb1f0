'use client';

import { Suspense } from 'react';
import { ReplayPage } from '@/components/replay/ReplayPage';

/** /replay?id=…&m=…&ttl=1h — every compaction policy replayed on one session, call by call. */
export default function Replay() {
  return (
    <Suspense fallback={<div className="h-screen" />}>
      <ReplayPage />
    </Suspense>
  );
}
