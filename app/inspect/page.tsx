'use client';

import { Suspense } from 'react';
import { InspectorPage } from '@/components/inspector/InspectorPage';

/** /inspect?id=…&v=…&sel=a-b — one static page; the query string carries the state (static export). */
export default function Inspect() {
  return (
    <Suspense fallback={<div className="h-screen" />}>
      <InspectorPage />
    </Suspense>
  );
}
