import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="flex h-screen flex-col items-center justify-center gap-2 text-center">
      <p className="text-lg font-semibold">Page not found</p>
      <Link href="/" className="text-sm font-medium text-blue-700 underline dark:text-blue-400">
        Back to the library
      </Link>
    </main>
  );
}
