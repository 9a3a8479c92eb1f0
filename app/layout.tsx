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

/**
 * Runs before first paint: apply the stored theme ('light' | 'dark' | 'system') so a dark-mode
 * user never sees a white flash. Kept tiny and dependency-free; it is inlined into every page.
 */
const themeScript = `(function(){try{var t=localStorage.getItem('contextscope-theme');var d=t==='dark'||((t===null||t==='system')&&matchMedia('(prefers-color-scheme: dark)').matches);document.documentElement.classList.toggle('dark',d);}catch(e){}})();`;

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="bg-white text-neutral-900 antialiased dark:bg-[#0b0f14] dark:text-neutral-100">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
