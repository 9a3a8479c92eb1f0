import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = {
  title: 'Contextscope',
  description: 'Inspect and compact LLM agent transcripts, locally. Nothing leaves the browser.',
};

export const viewport: Viewport = {
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#ffffff' },
    { media: '(prefers-color-scheme: dark)', color: '#0b0f14' },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* public/theme-init.js: applies the stored theme before first paint (no flash). A static file
            rather than an inline script, so no HTML string is ever injected into the page. */}
        {/* eslint-disable-next-line @next/next/no-sync-scripts */}
        <script src="/theme-init.js" />
      </head>
      <body className="bg-white text-neutral-900 antialiased dark:bg-[#0b0f14] dark:text-neutral-100">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
