'use client';

import { useEffect, useRef, useState } from 'react';
import { testConnection, type ConnectionTest as Result } from '@/lib/summarize/providers';
import type { ProviderConfig } from '@/lib/summarize/providers/types';
import { Button } from '../ui/Button';

/**
 * "Test connection": one tiny request from this page to the provider, and what went wrong in
 * words (unreachable/CORS, bad key, rate limit with the wait, server error, timeout, bad reply).
 */
export function ConnectionTest({ config, disabled }: { config: ProviderConfig | undefined; disabled?: boolean }) {
  const [state, setState] = useState<{ running: boolean; result?: Result }>({ running: false });
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);
  // A changed configuration makes an old result misleading.
  const signature = config ? `${config.kind}|${config.baseUrl ?? ''}|${config.model}|${config.apiKey?.length ?? 0}` : '';
  useEffect(() => setState({ running: false }), [signature]);

  const run = async () => {
    if (!config) return;
    controller.current?.abort();
    const c = new AbortController();
    controller.current = c;
    setState({ running: true });
    const result = await testConnection(config, c.signal);
    if (!c.signal.aborted) setState({ running: false, result });
  };

  return (
    <div className="space-y-2">
      <div className="flex items-center gap-2">
        <Button onClick={run} disabled={disabled || !config || state.running} data-testid="test-connection">
          {state.running ? 'Testing…' : 'Test connection'}
        </Button>
        {state.running && (
          <Button variant="ghost" onClick={() => { controller.current?.abort(); setState({ running: false }); }}>
            Cancel
          </Button>
        )}
      </div>
      {state.result && (
        <p role="status" data-testid="connection-result" className={`text-sm ${state.result.ok ? 'text-green-700 dark:text-green-400' : 'text-red-700 dark:text-red-400'}`}>
          {state.result.ok
            ? `Connected: ${state.result.model} answered in ${state.result.latencyMs} ms${state.result.reply ? ` (“${state.result.reply}”)` : ''}.`
            : state.result.message}
        </p>
      )}
    </div>
  );
}
