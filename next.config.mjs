/**
 * Static export: the whole app is files in out/, served by any static server (scripts/serve.mjs).
 * Nothing is fetched at build time (no next/font/google, no remote images), so it builds offline.
 * @type {import('next').NextConfig}
 */
const nextConfig = {
  output: 'export',
  images: { unoptimized: true },
  reactStrictMode: true,
  // /inspect?id=… is one static page; query params carry the state (static export has no dynamic routes).
  trailingSlash: false,
  poweredByHeader: false,
  productionBrowserSourceMaps: !!process.env.CS_SOURCEMAPS,
};

export default nextConfig;
