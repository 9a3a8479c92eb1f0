import { Suspense } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { preloaded } from './preloaded';

function Hello({ name }: { name: string }) {
  return <b>hello {name}</b>;
}

const inBrowser = () => Object.assign(globalThis, { window: globalThis });
afterEach(() => {
  delete (globalThis as { window?: unknown }).window;
});

describe('preloaded', () => {
  it('asks for its chunk at once in the browser, and a first render after it arrived does not suspend', async () => {
    inBrowser();
    let asked = 0;
    const C = preloaded(async () => (asked++, Hello));
    expect(asked).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    // renderToStaticMarkup cannot wait: a suspended component shows its fallback.
    expect(renderToStaticMarkup(<Suspense fallback="waiting">{<C name="chunk" />}</Suspense>)).toBe('<b>hello chunk</b>');
    expect(asked).toBe(1);
  });

  it('before its chunk is in, it suspends (the Suspense fallback shows)', () => {
    inBrowser();
    const C = preloaded(() => new Promise<typeof Hello>(() => {}));
    expect(renderToStaticMarkup(<Suspense fallback="waiting">{<C name="x" />}</Suspense>)).toBe('waiting');
  });

  it('asks for nothing outside the browser until it is rendered', () => {
    let asked = 0;
    preloaded(async () => (asked++, Hello));
    expect(asked).toBe(0);
  });
});
