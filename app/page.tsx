'use client';

import { LibraryPage } from '@/components/library/LibraryPage';

export default function Home() {
  return <LibraryPage />;
}
