/** Tailwind 4 runs as a PostCSS plugin; the theme lives in app/globals.css (`@import "tailwindcss"`). */
const config = {
  plugins: { '@tailwindcss/postcss': {} },
};

export default config;
